"""The judge's state capture reads what the device holds: every database row, setting, app
preference and small file, the same after a change as a full pull would, however many databases it
had seen before."""

from __future__ import annotations

import contextlib
import hashlib

from mgfarm.catalog import load_catalog
from mgfarm.device import Device
from mgfarm.tasks.state import StateSpec, capture, open_copy, read_files, read_tables
from tests.integration.conftest import AdbServer, SimHandle

ALARMS = "/data/data/com.google.android.deskclock/databases/alarms.db"


def pulled_whole(device: Device, spec: StateSpec) -> dict[str, dict[str, dict[str, object]]]:
    """Every declared database's tables read from a full pull (what a capture must equal)."""
    tables: dict[str, dict[str, dict[str, object]]] = {}
    for decl in spec.databases.values():
        path = spec.path_on(decl.path, device.profile)
        data, wal = device.pull_many([path, path + "-wal"])
        if data is not None:
            with contextlib.closing(open_copy(data, wal)) as conn:
                tables.update(read_tables(decl.name, conn, spec.entities))
    return tables


def test_a_capture_sees_every_change_and_equals_a_full_pull(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    device = Device(sim_device.serial, adb_port=adb_server.port)
    spec = load_catalog([]).state
    first = capture(device, spec)
    assert {
        k: v for k, v in first.tables.items() if "." in k and not k.startswith(("settings.", "prefs."))
    } == pulled_whole(device, spec)

    device.sqlite(
        ALARMS,
        "INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label) "
        "VALUES (23, 59, 0, 1, 1, 'late')",
    )
    device.settings_put("global", "wifi_on", "0")
    device.push(b"note\n", "/sdcard/Download/a note.txt")
    device.push(b"v" * 300_000, "/sdcard/Movies/clip.mp4")  # too large to hash: its times stand
    device.shell("setprop persist.sys.timezone Asia/Kolkata")
    prefs = spec.prefs["expense"].path
    device.shell(f'sed -i \'s#</map>#<int name="launches" value="3" /></map>#\' {prefs}')
    second = capture(device, spec)

    labels = [row["label"] for row in second.table("alarms.alarm_templates").values()]
    assert labels.count("late") == 1 + [
        r["label"] for r in first.table("alarms.alarm_templates").values()
    ].count("late")
    assert second.table("settings.global")["wifi_on"] == {"value": "0"}
    note = second.table("files")["/storage/emulated/0/Download/a note.txt"]
    assert note == {"type": "file", "size": 5, "sha1": hashlib.sha1(b"note\n").hexdigest(), "times": None}
    clip = second.table("files")["/storage/emulated/0/Movies/clip.mp4"]
    assert clip["size"] == 300_000 and clip["sha1"] is None and clip["times"]
    assert read_files(device) == second.table("files")
    assert second.timezone == "Asia/Kolkata"
    assert first.table("prefs.expense")["selected_currency_number"]["value"] == "840"
    assert second.table("prefs.expense") == {
        **first.table("prefs.expense"),
        "launches": {"type": "int", "value": "3"},
    }
    assert {
        k: v for k, v in second.tables.items() if "." in k and not k.startswith(("settings.", "prefs."))
    } == pulled_whole(device, spec)
