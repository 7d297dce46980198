"""Golden snapshots on the docker backend: build commits an image holding the snapshot, a farm on
that image boots into the seeded state, and a farm on another image is refused."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.backends.docker import FARM_LABEL
from mgfarm.farm.ports import quiet_range_start
from mgfarm.snapshots.build import build
from mgfarm.snapshots.farm import up as farm_up
from mgfarm.snapshots.manifest import MANIFEST_LABEL, Manifest
from mgfarm.snapshots.recipe import load_recipe

GOLDEN = load_recipe("golden")


@pytest.fixture
def golden_image(engine: Any, sim_image: str, farm_home: Path, adb_port: int) -> Iterator[Manifest]:
    manifest = build("golden", backend="docker", image=sim_image, adb_port=adb_port)
    try:
        yield manifest
    finally:
        with contextlib.suppress(Exception):
            engine.images.remove(manifest.snapshot_image, force=True)


@pytest.mark.timeout(900)  # may include building the sim image once for the session
def test_golden_image_boots_a_farm_into_the_seeded_state(
    engine: Any, golden_image: Manifest, adb_port: int, sim_image: str
) -> None:
    assert golden_image.recipe_hash == GOLDEN.content_hash()
    tag = f"golden-{GOLDEN.content_hash()}-on-mgfarm-sim-latest"  # names the image it was built on
    assert golden_image.snapshot_image == f"mgfarm-snapshot:{tag}"
    label = json.loads(engine.images.get(golden_image.snapshot_image).labels[MANIFEST_LABEL])
    assert label["recipe_hash"] == GOLDEN.content_hash()
    assert not engine.containers.list(all=True, filters={"label": f"{FARM_LABEL}=snapshot-build-golden"})

    names = {s["add_contact"]["name"] for s in GOLDEN.seed if "add_contact" in s}
    farm = farm_up(
        2,
        backend="docker",
        name="golden-dk",
        image=golden_image.snapshot_image,
        adb_port=adb_port,
        first_port=quiet_range_start(2),
    )
    try:
        for rep in farm.replicas:
            device = Device(rep.serial, adb_port=adb_port)
            rows = device.content_query("content://contacts/phones", projection=["display_name"])
            assert {r["display_name"] for r in rows} == names
            assert device.shell("date +%Y-%m-%d") == "2026-03-04"
    finally:
        api.down("golden-dk")

    with pytest.raises(MgfarmError) as info:
        farm_up(1, backend="docker", name="wrong-image", image=sim_image, adb_port=adb_port)
    assert f"start the farm with `--image {golden_image.snapshot_image}`" in str(info.value)
    assert not engine.containers.list(all=True, filters={"label": f"{FARM_LABEL}=wrong-image"})
