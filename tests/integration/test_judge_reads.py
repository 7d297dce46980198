"""A judge never reads an unreachable device as an empty one: only the device's own "no such file" does."""

from __future__ import annotations

from pathlib import Path

import pytest

from mgfarm.device import Device
from mgfarm.device.device import DeviceError, FileMissing
from mgfarm.tasks.state import pull_database
from tests.integration.conftest import AdbServer, SimHandle

CONTACTS = "/data/data/com.android.providers.contacts/databases/contacts2.db"


def test_a_missing_database_is_empty_and_a_dead_device_is_an_error(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    device = Device(sim_device.serial, adb_port=adb_server.port)
    with pytest.raises(FileMissing):
        device.pull("/data/data/no.such.app/databases/none.db")
    assert pull_database(device, "/data/data/no.such.app/databases/none.db", tmp_path) is None
    assert pull_database(device, CONTACTS, tmp_path) is not None

    sim_device.process.kill()
    sim_device.process.wait(timeout=15)
    with pytest.raises(DeviceError) as info:
        pull_database(device, CONTACTS, tmp_path)
    assert not isinstance(info.value, FileMissing)
