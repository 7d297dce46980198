"""`mgfarm.Device` against simulated devices, through the real adb server and the console."""

from __future__ import annotations

import hashlib

import pytest

from mgfarm.adb.errors import ConsoleError
from mgfarm.device import Device, DeviceError
from mgfarm.errors import MgfarmError
from tests.integration.conftest import AdbServer, SimHandle

HOSTILE = ["'; touch /data/local/tmp/pwned; echo '", "$(touch /data/local/tmp/pwned)", "`id` && x | y > z"]


@pytest.fixture
def device(adb_server: AdbServer, sim_device: SimHandle) -> Device:
    dev = Device(sim_device.serial, adb_port=adb_server.port, console_token=sim_device.token)
    dev.wait_ready(timeout=30)
    return dev


def test_shell_exit_codes_and_files(device: Device) -> None:
    assert device.shell("echo hello") == "hello"
    assert device.shell2("false").exit_code == 1
    assert device.shell2("echo out; true").exit_code == 0
    payload = bytes(range(256)) * 1000  # several 64 KiB sync chunks
    device.push(payload, "/data/local/tmp/new/blob.bin")
    assert device.pull("/data/local/tmp/new/blob.bin") == payload
    device.push(b"", "/data/local/tmp/empty")
    assert device.pull("/data/local/tmp/empty") == b""
    with pytest.raises(DeviceError, match="No such file"):
        device.pull("/data/local/tmp/missing.bin")
    many = ["/data/local/tmp/missing.bin", "/data/local/tmp/new/blob.bin", "/data/local/tmp/empty"]
    assert device.pull_many(many) == [None, payload, b""]  # one session; a missing file is None
    with pytest.raises(DeviceError, match="/data/local/tmp/new"):
        device.pull_many(["/data/local/tmp/empty", "/data/local/tmp/new"])  # a folder is no file
    digest = device.shell("toybox md5sum /data/local/tmp/new/blob.bin").split()[0]
    assert digest == hashlib.md5(payload).hexdigest()


def test_several_pushes_in_one_session_land_in_order_and_a_refused_one_stops_the_rest(
    device: Device,
) -> None:
    big = bytes(range(256)) * 600  # more than one 64 KiB chunk
    device.push_many([(b"one", "/data/local/tmp/m/a.txt"), (big, "/data/local/tmp/m/b.bin")])
    assert device.pull_many(["/data/local/tmp/m/a.txt", "/data/local/tmp/m/b.bin"]) == [b"one", big]
    refused = [
        (b"x", "/data/local/tmp/m/c.txt"),
        (b"y", "/data/local/tmp/m"),
        (b"z", "/data/local/tmp/m/d.txt"),
    ]  # a folder
    with pytest.raises(DeviceError, match="/data/local/tmp/m"):
        device.push_many(refused)
    assert device.pull_many(["/data/local/tmp/m/c.txt", "/data/local/tmp/m/d.txt"]) == [b"x", None]
    assert device.shell("echo still here") == "still here"  # the device serves the next request


def test_settings_round_trip_and_hostile_values_stay_data(device: Device) -> None:
    device.settings_put("global", "wifi_on", 0)
    assert device.settings_get("global", "wifi_on") == "0"
    assert device.settings_get("global", "no_such_key_here") is None
    for text in HOSTILE:
        device.settings_put("system", "mgfarm_probe", text)
        assert device.settings_get("system", "mgfarm_probe") == text
    assert device.shell2("ls /data/local/tmp/pwned").exit_code != 0
    with pytest.raises(MgfarmError, match="namespace"):
        device.settings_get("bogus", "x")


def test_settings_provider_rows_parse(device: Device) -> None:
    device.settings_put("global", "airplane_mode_on", 1)
    rows = device.content_query("content://settings/global", projection=["name", "value"])
    by_name = {r["name"]: r["value"] for r in rows}
    assert by_name["airplane_mode_on"] == "1"


def test_snapshot_save_load_restores_state(device: Device) -> None:
    device.settings_put("global", "wifi_on", 1)
    device.shell("echo before > /sdcard/Download/probe.txt")
    device.snapshot_save("mgfarm_test")
    assert "mgfarm_test" in device.snapshot_list()
    device.settings_put("global", "wifi_on", 0)
    device.shell("echo after > /sdcard/Download/probe.txt")
    device.snapshot_load("mgfarm_test")
    assert device.settings_get("global", "wifi_on") == "1"
    assert device.shell("cat /sdcard/Download/probe.txt") == "before"
    with pytest.raises(ConsoleError):
        device.snapshot_load("never_saved")
    with pytest.raises(MgfarmError, match="invalid"):
        device.snapshot_load("bad name; kill")
    device.snapshot_delete("mgfarm_test")
    assert "mgfarm_test" not in device.snapshot_list()


def test_wrong_console_token_is_a_clear_error(adb_server: AdbServer, sim_device: SimHandle) -> None:
    dev = Device(sim_device.serial, adb_port=adb_server.port, console_token="wrong")
    with pytest.raises(ConsoleError, match="authentication"):
        dev.snapshot_list()


def test_unknown_serial_is_a_device_error(adb_server: AdbServer) -> None:
    dev = Device("emulator-5", adb_port=adb_server.port, console_token="x")
    with pytest.raises(DeviceError, match="emulator-5"):
        dev.shell("echo hi")


def test_screen_ui_and_current_app(device: Device, adb_server: AdbServer, sim_device: SimHandle) -> None:
    device.start_app("com.google.android.contacts")
    assert device.current_app()[0] == "com.google.android.contacts"
    image = device.screenshot()
    assert image.size == (1080, 2400) and image.mode == "RGB"
    pixels = device.screenshot_array()
    assert pixels.shape == (2400, 1080, 3) and pixels.dtype.name == "uint8"
    pixels[:] = 0  # callers own their arrays: the frame cache must not be affected
    assert device.screenshot_array().any()
    shared = device.screenshot_frame()  # no copy: read-only, shared by devices showing that screen
    assert shared.shape == pixels.shape and not shared.flags.writeable
    via_u2 = Device(sim_device.serial, adb_port=adb_server.port, ui_source="u2").ui_elements()
    via_dump = Device(sim_device.serial, adb_port=adb_server.port, ui_source="dump").ui_elements()
    clock = "com.android.systemui:id/clock"  # its text may change between the two dumps
    assert [e for e in via_u2 if e.resource_id != clock] == [e for e in via_dump if e.resource_id != clock]
    assert any(e.content_desc == "Create contact" and e.clickable for e in via_dump)
    device.key(3)  # HOME
    assert device.current_app()[0] != "com.google.android.contacts"


def test_content_insert_update_delete_round_trip(device: Device) -> None:
    uri = "content://settings/system"
    hostile = "x'; DROP TABLE system; --"
    device.content_insert(uri, {"name": "mgfarm_probe", "value": hostile})
    where = "name='mgfarm_probe'"
    assert device.content_query(uri, projection=["name", "value"], where=where) == [
        {"name": "mgfarm_probe", "value": hostile}
    ]
    device.content_update(uri, {"value": 42}, where=where)
    assert device.settings_get("system", "mgfarm_probe") == "42"
    device.content_delete(uri, where=where)
    assert device.content_query(uri, where=where) == []
    assert device.settings_get("system", "screen_brightness") is not None  # the table survived
