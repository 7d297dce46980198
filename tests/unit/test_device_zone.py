"""A time zone the device cannot find (any string `setprop` or `TZ=` takes) reads as UTC, as bionic
falls back to GMT: commands and screens that show local time keep working, and say UTC's time."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from mgfarm.sim.system.clock import zone_named
from tests.unit.shellkit import ShellDevice

# 2026-03-02 09:15 UTC; 10:15 in Berlin.
NOW_MS = int(dt.datetime(2026, 3, 2, 9, 15, tzinfo=dt.timezone.utc).timestamp() * 1000)
# Not zones: a folder of the zone database (IsADirectoryError), a name too long for a file
# (OSError), paths (ValueError), an unknown key (KeyError).
NOT_ZONES = ["America", "x" * 300, "../../etc/passwd", "/etc/passwd", "Europe/Berlin/", "Nowhere/City", " "]
CLOCK_ID = "com.android.systemui:id/clock"
APPS = ("com.google.android.deskclock", "com.simplemobiletools.calendar.pro", "com.android.settings")
LAUNCH = "monkey -p {} -c android.intent.category.LAUNCHER 1"


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    device = ShellDevice(tmp_path)
    device.device.services.clock.freeze(True)
    device.device.services.clock.set_ms(NOW_MS)
    yield device
    device.close()


def status_clock(sh: ShellDevice) -> str:
    root = ElementTree.fromstring(sh.device.services.window.dump_xml(all_windows=True))
    (text,) = [n.get("text", "") for n in root.iter("node") if n.get("resource-id") == CLOCK_ID]
    return text


def test_a_known_zone_is_used_and_anything_else_is_utc() -> None:
    assert str(zone_named("Europe/Berlin")) == "Europe/Berlin"
    for name in [*NOT_ZONES, "", None]:
        assert zone_named(name) is dt.timezone.utc, name


@pytest.mark.parametrize("name", NOT_ZONES)
def test_commands_and_screens_show_utc_for_a_zone_that_does_not_exist(sh: ShellDevice, name: str) -> None:
    assert sh.run("setprop persist.sys.timezone Europe/Berlin").status == 0
    assert sh.run("date +%H:%M").text == "10:15\n"
    assert status_clock(sh) == "10:15"
    assert sh.run(f"setprop persist.sys.timezone '{name}'").status == 0
    assert sh.run("date +%H:%M").text == "09:15\n"
    assert sh.run(f"TZ='{name}' date +%H:%M").text == "09:15\n"
    listing = sh.run("touch /sdcard/t.txt; ls -l /sdcard/t.txt")
    assert listing.status == 0 and " 2026-03-02 09:15 " in listing.text, listing.error
    for package in APPS:
        assert sh.run(LAUNCH.format(package)).status == 0
        dumped = sh.run("uiautomator dump /sdcard/ui.xml && screencap -p /sdcard/s.png")
        assert dumped.status == 0, (package, dumped.error)
        assert status_clock(sh) == "9:15"
    assert sh.run("input keyevent 3 && uiautomator dump /sdcard/ui.xml").status == 0  # the launcher's date
