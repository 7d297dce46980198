"""`--backend emulator`: the registry's entry for the AOSP emulator, here on its stand-in image (a
simulated device in the emulator image's shape), started, used and removed like a docker farm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.backends.docker import FARM_LABEL, farm_filters
from mgfarm.farm.images import EMULATOR_IMAGE, STANDIN_IMAGE, build_images
from mgfarm.farm.ports import quiet_range_start
from mgfarm.farm.state import farm_exists
from mgfarm.snapshots.farm import up as farm_up


def test_up_backend_emulator_runs_the_emulator_image_and_down_removes_it(
    engine: Any, sim_image: str, farm_home: Path, adb_port: int
) -> None:
    build_images(print, "emulator-standin")
    farm = farm_up(
        1,
        "emulator",
        image=STANDIN_IMAGE,
        name="emu-entry",
        adb_port=adb_port,
        first_port=quiet_range_start(1),
    )
    try:
        assert (farm.backend, farm.image, farm.replicas[0].state) == ("emulator", STANDIN_IMAGE, "ready")
        assert engine.containers.get(farm.replicas[0].backend_id).labels[FARM_LABEL] == "emu-entry"
        booted = api.exec_shell("emu-entry", 0, ["getprop", "sys.boot_completed"])
        assert (booted.exit_code, booted.output.strip()) == (0, "1")
    finally:
        api.down("emu-entry")
    assert not engine.containers.list(all=True, filters=farm_filters("emu-entry"))


def test_without_the_emulator_image_up_says_how_to_build_it(engine: Any, farm_home: Path) -> None:
    if engine.images.list(name=EMULATOR_IMAGE):
        pytest.skip(f"{EMULATOR_IMAGE} is built on this machine")
    with pytest.raises(MgfarmError) as info:
        farm_up(1, "emulator", name="no-emu")
    assert str(info.value) == (
        f"Docker image '{EMULATOR_IMAGE}' is not on this machine; build it with "
        "`mgfarm images build emulator --accept-android-sdk-licenses`."
    )
    assert not farm_exists("no-emu")
