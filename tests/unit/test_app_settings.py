"""Settings mirrors Android 13's top level, and its pages write the settings rows Android 13 uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from mgfarm.sim.apps.base import sql
from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, find, nodes

PKG = "com.android.settings"
BROCCOLI_DB = "/data/data/com.flauschcode.broccoli/databases/broccoli"
TOP_LEVEL = [
    "Network & internet",
    "Connected devices",
    "Apps",
    "Notifications",
    "Battery",
    "Storage",
    "Sound & vibration",
    "Display",
    "Wallpaper & style",
    "Accessibility",
    "Security & privacy",
    "Location",
    "Safety & emergency",
    "Passwords & accounts",
    "Digital Wellbeing & parental controls",
    "Google",
    "System",
    "About emulated device",
]


@pytest.fixture
def device(tmp_path: Path) -> SimDevice:
    return boot_device(tmp_path)


def texts(screen: Screen) -> list[str]:
    return [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["text"]]


def scroll_all(screen: Screen) -> list[str]:
    """Every text the main list shows from top to bottom, scrolling as a user does."""
    seen: list[str] = []
    for _ in range(8):
        for t in texts(screen):
            if t not in seen:
                seen.append(t)
        screen.device.services.window.swipe(540, 1900, 540, 700, 300)
    return seen


def test_main_page_lists_android_13_rows_in_order_with_their_summaries(device: SimDevice) -> None:
    device.services.settings.put("global", "device_name", "Ada's Pixel")
    screen = Screen(device)
    screen.am.start(PKG, ".Settings")
    xml = screen.xml()
    title = find(xml, text="Network & internet", rid="android:id/title")
    summary = find(xml, text="Mobile, Wi\u2011Fi, hotspot", rid="android:id/summary")
    assert summary.center[1] > title.center[1]
    assert find(xml, text="Assistant, recent apps, default apps", rid="android:id/summary")
    assert find(xml, text="100%", rid="android:id/summary")  # Battery: the battery level
    seen = scroll_all(screen)
    assert [t for t in seen if t in TOP_LEVEL] == TOP_LEVEL
    assert "Ada's Pixel" in seen  # About emulated device shows the device name


def test_internet_page_holds_the_wifi_switch(device: SimDevice) -> None:
    device.services.settings.put("global", "wifi_on", "1")
    screen = Screen(device)
    screen.am.start(PKG, ".Settings")
    screen.tap(text="Network & internet")
    for row in ("Internet", "Calls & SMS", "SIMs", "Airplane mode", "Hotspot & tethering", "Data Saver"):
        assert screen.has(text=row), row
    screen.tap(text="Internet")
    assert screen.has(text="AndroidWifi")
    screen.tap(rid="android:id/switch_widget")
    assert device.services.settings.get("global", "wifi_on") == "0"
    assert screen.has(text="To see available networks, turn Wi-Fi on.")


@pytest.mark.parametrize(
    ("page", "tap", "ns", "key", "before", "after"),
    [
        ("BatterySaverSettingsActivity", {"text": "Use Battery Saver"}, "global", "low_power", "0", "1"),
        ("LocationSettingsActivity", {"text": "Use location"}, "secure", "location_mode", "3", "0"),
        ("LocationSettingsActivity", {"text": "Use location"}, "secure", "location_mode", "0", "3"),
        ("ScreenTimeoutActivity", {"text": "5 minutes"}, "system", "screen_off_timeout", "60000", "300000"),
        ("TextReadingSettingsActivity", {"desc": "Make larger"}, "system", "font_scale", "1.0", "1.15"),
        ("TextReadingSettingsActivity", {"desc": "Make smaller"}, "system", "font_scale", "1.0", "0.85"),
        ("ZenModeSettingsActivity", {"text": "Turn on now"}, "global", "zen_mode", "0", "1"),
        ("ZenModeSettingsActivity", {"text": "Turn off now"}, "global", "zen_mode", "1", "0"),
        (
            "DisplaySettingsActivity",
            {"text": "Auto-rotate screen"},
            "system",
            "accelerometer_rotation",
            "0",
            "1",
        ),
    ],
)
def test_pages_write_the_android_13_settings_rows(
    device: SimDevice, page: str, tap: dict[str, str], ns: str, key: str, before: str, after: str
) -> None:
    device.services.settings.put(ns, key, before)
    screen = Screen(device)
    screen.am.start(PKG, f".Settings${page}")
    if not screen.has(**tap):  # below the fold
        device.services.window.swipe(540, 1900, 540, 700, 300)
    screen.tap(**tap)
    assert device.services.settings.get(ns, key) == after


def test_lock_screen_notifications_choices(device: SimDevice) -> None:
    settings = device.services.settings
    screen = Screen(device)
    screen.am.start(PKG, ".Settings$ConfigureNotificationSettingsActivity")
    screen.tap(text="Notifications on lock screen")
    screen.tap(text="Hide silent conversations and notifications")
    assert settings.get("secure", "lock_screen_show_notifications") == "1"
    assert settings.get("secure", "lock_screen_show_silent_notifications") == "0"
    assert screen.has(text="Hide silent conversations and notifications", rid="android:id/summary")
    screen.tap(text="Notifications on lock screen")
    screen.tap(text="Don\u2019t show any notifications")
    assert settings.get("secure", "lock_screen_show_notifications") == "0"


def test_app_info_force_stop_and_clear_storage_act_as_am_and_pm(device: SimDevice) -> None:
    db = device.fs.host(BROCCOLI_DB, "/")
    sql(db, "INSERT INTO recipes (title, servings, favorite) VALUES ('Soup', '2', 0)")
    screen = Screen(device)
    screen.am.launch("com.flauschcode.broccoli")
    screen.am.start(PKG, ".Settings")
    screen.tap(text="Apps")
    see_all = next(t for t in texts(screen) if t.startswith("See all "))
    screen.tap(text=see_all)
    screen.tap(text="Broccoli")
    screen.tap(text="Force stop")
    assert screen.has(text="If you force stop an app, it may misbehave.")
    screen.tap(text="OK")
    assert "com.flauschcode.broccoli" not in [t.package for t in screen.am.tasks()]
    screen.tap(text="Storage & cache")
    screen.tap(text="Clear storage")
    assert screen.has(text="Delete app data?")
    screen.tap(text="Delete")
    # the data folder was wiped and the app re-created its empty schema, as after `pm clear`
    assert sql(db, "SELECT COUNT(*) FROM recipes") == [(0,)]
    assert screen.has(text="0 B")


def test_status_bar_swipe_opens_quick_settings_whose_tiles_follow_settings(device: SimDevice) -> None:
    settings = device.services.settings
    settings.put("global", "low_power", "1")
    settings.put("system", "accelerometer_rotation", "0")
    wm = device.services.window
    Screen(device).am.home()
    wm.swipe(540, 5, 540, 1500, 300)
    xml = str(wm.dump_xml(all_windows=True))
    tiles = {n.attrs["content-desc"]: n for n in nodes(xml) if n.attrs["resource-id"].endswith(":id/qs_tile")}
    assert list(tiles)[:4] == ["Internet", "Bluetooth", "Airplane mode", "Dark theme"]
    assert {"Do Not Disturb", "Auto-rotate", "Battery Saver", "Location"} <= set(tiles)
    assert tiles["Battery Saver"].attrs["selected"] == "true"
    assert tiles["Auto-rotate"].attrs["selected"] == "false"
    for label, ns, key, after in (
        ("Battery Saver", "global", "low_power", "0"),
        ("Auto-rotate", "system", "accelerometer_rotation", "1"),
        ("Do Not Disturb", "global", "zen_mode", "1"),
        ("Location", "secure", "location_mode", "0"),
    ):
        wm.tap(*tiles[label].center)
        assert settings.get(ns, key) == after, label
