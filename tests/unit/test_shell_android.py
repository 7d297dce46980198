"""Android commands on a booted device: the exact output formats tools and verifiers parse."""

from __future__ import annotations

import re
import sqlite3
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.sim.system.providers import Route, SqliteProvider
from tests.unit.shellkit import ShellDevice

# The regexes adbutils uses for app_current(), rotation() and window_size().
FOCUS_RE = re.compile(r"mCurrentFocus=Window{.*\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\}")
RESUMED_RE = re.compile(
    r"mResumedActivity: ActivityRecord\{.*?\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\s.*?\}"
)
ORIENTATION_RE = re.compile(r".*?orientation=(?P<orientation>\d+)")


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("android"))
    yield dev
    dev.close()


def test_settings_get_put_list_delete(sh: ShellDevice) -> None:
    assert sh.run("settings get global wifi_on").text == "1\n"
    r = sh.run("settings put global wifi_on 0")
    assert (r.status, r.text) == (0, "")
    assert sh.run("settings get global wifi_on").text == "0\n"
    assert sh.run("settings get secure no_such_key").text == "null\n"
    sh.run("settings put system screen_brightness 200")
    assert "screen_brightness=200\n" in sh.run("settings list system").text
    lines = sh.run("settings list global").text.splitlines()
    assert lines == sorted(lines)
    sh.run("settings put global tmp_key x")
    assert sh.run("settings delete global tmp_key").text == "Deleted 1 rows\n"
    assert sh.run("settings delete global tmp_key").text == "Deleted 0 rows\n"
    assert sh.run("settings get nonsense k").status != 0


def test_settings_live_in_the_aosp_database(sh: ShellDevice) -> None:
    sh.run("settings put global airplane_mode_on 1")
    db = sh.host("/data/data/com.android.providers.settings/databases/settings.db")
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM global WHERE name='airplane_mode_on'").fetchone()
    assert row == ("1",)


def test_svc_toggles_radios(sh: ShellDevice) -> None:
    sh.run("svc wifi disable; svc bluetooth enable; svc data disable")
    r = sh.run(
        "settings get global wifi_on; settings get global bluetooth_on; settings get global mobile_data"
    )
    assert r.text == "0\n1\n0\n"
    sh.run("svc wifi enable")
    assert sh.run("settings get global wifi_on").text == "1\n"


@pytest.fixture(scope="module")
def notes(sh: ShellDevice) -> str:
    """A provider over a test table, registered the way apps register theirs."""
    db = sh.host("/data/data/com.example.notes/databases/notes.db")
    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE notes (_id INTEGER PRIMARY KEY, title TEXT, body TEXT, pinned INTEGER, pic BLOB)"
        )
        conn.execute("INSERT INTO notes (title, body, pinned, pic) VALUES ('b', NULL, 1, x'00ff')")
        conn.execute("INSERT INTO notes (title, body, pinned) VALUES ('a', 'hello, world', 0)")
    routes = {
        "notes": Route("notes"),
        "notes/pinned": Route("notes", where="pinned = 1", defaults={"pinned": 1}),
    }
    sh.device.services.providers.register(
        "com.example.notes", SqliteProvider("com.example.notes", lambda: db, routes, sh.device.fs.space)
    )
    return "content://com.example.notes/notes"


def test_content_query_formats(sh: ShellDevice, notes: str) -> None:
    r = sh.run(f"content query --uri {notes} --projection _id:title:body:pic --sort title")
    assert (
        r.text
        == "Row: 0 _id=2, title=a, body=hello, world, pic=NULL\nRow: 1 _id=1, title=b, body=NULL, pic=BLOB\n"
    )
    r = sh.run(f"content query --uri {notes} --projection title --where \"title='zzz'\"")
    assert r.text == "No result found.\n"
    assert sh.run(f"content query --uri {notes}/2 --projection title").text == "Row: 0 title=a\n"
    assert sh.run(f"content query --uri {notes}/pinned --projection title").text == "Row: 0 title=b\n"


def test_content_insert_update_delete(sh: ShellDevice, notes: str) -> None:
    r = sh.run(f"content insert --uri {notes}/pinned --bind title:s:new --bind body:s:with:colons")
    assert (r.status, r.text, r.err) == (0, "", b"")
    r = sh.run(f"content query --uri {notes} --projection title:body:pinned --where \"title='new'\"")
    assert r.text == "Row: 0 title=new, body=with:colons, pinned=1\n"
    sh.run(f"content update --uri {notes} --bind pinned:i:0 --where \"title='new'\"")
    assert sh.run(f"content query --uri {notes}/pinned --projection title").text == "Row: 0 title=b\n"
    sh.run(f"content delete --uri {notes} --where \"title='new'\"")
    assert sh.run(f"content query --uri {notes} --where \"title='new'\"").text == "No result found.\n"


