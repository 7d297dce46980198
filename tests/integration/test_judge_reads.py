"""A judge never reads an unreachable device as an empty one: only the device's own "no such file" does."""

from __future__ import annotations

import pytest

from mgfarm.device import Device
from mgfarm.device.device import DeviceError, FileMissing
from mgfarm.tasks.state import open_database
from tests.integration.conftest import AdbServer, SimHandle

CONTACTS = "/data/data/com.android.providers.contacts/databases/contacts2.db"


def test_a_missing_database_is_empty_and_a_dead_device_is_an_error(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    device = Device(sim_device.serial, adb_port=adb_server.port)
    with pytest.raises(FileMissing):
        device.pull("/data/data/no.such.app/databases/none.db")
    assert open_database(device, "/data/data/no.such.app/databases/none.db") is None
    assert open_database(device, CONTACTS) is not None

    sim_device.process.kill()
    sim_device.process.wait(timeout=15)
    with pytest.raises(DeviceError) as info:
        open_database(device, CONTACTS)
    assert not isinstance(info.value, FileMissing)
