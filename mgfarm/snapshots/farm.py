"""What `mgfarm up` calls so a farm boots into a built snapshot, and refuses one that does not fit.

The farm layer knows nothing of builds: `up` here finds the built snapshot for the farm's backend
and hands `mgfarm.farm.api.up` a finder, which it calls once the backend is chosen.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mgfarm
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.backends import DEFAULT_BACKEND, Backend, backend_class
from mgfarm.farm.boot import DEFAULT_SNAPSHOT
from mgfarm.farm.profiles import DEFAULT_PROFILE, check_profile
from mgfarm.farm.state import FarmState, Replica, remove_folder
from mgfarm.snapshots.manifest import (
    MANIFEST_LABEL,
    Manifest,
    Screen,
    built_image,
    check_manifest,
    docker_sdk,
    parse_manifest,
    read_manifest,
    snapshot_files,
)
from mgfarm.snapshots.recipe import list_recipes

if TYPE_CHECKING:  # imported where a device is checked: numpy and adbutils are a third of `mgfarm up`'s start
    from mgfarm.device import Device


def up(
    replicas: int,
    backend: str = DEFAULT_BACKEND,
    *,
    image: str = "",
    snapshot: str = DEFAULT_SNAPSHOT,
    **options: Any,
) -> FarmState:
    """`mgfarm.farm.api.up` booting into the snapshot `mgfarm snapshot build` made for this backend.

    Without --image, a backend whose snapshots live in images runs the image the build committed.
    """
    if backend_class(backend).snapshot_store == "image" and not image:
        image = built_image(backend, snapshot)
    profile = str(options.get("profile") or DEFAULT_PROFILE)
    finder = partial(_find, profile=check_profile(profile))
    return api.up(replicas, backend, image=image, snapshot=snapshot, find_snapshot=finder, **options)


@dataclass
class Built:
    """A built snapshot a farm is about to use: its manifest and, for shared files, their folder."""

    manifest: Manifest
    files: Path | None = None

    @property
    def ram_mb(self) -> int:
        return self.manifest.ram_mb

    def place(self, farm_dir: Path) -> None:
        """Copy the files into the farm's snapshot folder, which its devices load from (read-only)."""
        if self.files is None:
            return
        target = farm_dir / "snapshots" / self.manifest.name
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_folder(target)
        shutil.copytree(self.files, target, symlinks=True)

    def check_device(self, farm: FarmState, rep: Replica) -> None:
        """After boot, before the snapshot loads: the farm's devices must have the snapshot's screen."""
        from mgfarm.device import Device

        device = Device(rep.serial, adb_port=farm.adb_server_port)
        try:
            screen = device_screen(device)
        finally:
            device.close()
        check_manifest(
            self.manifest,
            farm.backend,
            image=farm.image,
            screen=screen,
            image_id=self.manifest.snapshot_image_id,
            profile=farm.profile,
        )


def _find(backend: Backend, snapshot: str, profile: str = "") -> Built | None:
    return find_built(backend.name, backend.image, snapshot, profile)


def find_built(backend: str, image: str, snapshot: str, profile: str = "") -> Built | None:
    """Before devices start: the built snapshot, checked to fit (`profile`: the farm's device
    profile); None when none was built (the farm then saves one from its freshly booted devices)
    or the backend's devices keep their own."""
    store = backend_class(backend).snapshot_store
    if store == "image":
        manifest = _image_manifest(backend, image, snapshot, profile)
        return None if manifest is None else Built(manifest)
    if store != "files":
        return None
    manifest = read_manifest(backend, snapshot)
    if manifest is None:
        return None
    check_manifest(manifest, backend, mgfarm_version=mgfarm.__version__, profile=profile)
    check_recipe_unchanged(manifest)
    source = snapshot_files(snapshot)
    if not (source / "state.json").is_file():
        raise MgfarmError(
            f"Snapshot {snapshot!r} has a manifest but its files are gone from {source}; "
            f"rebuild it with `mgfarm snapshot build {snapshot}`."
        )
    return Built(manifest, source)


def _image_manifest(backend: str, image: str, snapshot: str, profile: str = "") -> Manifest | None:
    """The manifest inside the farm's image, checked; or the refusal when a build exists elsewhere."""
    docker = docker_sdk()
    client = docker.from_env()
    try:
        found = client.images.get(image)
        labels, image_id = dict(found.labels or {}), str(found.id)
    except docker.errors.DockerException:
        return None  # the backend reports a missing image in its own words
    finally:
        client.close()
    text = labels.get(MANIFEST_LABEL)
    manifest = parse_manifest(text, f"in image {image}") if text else read_manifest(backend, snapshot)
    if manifest is None or manifest.name != snapshot:
        return None
    if text:  # the label was written before the commit, so it cannot know the committed id
        manifest = manifest.model_copy(update={"snapshot_image_id": image_id})
    check_manifest(manifest, backend, image=image, image_id=image_id, profile=profile)
    check_recipe_unchanged(manifest)
    return manifest


def check_recipe_unchanged(manifest: Manifest) -> None:
    """Refuse a snapshot whose shipped recipe changed since the build (`mgfarm snapshot list`: stale)."""
    current = {r.name: r.content_hash() for r in list_recipes()}.get(manifest.name)
    if current is not None and current != manifest.recipe_hash:
        backend = "" if manifest.backend == DEFAULT_BACKEND else f" --backend {manifest.backend}"
        raise MgfarmError(
            f"Snapshot {manifest.name!r} is stale: its recipe changed after it was built "
            f"({manifest.recipe_hash} -> {current}); rebuild it with "
            f"`mgfarm snapshot build {manifest.name}{backend}`."
        )


def device_screen(device: Device) -> Screen:
    """The device's screen as `wm size` and `wm density` report it."""
    width, height = device.window_size()
    densities = re.findall(r"density: (\d+)", device.shell("wm density"))
    return Screen(width=width, height=height, density=int(densities[-1]) if densities else 0)
