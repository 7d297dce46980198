"""Farms of two homes and a stray device on one host: each farm lists, resets and stops only its own."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.adb import server as adbserver
from mgfarm.adb.server import SCANNED_ADB_PORTS
from mgfarm.farm import api
from mgfarm.farm.ports import port_in_use
from tests.integration.conftest import free_scanned_adb_port, serving
from tests.support import wait_until


@pytest.fixture
def stray_device(tmp_path: Path) -> Iterator[int]:
    """A simulated device in the range every adb server scans, announced to nobody (a user's emulator)."""
    adb_port = free_scanned_adb_port()
    if adb_port is None:
        pytest.skip("every emulator port pair 5554-5585 is taken on this machine")
    with serving(adb_port, tmp_path) as (line, _):
        assert line.startswith("ready")
        yield adb_port


def in_home(home: Path) -> None:
    os.environ["MGFARM_HOME"] = str(home)


def test_two_homes_and_a_stray_device(
    stray_device: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "a"))
    homes = {key: tmp_path / key for key in ("a", "b")}
    farms = {}
    try:
        for key, home in homes.items():
            in_home(home)
            farms[key] = api.up(1, name="same")  # the same name, and each its own adb server
        ports = {key: farm.adb_server_port for key, farm in farms.items()}
        assert ports["a"] != ports["b"]
        stray_serial = f"emulator-{stray_device - 1}"
        for key, farm in farms.items():
            serials = {rep.serial for rep in farm.replicas}
            assert all(int(s.split("-")[1]) + 1 not in SCANNED_ADB_PORTS for s in serials)
            # A farm's adb server attaches its own replicas and nothing else: no stray, no other home.
            wait_until(lambda f=farm, s=serials: set(adbserver.devices(f.adb_server_port)) >= s, 20, "attach")
            assert set(adbserver.devices(farm.adb_server_port)) == serials, stray_serial
            in_home(homes[key])
            assert {r.serial for r in api.status("same").replicas} == serials

        in_home(homes["a"])
        api.restart("same", 0)
        api.down("same")
        in_home(homes["b"])
        survivor = api.status("same").replicas[0]
        assert survivor.state == "ready" and survivor.restarts == 0
        run = api.exec_shell("same", 0, ["echo", "still-here"])
        assert run.output.strip() == "still-here"
        assert port_in_use(stray_device), "the stray device was stopped by a farm"
        # Seconds later still: the stray device in the scanned range never joined a farm's server.
        assert set(adbserver.devices(ports["b"])) == {survivor.serial}
    finally:
        for home in homes.values():
            in_home(home)
            with contextlib.suppress(Exception):  # already down, or never started
                api.down("same")
