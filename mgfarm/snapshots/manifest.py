"""Manifests of built snapshots: what a snapshot was made on, where it is stored, and the check that
refuses to boot a farm from a snapshot made for other hardware.

Store: `$MGFARM_HOME/snapshots/<backend>/<name>/manifest.json`, plus `files/<name>/` for the
process backend (the simulated device's snapshot folder). A docker build keeps its data in the
committed image, whose `org.mgfarm.snapshot` label holds the same manifest.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends import backend_class
from mgfarm.farm.profiles import DEFAULT_PROFILE
from mgfarm.farm.state import home, remove_folder

MANIFEST_LABEL = "org.mgfarm.snapshot"
SNAPSHOT_IMAGE_REPO = "mgfarm-snapshot"
# Files that hold a replica's secrets; an image label may name its own (space-separated).
SECRETS_LABEL = "org.mgfarm.secret_paths"
SIM_SECRETS = ("/run/mgfarm/console_token",)


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
    profile: str = DEFAULT_PROFILE  # the device profile it was built on (its apps' packages and data)
    image_id: str = ""
    snapshot_image: str = ""  # docker: the committed image a farm boots from
    snapshot_image_id: str = ""
    emulator_build: str = "unknown"
    system_image: str = "unknown"
    android_sdk: str = "unknown"
    # What an emulator snapshot is bound to besides the image (0 / "" on the simulated device).
    ram_mb: int = 0
    cores: int = 0
    gpu_mode: str = ""
    screen: Screen
    created_at: str
    build_seconds: float = 0.0
    mgfarm_version: str = ""

    def summary(self) -> str:
        where = self.snapshot_image or self.image
        facts = f"{self.backend}, {self.profile}, {where}, {self.screen}"
        return f"{self.name} ({facts}, recipe {self.recipe_hash})"


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


def snapshot_tag(name: str, recipe_hash: str, base_image: str) -> str:
    """`<name>-<recipe hash>-on-<base image>`: a build on another image gets a tag of its own."""
    base = re.sub(r"[^a-z0-9]+", "-", base_image.lower()).strip("-")[:60] or "image"
    return f"{name}-{recipe_hash}-on-{base}"


def secret_paths(labels: dict[str, str]) -> list[str]:
    """Where a container of an image with these labels keeps secrets that must not be committed."""
    named = labels.get(SECRETS_LABEL, "").split()
    return named or list(SIM_SECRETS)


def built_image(backend: str, snapshot: str) -> str:
    """The committed image of the snapshot `snapshot` built on `backend` (docker, emulator), or ''
    when none was built; refuses a record whose image was removed behind mgfarm's back (docker rmi,
    docker system prune)."""
    manifest = read_manifest(backend, snapshot)
    if manifest is None or not manifest.snapshot_image:
        return ""
    docker = docker_sdk()
    try:
        client = docker.from_env()
        try:
            client.images.get(manifest.snapshot_image)
        finally:
            client.close()
    except docker.errors.ImageNotFound:
        raise MgfarmError(
            f"Snapshot {snapshot!r} was built into image {manifest.snapshot_image}, which is gone; rebuild "
            f"it with `mgfarm snapshot build {snapshot} --backend {backend} --image {manifest.image}` or "
            f"forget it with `mgfarm snapshot rm {snapshot} --backend {backend}`."
        ) from None
    except docker.errors.DockerException:
        pass  # no engine: the backend says so in its own words
    return manifest.snapshot_image


def snapshot_images(client: Any, name: str) -> list[Any]:
    """Local images of SNAPSHOT_IMAGE_REPO whose manifest label names snapshot `name`."""
    found = []
    for image in client.images.list(name=SNAPSHOT_IMAGE_REPO):
        text = (image.labels or {}).get(MANIFEST_LABEL, "")
        with contextlib.suppress(MgfarmError):
            if text and parse_manifest(text, "label").name == name:
                found.append(image)
    return found


def remove_snapshot(name: str, backend: str = "") -> list[str]:
    """`mgfarm snapshot rm`: the manifests, the process backend's files and the committed images.

    Returns what was removed; refuses in one sentence when nothing of that name exists or an image
    is still used by a container (then nothing is removed).
    """
    backends = [backend] if backend else sorted(p.name for p in store_root().glob("*") if p.is_dir())
    removed = [f"{b} manifest" for b in backends if manifest_path(b, name).is_file()]
    images: list[Any] = []
    in_images = not backend or backend_class(backend).snapshot_store == "image"
    docker: Any = docker_sdk() if in_images else None
    client: Any = None
    if docker is not None:
        with contextlib.suppress(docker.errors.DockerException):
            client = docker.from_env()
            images = snapshot_images(client, name)
    if not removed and not images:
        where = f" for the {backend} backend" if backend else ""
        raise MgfarmError(f"No snapshot {name!r} is built{where}; see `mgfarm snapshot list`.")
    for image in images:
        tags = ", ".join(image.tags) or image.id
        try:
            client.images.remove(image.id, force=False)
        except docker.errors.APIError as exc:
            raise MgfarmError(
                f"Image {tags} of snapshot {name!r} is still in use ({exc.explanation}); stop the farm "
                "running it with `mgfarm down` and run `mgfarm snapshot rm` again."
            ) from None
        removed.append(f"image {tags}")
    for b in backends:
        remove_built(b, name)
    return removed


def check_manifest(
    manifest: Manifest,
    backend: str,
    image: str = "",
    image_id: str = "",
    screen: Screen | None = None,
    mgfarm_version: str = "",
    profile: str = "",
) -> None:
    """Refuse, in one sentence with the fix, a snapshot that does not fit the farm about to use it.

    `profile`: the farm's device profile ('' skips the check); a snapshot holds its profile's app
    packages and data folders, so it is never loaded on devices of another."""
    rebuild = f"rebuild it with `mgfarm snapshot build {manifest.name} --backend {backend}`"
    if profile and manifest.profile != profile:
        raise MgfarmError(
            f"Snapshot {manifest.name!r} was built on device profile {manifest.profile}, not {profile}; "
            f"start the farm with --profile {manifest.profile}, or rebuild it with "
            f"`mgfarm snapshot build {manifest.name} --backend {backend} --profile {profile}`."
        )
    if manifest.backend != backend:
        raise MgfarmError(
            f"Snapshot {manifest.name!r} was built on the {manifest.backend} backend, "
            f"not {backend}; {rebuild}."
        )
    if backend_class(backend).snapshot_store == "image":
        ours = {manifest.snapshot_image, manifest.snapshot_image_id} - {""}
        if image not in ours and image_id not in ours:
            # Rebuilding cannot help a farm on a base image: a build makes a new image to run.
            raise MgfarmError(
                f"Snapshot {manifest.name!r} lives in image {manifest.snapshot_image} (built on "
                f"{manifest.image}), not in {image or 'this image'}; start the farm with "
                f"`--image {manifest.snapshot_image}` or without --image."
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