def test_provider_insert_returns_row_uri(sh: ShellDevice, notes: str) -> None:
    provider, _ = sh.device.services.providers.resolve(notes)
    uri = provider.insert(notes, {"title": "direct"})
    assert re.fullmatch(r"content://com\.example\.notes/notes/\d+", uri)
    provider.delete(uri, None, [])


def test_content_errors(sh: ShellDevice) -> None:
    r = sh.run("content query --uri content://no.such.authority/x")
    assert r.status != 0 and "no.such.authority" in r.error
    r = sh.run("content query")
    assert r.status != 0 and "--uri" in r.error


def test_content_reads_settings(sh: ShellDevice) -> None:
    sh.run("settings put global wifi_on 1")
    r = sh.run("content query --uri content://settings/global/wifi_on --projection name:value")
    assert r.text == "Row: 0 name=wifi_on, value=1\n"
    assert sh.run('content query --uri "content://settings/secure/x\'y"').text == "No result found.\n"
    r = sh.run("content query --uri content://settings/global --projection value --where \"name='wifi_on'\"")
    assert r.text == "Row: 0 value=1\n"


def test_sqlite3_list_mode_and_errors(sh: ShellDevice) -> None:
    db = "/data/local/tmp/t.db"
    sql = "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, NULL), ('x|y', 2.5); SELECT * FROM t;"
    r = sh.run(f'sqlite3 {db} "{sql}"')
    assert (r.status, r.text) == (0, "1|\nx|y|2.5\n")
    r = sh.run(f"sqlite3 {db} 'SELECT * FROM missing'")
    assert r.status == 1 and r.error.startswith("Error: ") and "no such table" in r.error
    r = sh.run(f"sqlite3 {db}", stdin=b"SELECT count(*) FROM t;\n")
    assert r.text == "2\n"


def test_pm_list_and_path(sh: ShellDevice) -> None:
    names = sh.run("pm list packages").text.splitlines()
    assert "package:com.android.settings" in names
    assert all(line.startswith("package:") for line in names)
    r = sh.run("pm path com.android.settings")
    assert re.fullmatch(r"package:/\S+\.apk\n", r.text)
    r = sh.run("pm path no.such.pkg")
    assert (r.status, r.text) == (1, "")
    assert sh.run("cmd package list packages -s").text == sh.run("pm list packages -s").text
    assert all("=" in line for line in sh.run("pm list packages -f").text.splitlines())


def test_pm_install_uninstall_grant(sh: ShellDevice) -> None:
    apk = sh.host("/data/local/tmp/app.apk")
    with zipfile.ZipFile(apk, "w") as zf:
        zf.writestr("AndroidManifest.xml", '<manifest package="com.example.new"/>')
    assert sh.run("pm install /data/local/tmp/app.apk").text == "Success\n"
    assert "package:com.example.new" in sh.run("pm list packages -3").text.splitlines()
    assert "package:com.example.new" not in sh.run("pm list packages -s").text.splitlines()
    sh.run("pm grant com.example.new android.permission.CAMERA")
    assert "android.permission.CAMERA: granted=true" in sh.run("dumpsys package com.example.new").text
    r = sh.run("pm grant no.such.pkg android.permission.CAMERA")
    assert r.status != 0 and "Unknown package: no.such.pkg" in r.error
    assert sh.run("pm uninstall com.example.new").text == "Success\n"
    assert "package:com.example.new" not in sh.run("pm list packages").text
    assert sh.run("pm uninstall com.example.new").text.startswith("Failure [")
    assert sh.run("pm install /data/local/tmp/none.apk").text.startswith("Failure [")


def test_pm_clear_wipes_app_data(sh: ShellDevice) -> None:
    marker = sh.host("/data/data/com.android.settings/files/marker")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("x")
    assert sh.run("pm clear com.android.settings").text == "Success\n"
    assert not marker.exists()
    assert sh.run("pm clear no.such.pkg").text == "Failed\n"


