"""The simulated device against every recording in tests/parity/recordings/: the same parity checks
(command formats, package and activity names, provider columns, uiautomator dump attributes,
console replies) must come out in the same shapes. Recordings made on a real Android 13 emulator
(`make parity SERIAL=emulator-5554`) sit next to the sim's own and are checked the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mgfarm.device import Device
from mgfarm.parity.checks import CHECKS, columns, hierarchy_shape, numbers
from mgfarm.parity.record import differences, load, record
from tests.integration.conftest import AdbServer, SimHandle

RECORDINGS = sorted((Path(__file__).parent / "recordings").glob("*.json"))


@pytest.fixture
def sim_recording(adb_server: AdbServer, sim_device: SimHandle) -> dict[str, Any]:
    device = Device(sim_device.serial, adb_port=adb_server.port)
    return record(device, sim_device.console_port, sim_device.token)


def test_there_is_a_recording_to_compare_with() -> None:
    assert RECORDINGS, "no recording in tests/parity/recordings; make one with `make parity SERIAL=...`"


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_sim_prints_what_the_recorded_device_printed(path: Path, sim_recording: dict[str, Any]) -> None:
    expected = load(path)
    assert set(expected["checks"]) <= {c.name for c in CHECKS}, (
        "the recording has checks parity no longer runs"
    )
    assert differences(expected, sim_recording) == []


def test_a_difference_is_reported_by_name_and_command(sim_recording: dict[str, Any]) -> None:
    changed = {"checks": {k: dict(v) for k, v in sim_recording["checks"].items()}}
    changed["checks"]["wm_size"]["shape"] = "Physical size: N"
    found = differences(changed, sim_recording)
    assert len(found) == 1 and found[0].startswith("wm_size (wm size): expected")


def test_shapes_keep_the_format_and_drop_the_values() -> None:
    assert numbers("Physical size: 1080x2400") == "Physical size: NxN"
    row = "Row: 0 _id=12, name=airplane_mode_on, value=0"
    assert columns(row) == {"rows": "N", "row_format": "Row: N", "columns": ["_id", "name", "value"]}
    assert columns("No result found.") == {"rows": 0, "text": "No result found."}
    node = '<node index="0" text="" bounds="[0,0][1,1]"/>'
    dump = f'<?xml version="1.0"?><hierarchy rotation="0">{node}</hierarchy>'
    shape = hierarchy_shape("UI hierchary dumped to: /dev/tty" + dump)
    assert shape["root_attributes"] == ["rotation"] and shape["node_attributes"] == [
        "bounds",
        "index",
        "text",
    ]
