"""Anyone with a shell may `settings put` any text where the system expects a number; the system
then reads its default (`Settings.System.getInt(cr, name, def)`), and every screen still shows: a
policy must not be able to break the device's screenshots and hierarchy dumps with one command,
nor by breaking the settings database with a root shell (it starts again from the defaults)."""

from __future__ import annotations

import pytest

from mgfarm.sim.apps.settings import SCREEN_TIMEOUT, Settings
from mgfarm.sim.system.settings import DEFAULTS
from tests.unit.shellkit import ShellDevice

NOT_NUMBERS = ["abc", "", "99999999999999999999", " 7 ", "1_0", "1.5"]
SETTINGS = "com.android.settings"


def shows(sh: ShellDevice) -> str:
    """The hierarchy, after a screenshot was taken as well; fails when either fails."""
    shot = sh.run("screencap -p /data/local/tmp/s.png")
    assert shot.status == 0, shot.error
    dumped = sh.run("uiautomator dump /dev/tty")
    assert dumped.status == 0, dumped.error
    return dumped.text


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_every_setting_holding_any_text_leaves_every_settings_page_and_the_shade_showing(
    sh: ShellDevice, text: str
) -> None:
    keys = [(ns, key) for ns, values in DEFAULTS.items() for key in values]
    assert ("system", "screen_brightness") in keys and ("system", "user_rotation") in keys
    script = "; ".join(f"settings put {ns} {key} '{text}'" for ns, key in keys)
    assert sh.run(script).status == 0
    for activity in sorted({*Settings.intent_actions.values(), SCREEN_TIMEOUT}):
        assert sh.run(f"am start -n {SETTINGS}/{activity}").status == 0, activity
        xml = shows(sh)
        assert f'package="{SETTINGS}"' in xml and "keeps stopping" not in xml, activity
    sh.run("input keyevent 3")
    for _ in range(2):  # notifications, then quick settings with the brightness slider
        sh.run("input swipe 540 5 540 1600 200")
    assert sh.device.services.window.shade_open
    assert 'package="com.android.systemui"' in shows(sh)
    assert sh.run("dumpsys window displays").status == 0


SETTINGS_DB = "/data/data/com.android.providers.settings/databases/settings.db"


@pytest.mark.parametrize(
    "breaks",
    [
        f"rm {SETTINGS_DB}",
        f": > {SETTINGS_DB}",
        f"echo garbage > {SETTINGS_DB}",
        f"rm {SETTINGS_DB} && mkdir {SETTINGS_DB}",
        f"sqlite3 {SETTINGS_DB} 'DROP TABLE system'",
    ],
)
def test_a_broken_settings_database_starts_again_from_the_defaults(sh: ShellDevice, breaks: str) -> None:
    assert sh.run("settings put system screen_brightness 200; settings put global wifi_on 0").status == 0
    assert sh.run(breaks).status == 0
    for _ in range(2):
        sh.run("input swipe 540 5 540 1600 200")
    assert 'package="com.android.systemui"' in shows(sh)  # the status bar and shade read settings
    assert (
        sh.run("settings get system screen_brightness").text == f"{DEFAULTS['system']['screen_brightness']}\n"
    )
    assert sh.run("settings put global wifi_on 1 && settings get global wifi_on").text == "1\n"
    assert "wifi_on=1" in sh.run("settings list global").text
