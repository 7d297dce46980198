"""Manifests of built snapshots: what a snapshot was made on, where it is stored, and the check that
refuses to boot a farm from a snapshot made for other hardware.

Store: `$MGFARM_HOME/snapshots/<backend>/<name>/manifest.json`, plus `files/<name>/` for the
process backend (the simulated device's snapshot folder). A docker build keeps its data in the
committed image, whose `org.mgfarm.snapshot` label holds the same manifest.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

from pydantic import BaseModel, ConfigDict, ValidationError

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import home, remove_folder

MANIFEST_LABEL = "org.mgfarm.snapshot"
SNAPSHOT_IMAGE_REPO = "mgfarm-snapshot"


class Screen(BaseModel):
    """Screen geometry a snapshot was saved at; UI coordinates in it are only valid for the same."""

    width: int
    height: int
    density: int

    def __str__(self) -> str:
        return f"{self.width}x{self.height} at {self.density} dpi"


class Manifest(BaseModel):
    """What one built snapshot is and what it was made on."""

    model_config = ConfigDict(extra="ignore")
    name: str
    recipe_hash: str
    recipe_source: str = ""
    backend: str
    image: str  # docker: the image the device ran; process: "mgfarm-sim <version>"
    image_id: str = ""
    snapshot_image: str = ""  # docker: the committed image a farm boots from
    snapshot_image_id: str = ""
    emulator_build: str = "unknown"
    system_image: str = "unknown"
    android_sdk: str = "unknown"
    screen: Screen
    created_at: str
    build_seconds: float = 0.0
    mgfarm_version: str = ""

    def summary(self) -> str:
        where = self.snapshot_image or self.image
        return f"{self.name} ({self.backend}, {where}, {self.screen}, recipe {self.recipe_hash})"


def docker_sdk() -> ModuleType:
    """The Docker SDK, imported by name: the repository's own docker/ folder would shadow it for mypy."""
    return importlib.import_module("docker")


def store_root() -> Path:
    return home() / "snapshots"


def store_dir(backend: str, name: str) -> Path:
    return store_root() / backend / name


def manifest_path(backend: str, name: str) -> Path:
    return store_dir(backend, name) / "manifest.json"


def write_manifest(manifest: Manifest) -> Path:
    path = manifest_path(manifest.backend, manifest.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(manifest.model_dump_json(indent=1))
    tmp.replace(path)
    return path


def parse_manifest(text: str, origin: str) -> Manifest:
    try:
        return Manifest.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError):
        raise MgfarmError(
            f"The snapshot manifest {origin} is unreadable; rebuild it with `mgfarm snapshot build`."
        ) from None


def read_manifest(backend: str, name: str) -> Manifest | None:
    """The manifest of the snapshot built for this backend, or None when none was built."""
    path = manifest_path(backend, name)
    if not path.is_file():
        return None
    return parse_manifest(path.read_text(), str(path))


def list_manifests() -> list[Manifest]:
    """Every built snapshot, by backend then name."""
    found = []
    for path in sorted(store_root().glob("*/*/manifest.json")):
        found.append(parse_manifest(path.read_text(), str(path)))
    return found


def snapshot_files(name: str) -> Path:
    """Where a process-backend build keeps the simulated device's snapshot folder."""
    return store_dir("process", name) / "files" / name


def remove_built(backend: str, name: str) -> None:
    remove_folder(store_dir(backend, name))


def check_manifest(
    manifest: Manifest,
    backend: str,
    image: str = "",
    image_id: str = "",
    screen: Screen | None = None,
    mgfarm_version: str = "",
) -> None:
    """Refuse, in one sentence with the fix, a snapshot that does not fit the farm about to use it."""
    rebuild = f"rebuild it with `mgfarm snapshot build {manifest.name} --backend {backend}`"
    if manifest.backend != backend:
        raise MgfarmError(
            f"Snapshot {manifest.name!r} was built on the {manifest.backend} backend, "
            f"not {backend}; {rebuild}."
        )
    if backend == "docker":
        ours = {manifest.snapshot_image, manifest.snapshot_image_id} - {""}
        if image not in ours and image_id not in ours:
            raise MgfarmError(
                f"Snapshot {manifest.name!r} lives in image {manifest.snapshot_image} (built on "
                f"{manifest.image}) but this farm runs {image or 'another image'}; start the farm with "
                f"--image {manifest.snapshot_image}, or {rebuild} --image {image or '<image>'}."
            )
    elif mgfarm_version and manifest.mgfarm_version and manifest.mgfarm_version != mgfarm_version:
        raise MgfarmError(
            f"Snapshot {manifest.name!r} was built by mgfarm {manifest.mgfarm_version} and this is "
            f"{mgfarm_version}; {rebuild}."
        )
    if screen is not None and screen != manifest.screen:
        raise MgfarmError(
            f"Snapshot {manifest.name!r} was saved on a {manifest.screen} screen but this farm's devices "
            f"are {screen}; {rebuild} on devices of that size."
        )