def test_am_start_and_current_activity(sh: ShellDevice) -> None:
    r = sh.run("am start -n com.android.settings/.Settings")
    assert (r.status, r.text) == (0, "Starting: Intent { cmp=com.android.settings/.Settings }\n")
    m = FOCUS_RE.search(sh.run("dumpsys window windows").text)
    assert m and (m["package"], m["activity"]) == ("com.android.settings", "com.android.settings.Settings")
    m = RESUMED_RE.search(sh.run("dumpsys activity activities").text)
    assert m and m["package"] == "com.android.settings"
    sh.run("am force-stop com.android.settings")
    m = FOCUS_RE.search(sh.run("dumpsys window windows").text)
    assert m and m["package"] == "com.android.launcher3"


def test_am_start_errors_and_wait(sh: ShellDevice) -> None:
    r = sh.run("am start -n com.android.settings/.NoSuchActivity")
    assert r.status != 0
    assert (
        "Error: Activity class {com.android.settings/com.android.settings.NoSuchActivity} does not exist."
        in r.error
    )
    r = sh.run("am start -W -a android.settings.SETTINGS")
    assert "Status: ok" in r.text and "Complete" in r.text
    sh.run("input keyevent KEYCODE_HOME")


def test_monkey_launches_and_broadcast_prints(sh: ShellDevice) -> None:
    r = sh.run("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
    assert r.status == 0 and "Events injected: 1" in r.text
    assert FOCUS_RE.search(sh.run("dumpsys window").text)["package"] == "com.android.settings"  # type: ignore[index]
    sh.run("input keyevent 3")
    assert FOCUS_RE.search(sh.run("dumpsys window").text)["package"] == "com.android.launcher3"  # type: ignore[index]
    assert sh.run("monkey -p no.such.pkg 1").status != 0
    r = sh.run("am broadcast -a com.example.PING")
    assert (
        r.text
        == "Broadcasting: Intent { act=com.example.PING flg=0x400000 }\nBroadcast completed: result=0\n"
    )


def test_input_rejects_bad_arguments(sh: ShellDevice) -> None:
    assert sh.run("input tap 10").status != 0
    assert sh.run("input keyevent KEYCODE_NOPE").status != 0
    assert sh.run("input tap 100 200; input swipe 500 1500 500 500 100; input text a%sb").status == 0


def test_uiautomator_dump(sh: ShellDevice) -> None:
    r = sh.run("uiautomator dump")
    assert r.text == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    xml = sh.host("/sdcard/window_dump.xml").read_text()
    assert xml.startswith(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    )
    assert sh.run("uiautomator dump /sdcard/Download/ui.xml").text.endswith("/sdcard/Download/ui.xml\n")


def test_screencap_png_and_raw(sh: ShellDevice) -> None:
    png = sh.run("screencap -p").out
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    raw = sh.run("screencap").out
    w, h, fmt = struct.unpack("<III", raw[:12])
    assert (w, h, fmt) == (1080, 2400, 1) and len(raw) >= 12 + w * h * 4
    sh.run("screencap -p /sdcard/Pictures/s.png")
    assert sh.host("/sdcard/Pictures/s.png").read_bytes().startswith(b"\x89PNG")


def test_uiautomator_dump_to_an_unwritable_path_fails(sh: ShellDevice) -> None:
    r = sh.run("uiautomator dump /nonexist/d.xml")
    assert r.status != 0 and r.text == ""
    assert r.error == "ERROR: could not write /nonexist/d.xml: No such file or directory\n"
    assert not sh.host("/nonexist").exists()


@pytest.mark.parametrize(
    "line",
    [
        "screencap /proc/x/y.png",
        "screencap -p /nonexist/s",
        "uiautomator dump /proc/x/d.xml",
        "cat /data/../../x",
    ],
)
def test_failed_writes_name_device_paths_never_host_ones(sh: ShellDevice, line: str) -> None:
    r = sh.run(line)
    root = str(sh.device.fs.root)
    assert r.status != 0 and root not in r.error and "/tmp/" not in r.error, r.error
    if line.startswith("screencap"):
        target = line.split()[-1]
        assert r.error == f"Error opening file: {target} (No such file or directory)\n"


def test_os_errors_are_told_with_device_paths(sh: ShellDevice) -> None:
    fs = sh.device.fs
    host = fs.host("/sdcard/nope.txt")
    assert fs.os_error(FileNotFoundError(2, "No such file or directory", str(host))) == (
        "/storage/emulated/0/nope.txt: No such file or directory"
    )
    assert fs.os_error(PermissionError(13, "Permission denied", "/etc/shadow")) == "shadow: Permission denied"


def test_wm_and_display(sh: ShellDevice) -> None:
    assert sh.run("wm size").text == "Physical size: 1080x2400\n"
    assert sh.run("wm density").text == "Physical density: 420\n"
    sh.run("wm size 720x1600")
    assert sh.run("wm size").text == "Physical size: 1080x2400\nOverride size: 720x1600\n"
    sh.run("wm size reset")
    assert sh.run("wm size").text == "Physical size: 1080x2400\n"
    assert re.search(r"init=1080x2400 420dpi cur=1080x2400", sh.run("dumpsys window displays").text)
    orientations = [ORIENTATION_RE.search(line) for line in sh.run("dumpsys display").text.splitlines()]
    assert next(m for m in orientations if m)["orientation"] == "0"


def test_dumpsys_battery_and_package(sh: ShellDevice) -> None:
    assert "  level: 100\n" in sh.run("dumpsys battery").text
    text = sh.run("dumpsys package com.android.settings").text
    assert re.search(r"versionName=\S+", text) and re.search(r"versionCode=\d+", text)
    assert re.search(r"firstInstallTime=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", text)


def test_props_date_and_misc(sh: ShellDevice) -> None:
    assert sh.run("getprop sys.boot_completed").text == "1\n"
    assert sh.run("getprop no.such.prop").text == "\n"
    assert sh.run("setprop debug.x 5; getprop debug.x").text == "5\n"
    assert sh.run("setprop ro.build.version.sdk 1").status == 1
    assert re.fullmatch(r"(\[[^\]]+\]: \[[^\]]*\]\n)+", sh.run("getprop").text)
    sh.device.services.clock.freeze(True)
    sh.run("date -s '2024-03-05 06:07:08'")
    assert sh.run("date +%Y-%m-%d; date +%s").text == "2024-03-05\n1709618828\n"
    # the form the task setup step `set_time` sends: MMDDhhmmCCYY.ss
    assert sh.run("date 030409302026.00").text == "Wed Mar  4 09:30:00 UTC 2026\n"
    assert sh.run("date '+%F %T'").text == "2026-03-04 09:30:00\n"
    sh.run("date -s @1700000000")
    assert sh.run("date +%s").text == "1700000000\n"
    sh.device.services.clock.freeze(False)
    assert sh.run("ime list -s").text == "com.android.inputmethod.latin/.LatinIME\n"
    assert sh.run("logcat -d").status == 0
    ps = sh.run("ps -A").text.splitlines()
    assert ps[0].split()[1] == "PID" and ps[0].split()[-1] == "NAME"
    assert all(len(line.split()) >= 9 for line in ps[1:])


def test_pm_install_reads_binary_manifests_and_ime_follows_packages(sh: ShellDevice) -> None:
    import shutil

    import uiautomator2

    apk = Path(uiautomator2.__file__).parent / "assets" / "app-uiautomator.apk"
    shutil.copyfile(apk, sh.host("/data/local/tmp/unknown.apk"))
    adb_keyboard = "com.github.uiautomator/.AdbKeyboard"
    assert adb_keyboard not in sh.run("ime list -s -a").text
    assert sh.run("pm install -r -t /data/local/tmp/unknown.apk").text == "Success\n"
    assert sh.run("ime list -s -a").text.split() == ["com.android.inputmethod.latin/.LatinIME", adb_keyboard]
    assert sh.run(f"ime set {adb_keyboard}").status == 1  # not enabled yet
    assert (
        sh.run(f"ime enable {adb_keyboard}").text == f"Input method {adb_keyboard}: now enabled for user #0\n"
    )
    assert sh.run(f"ime set {adb_keyboard}").text == f"Input method {adb_keyboard} selected for user #0\n"
    assert sh.run("settings get secure default_input_method").text == adb_keyboard + "\n"
    r = sh.run("am broadcast -a ADB_KEYBOARD_HIDE")
    assert r.text.endswith("Broadcast completed: result=-1\n")
    sh.run(f"ime disable {adb_keyboard}")
    assert sh.run("am broadcast -a ADB_KEYBOARD_HIDE").text.endswith("result=0\n")
    sh.run("pm uninstall com.github.uiautomator")
    assert sh.run("ime list -s -a").text == "com.android.inputmethod.latin/.LatinIME\n"


def test_run_as_uname_pidof_env(sh: ShellDevice) -> None:
    r = sh.run("run-as com.android.providers.settings ls databases")
    assert r.text == "settings.db\n"
    assert sh.run("run-as no.such.pkg ls").status == 1
    assert sh.run("uname -m; printenv EXTERNAL_STORAGE").text == "x86_64\n/sdcard\n"
    assert sh.run("pidof adbd").text.strip().isdigit()
    assert sh.run("pidof no.such.process").status == 1
