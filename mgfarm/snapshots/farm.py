"""What `mgfarm up` calls so a farm boots into a built snapshot, and refuses one that does not fit."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import mgfarm
from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm.state import FarmState, remove_folder
from mgfarm.snapshots.manifest import (
    MANIFEST_LABEL,
    Manifest,
    Screen,
    check_manifest,
    docker_sdk,
    parse_manifest,
    read_manifest,
    snapshot_files,
)
from mgfarm.snapshots.recipe import list_recipes


def prepare(folder: Path, backend: str, image: str, snapshot: str) -> Manifest | None:
    """Before devices start: find the built snapshot, check it fits, and put it where devices load it.

    Returns its manifest, or None when no snapshot of that name was built (the farm then saves one
    from its freshly booted devices).
    """
    if backend == "docker":
        return _docker_manifest(image, snapshot)
    manifest = read_manifest("process", snapshot)
    if manifest is None:
        return None
    check_manifest(manifest, "process", mgfarm_version=mgfarm.__version__)
    check_recipe_unchanged(manifest)
    source = snapshot_files(snapshot)
    if not (source / "state.json").is_file():
        raise MgfarmError(
            f"Snapshot {snapshot!r} has a manifest but its files are gone from {source}; "
            f"rebuild it with `mgfarm snapshot build {snapshot}`."
        )
    target = folder / "snapshots" / snapshot
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_folder(target)
    shutil.copytree(source, target, symlinks=True)
    return manifest


def _docker_manifest(image: str, snapshot: str) -> Manifest | None:
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
    manifest = parse_manifest(text, f"in image {image}") if text else read_manifest("docker", snapshot)
    if manifest is None or manifest.name != snapshot:
        return None
    if text:  # the label was written before the commit, so it cannot know the committed id
        manifest = manifest.model_copy(update={"snapshot_image_id": image_id})
    check_manifest(manifest, "docker", image=image, image_id=image_id)
    check_recipe_unchanged(manifest)
    return manifest


def check_recipe_unchanged(manifest: Manifest) -> None:
    """Refuse a snapshot whose shipped recipe changed since the build (`mgfarm snapshot list`: stale)."""
    current = {r.name: r.content_hash() for r in list_recipes()}.get(manifest.name)
    if current is not None and current != manifest.recipe_hash:
        backend = "" if manifest.backend == "process" else f" --backend {manifest.backend}"
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


def check_screen(manifest: Manifest, farm: FarmState) -> None:
    """After boot, before the snapshot loads: the farm's devices must have the snapshot's screen."""
    rep = farm.replicas[0]
    device = Device(rep.serial, adb_port=farm.adb_server_port)
    screen = device_screen(device)
    check_manifest(
        manifest, farm.backend, image=farm.image, screen=screen, image_id=manifest.snapshot_image_id
    )
