"""A root shell may damage any app's or provider's files (AndroidWorld's setup runs as root, so a
policy can too). The device goes on: its screenshots and hierarchy dumps work, and every app starts
again, with a database that was removed, emptied or overwritten made again as a fresh install has
it (SQLiteOpenHelper's onCreate, Android's DefaultDatabaseErrorHandler)."""

from __future__ import annotations

import pytest

from tests.unit.shellkit import ShellDevice

DAMAGE = {
    "overwritten": "echo 'garbage' > '{}'",
    "emptied": ": > '{}'",
    "removed": "rm -f '{}'",
    "unreadable": "chmod 000 '{}'",
}
LAUNCH = "monkey -p {} -c android.intent.category.LAUNCHER 1"


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_app_data_never_breaks_the_device(sh: ShellDevice, damage: str) -> None:
    packages = [line.split(":", 1)[1] for line in sh.run("pm list packages").text.split()]
    assert len(packages) > 30
    damaged = 0
    for package in packages:
        sh.run(LAUNCH.format(package))  # its data exists once it ran
        files = sh.run(f"find /data/data/{package} -type f").text.split()
        for path in files:
            assert sh.run(DAMAGE[damage].format(path)).status == 0, path
        damaged += len(files)
        sh.run(f"am force-stop {package}")
        sh.run(LAUNCH.format(package))
        shown = sh.run("uiautomator dump /dev/tty")
        assert shown.status == 0 and "keeps stopping" not in shown.text, (package, shown.error)
        for line in ("screencap -p /data/local/tmp/s.png", "input keyevent 3"):
            result = sh.run(line)
            assert result.status == 0, (package, line, result.error)
    assert damaged > 10  # databases and preferences of a dozen apps and the providers
    assert 'package="com.android.launcher3"' in sh.run("uiautomator dump /dev/tty").text
