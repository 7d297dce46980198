"""File times follow the device clock over the real adb server (issue 21): with the device set to
2026-03-02 in Berlin, `ls -l`, `stat`, sync STAT/LIST (adbutils), `adb pull -a`, the Files app and
the media store all show that date, never the host's; `adb push` keeps the local file's mtime."""

from __future__ import annotations

import datetime as dt
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.integration.conftest import AdbServer, SimHandle

# 10:15 in Berlin (UTC+1 in March) is 09:15 UTC.
DEVICE_SET = dt.datetime(2026, 3, 2, 9, 15, tzinfo=dt.timezone.utc).timestamp()
SLACK = 300  # seconds the device clock may run on while the test works
NOTE = "/sdcard/Download/note.txt"


def near_device_time(epoch: float) -> bool:
    return DEVICE_SET <= epoch <= DEVICE_SET + SLACK


def summary_of(xml: str, title: str) -> str:
    """The subtitle the Files app shows under the row titled `title`."""
    for node in ET.fromstring(xml).iter("node"):
        texts = {child.get("resource-id"): child.get("text") for child in node.iter("node")}
        if texts.get("android:id/title") == title and "android:id/summary" in texts:
            return texts["android:id/summary"] or ""
    raise AssertionError(f"no row {title!r} in the Files app")


def test_file_times_agree_with_the_device_clock(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    device = adb_server.client().device(sim_device.serial)
    device.shell("setprop persist.sys.timezone Europe/Berlin")
    assert "2026" in device.shell("date -s '2026-03-02 10:15:00'")
    device.shell(f"echo hello > {NOTE}")

    assert re.search(r" 2026-03-02 10:1\d " + re.escape(NOTE), device.shell(f"ls -l {NOTE}"))
    assert near_device_time(int(device.shell(f"stat -c %Y {NOTE}")))
    assert device.shell(f"stat -c %y {NOTE}").strip().endswith(" +0100")

    # adbutils gives naive local datetimes of the STAT/LIST mtime: back to the epoch they came from.
    info = device.sync.stat(NOTE)
    assert info.mtime is not None and near_device_time(info.mtime.timestamp())
    listed = {e.path: e for e in device.sync.list("/sdcard/Download")}
    assert near_device_time(listed["note.txt"].mtime.timestamp())

    pulled = tmp_path / "note.txt"
    assert adb_server.adb("-s", sim_device.serial, "pull", "-a", NOTE, str(pulled)).returncode == 0
    assert near_device_time(pulled.stat().st_mtime)

    local = tmp_path / "old.txt"
    local.write_text("from 2001")
    os.utime(local, (1_000_000_000, 1_000_000_000))
    pushed = adb_server.adb("-s", sim_device.serial, "push", str(local), "/sdcard/Download/old.txt")
    assert pushed.returncode == 0, pushed.stderr
    assert device.shell("stat -c %Y /sdcard/Download/old.txt").strip() == "1000000000"  # kept, as adbd does

    media = device.shell("content query --uri content://media/external/file --projection _data:date_modified")
    row = next(line for line in media.splitlines() if "/Download/note.txt" in line)
    assert near_device_time(int(row.rsplit("date_modified=", 1)[1].split(",")[0]))

    device.shell("echo saved > /sdcard/top.txt")
    device.shell("am start -n com.google.android.documentsui/com.android.documentsui.files.FilesActivity")
    device.shell("uiautomator dump /sdcard/window_dump.xml")
    xml = device.shell("cat /sdcard/window_dump.xml")
    assert summary_of(xml, "Download") == "Mar 2"  # the folder changed when note.txt was made
    assert summary_of(xml, "top.txt") == "6 B, Mar 2"
    shot = adb_server.adb_bytes("-s", sim_device.serial, "exec-out", "screencap", "-p")
    assert shot.stdout.startswith(b"\x89PNG")
    (tmp_path / "files_app.png").write_bytes(shot.stdout)
    if os.environ.get("MGFARM_SHOT_DIR"):  # to look at the screen by hand
        (Path(os.environ["MGFARM_SHOT_DIR"]) / "files_app.png").write_bytes(shot.stdout)
