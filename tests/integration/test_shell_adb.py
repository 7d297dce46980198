"""Shell and Android commands through the real adb server and adbutils, as tools drive a device."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import uiautomator2 as u2

from tests.integration.conftest import AdbServer, SimHandle, SimProcess


@pytest.fixture(scope="module")
def sim_device(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimHandle]:
    """One device for the whole module: each test starts from the home screen it leaves."""
    proc = SimProcess(adb_server, tmp_path_factory.mktemp("shell_adb"), 1)
    try:
        yield proc.wait_ready()[0]
    finally:
        proc.stop()


@pytest.fixture(autouse=True)
def home_screen(adb_server: AdbServer, sim_device: SimHandle) -> None:
    adb_server.adb("-s", sim_device.serial, "shell", "input keyevent 3")


def test_adbutils_helpers_parse_the_device(adb_server: AdbServer, sim_device: SimHandle) -> None:
    device = adb_server.client().device(sim_device.serial)
    assert device.window_size() == (1080, 2400)
    assert device.rotation() == 0
    assert "com.android.settings" in device.list_packages()
    assert device.getprop("sys.boot_completed") == "1"
    assert device.app_current().package == "com.android.launcher3"
    device.app_start("com.android.settings")  # monkey -p ... -c LAUNCHER 1
    current = device.app_current()
    assert (current.package, current.activity) == ("com.android.settings", "com.android.settings.Settings")
    device.app_stop("com.android.settings")
    assert device.app_current().package == "com.android.launcher3"
    device.app_start("com.android.settings", ".Settings")  # am start -n
    assert device.app_current().package == "com.android.settings"
    info = device.app_info("com.android.settings")
    assert info is not None and info.path.endswith(".apk") and info.version_code is not None
    result = device.shell2("ls /no/such/dir")
    assert result.returncode == 1 and "No such file or directory" in result.output


def test_adb_shell_exit_codes_and_quoting(adb_server: AdbServer, sim_device: SimHandle) -> None:
    serial = sim_device.serial
    missing = adb_server.adb("-s", serial, "shell", "nosuchcommand")
    assert missing.returncode == 127
    assert missing.stderr == "/system/bin/sh: nosuchcommand: inaccessible or not found\n"
    failing = adb_server.adb("-s", serial, "shell", "sh -c 'exit 42'")
    assert failing.returncode == 42
    piped = adb_server.adb("-s", serial, "shell", "echo 'a  b' | tr a-z A-Z && false || echo fell")
    assert piped.stdout == "A  B\nfell\n"


def test_settings_content_and_sqlite_over_adb(adb_server: AdbServer, sim_device: SimHandle) -> None:
    device = adb_server.client().device(sim_device.serial)
    device.shell(["settings", "put", "global", "wifi_on", "0"])
    assert device.shell(["settings", "get", "global", "wifi_on"]) == "0"
    rows = device.shell(
        [
            "content",
            "query",
            "--uri",
            "content://settings/global",
            "--projection",
            "name:value",
            "--where",
            "name='wifi_on'",
        ]
    )
    assert rows == "Row: 0 name=wifi_on, value=0"
    device.shell(["svc", "wifi", "enable"])
    db = "/data/data/com.android.providers.settings/databases/settings.db"
    assert device.shell(["sqlite3", db, "SELECT value FROM global WHERE name='wifi_on'"]) == "1"
    failed = device.shell2(["sqlite3", db, "SELECT * FROM nope"])
    assert failed.returncode == 1 and "Error: " in failed.output


def test_screencap_and_uiautomator_dump_over_adb(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    serial = sim_device.serial
    png = adb_server.adb_bytes("-s", serial, "exec-out", "screencap", "-p")
    assert png.stdout.startswith(b"\x89PNG\r\n\x1a\n")
    dumped = adb_server.adb("-s", serial, "shell", "uiautomator", "dump")
    assert dumped.stdout == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    local = tmp_path / "ui.xml"
    assert adb_server.adb("-s", serial, "pull", "/sdcard/window_dump.xml", str(local)).returncode == 0
    assert 'package="com.android.launcher3"' in local.read_text()
    image = adb_server.client().device(serial).screenshot()
    assert image.size == (1080, 2400)


def test_uiautomator2_send_keys_installs_and_uses_the_adb_keyboard(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    # send_keys installs u2's real APK (binary manifest), enables and selects its IME with `ime`,
    # then types through `am broadcast -a ADB_KEYBOARD_INPUT_TEXT`: every step is a shell command.
    d = u2.connect(adb_server.client().device(sim_device.serial))
    d.settings["wait_timeout"] = 2.0
    try:
        d.shell("am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity")
        d(description="Create contact").click()
        field = d(resourceId="com.google.android.contacts:id/first_name")
        field.click()
        d.send_keys("Grace")
        assert field.get_text() == "Grace"
        assert "com.github.uiautomator/.AdbKeyboard" in d.shell("ime list -s").output.split()
        d.clear_text()
        assert field.get_text() != "Grace"
    finally:
        d.stop_uiautomator()
