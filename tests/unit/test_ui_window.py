"""Window manager behaviour: taps, keys, text input, scrolling, caching and deterministic pixels."""

from __future__ import annotations

import io
import struct
from pathlib import Path

from PIL import Image

from mgfarm.sim.system.windows import KEY_APP_SWITCH, KEY_BACK, KEY_DEL, KEY_ENTER, KEY_HOME
from tests.unit.sim_screen import Screen, boot_device, find

LAUNCHER = "com.android.launcher3"


def test_boot_shows_home_and_tapping_an_icon_opens_the_app(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    assert s.am.resumed() == (LAUNCHER, "com.android.launcher3.uioverrides.QuickstepLauncher")
    s.tap(text="Settings")
    assert s.am.resumed() == ("com.android.settings", "com.android.settings.Settings")
    s.tap(text="Display")
    assert s.am.resumed()[1].endswith("DisplaySettingsActivity")
    s.wm.key(KEY_BACK)
    assert s.am.resumed()[1] == "com.android.settings.Settings"
    s.wm.key(KEY_HOME)
    assert s.am.resumed()[0] == LAUNCHER
    s.tap(text="Settings")  # the task comes back as it was
    assert s.am.resumed()[1] == "com.android.settings.Settings"
    s.wm.key(KEY_BACK)
    assert s.am.resumed()[0] == LAUNCHER


def test_text_input_del_enter_and_keyboard(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.am.launch("com.google.android.contacts")
    s.tap(desc="Create contact")
    before = s.wm.screencap_png()
    s.tap(text="First name")
    assert s.wm.ime_visible
    with_keyboard = s.wm.screencap_png()
    assert with_keyboard != before
    s.wm.text("Adaa")
    s.wm.key(KEY_DEL)
    assert find(s.xml(), text="Ada").attrs["focused"] == "true"
    s.wm.key(KEY_ENTER)  # IME "next": focus moves to Last name
    s.wm.text("Lovelace")
    assert find(s.xml(), text="Lovelace").attrs["focused"] == "true"
    s.wm.key(KEY_BACK)  # first BACK only hides the keyboard
    assert not s.wm.ime_visible
    assert s.am.resumed()[1].endswith("ContactEditorActivity")


def test_keyboard_keys_type_into_the_field(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.am.launch("com.android.settings")
    s.tap(text="Search Settings")
    keyboard = s.wm.build().keyboard
    assert keyboard is not None
    keys = {v.text: v for v in keyboard.walk() if getattr(v, "text", "") in ("d", "i", "s")}
    for ch in "dis":
        x0, y0, x1, y1 = keys[ch].bounds
        s.wm.tap((x0 + x1) // 2, (y0 + y1) // 2)
    assert s.has(text="dis")
    assert s.has(text="Display") and not s.has(text="Connected devices")


def test_swipe_scrolls_a_list_and_clamps(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    contacts = device.services.apps["com.google.android.contacts"]
    for i in range(40):
        contacts.db.create_contact("Person", f"{i:02d}", "", "")
    s = Screen(device)
    s.am.launch("com.google.android.contacts")
    assert not s.has(text="Person 39")
    for _ in range(10):
        s.wm.swipe(540, 1800, 540, 600, 300)
    assert s.has(text="Person 39") and not s.has(text="Person 00")
    for _ in range(10):
        s.wm.swipe(540, 600, 540, 1800, 300)
    assert s.has(text="Person 00")


def test_unchanged_screen_is_cached_and_rendering_is_deterministic(tmp_path: Path) -> None:
    a = Screen(boot_device(tmp_path, "a"))
    b = Screen(boot_device(tmp_path, "b"))
    for s in (a, b):
        s.device.services.clock.freeze(True)
        s.device.services.clock.set_ms(1772616600000)
        s.am.launch("com.android.settings")
    png = a.wm.screencap_png()
    assert a.wm.screencap_png() is png  # not re-encoded
    assert a.wm.dump_xml() is a.wm.dump_xml()
    assert png == b.wm.screencap_png()  # same state, same bytes
    image = Image.open(io.BytesIO(png))
    assert image.size == (1080, 2400)
    raw = a.wm.screencap_raw()
    assert struct.unpack("<III", raw[:12]) == (1080, 2400, 1)
    assert len(raw) == 12 + 1080 * 2400 * 4
    assert raw[12:16] == bytes(image.convert("RGBA").getpixel((0, 0)))  # type: ignore[arg-type]


def test_changes_behind_the_ui_show_up(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.am.launch("com.android.settings")
    s.tap(text="Network & internet")
    light = s.wm.screencap_png()
    s.device.services.settings.put("secure", "ui_night_mode", "2")
    dark = s.wm.screencap_png()
    assert dark != light
    corner = Image.open(io.BytesIO(dark)).getpixel((540, 1200))
    assert isinstance(corner, tuple) and sum(corner) < 200  # dark surface


def test_app_switch_shows_recents_and_power_blanks_the_screen(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.am.launch("com.google.android.deskclock")
    s.wm.key(KEY_APP_SWITCH)
    assert s.am.resumed()[1] == "com.android.quickstep.RecentsActivity"
    s.tap(desc="Clock")
    assert s.am.resumed()[0] == "com.google.android.deskclock"
    s.wm.key(26)
    black = Image.open(io.BytesIO(s.wm.screencap_png())).getextrema()
    assert black == ((0, 0), (0, 0), (0, 0))
    s.wm.key(224)
    assert s.am.resumed()[0] == "com.google.android.deskclock"


def test_home_swipe_up_opens_the_app_drawer_and_back_closes_it(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.wm.swipe(540, 2000, 540, 800, 200)
    assert s.has(text="Search apps")
    assert s.has(text="Pro Expense")
    s.wm.key(KEY_BACK)
    assert not s.has(text="Search apps")


def test_long_press_selects_in_files_and_dialog_outside_tap_dismisses(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.am.launch("com.google.android.documentsui")
    x, y = find(s.xml(), text="Music").center
    s.wm.long_press(x, y)
    assert s.has(text="1 selected")
    s.tap(desc="Delete")
    assert s.has(text='Delete "Music"?')
    s.wm.tap(540, 300)  # on the scrim, outside the dialog card
    assert not s.has(text='Delete "Music"?')
    assert s.device.fs.host("/sdcard/Music").is_dir()


def test_a_dialog_takes_every_gesture_a_swipe_outside_its_card_cancels_it(tmp_path: Path) -> None:
    """A dialog's window takes every touch: a swipe started outside its card scrolled the list
    beneath (or panned OsmAnd's map, whose favorite dialog then crashed); now it cancels the
    dialog, as a touch outside does, and one on the card does nothing."""
    s = Screen(boot_device(tmp_path))
    for i in range(30):  # a list that scrolls beneath the dialog
        s.device.fs.mkdir(f"/sdcard/Documents/folder {i:02}", parents=True)
    s.am.launch("com.google.android.documentsui")
    s.tap(text="Documents")
    listed = s.xml()
    s.wm.long_press(*find(listed, text="folder 00").center)
    s.tap(desc="Delete")
    card = find(s.xml(), text='Delete "folder 00"?').center
    s.wm.swipe(card[0], card[1], card[0], card[1] - 300, 300)  # on the card
    assert s.has(text='Delete "folder 00"?')
    s.wm.swipe(540, 2000, 540, 700, 300)  # from the scrim
    assert not s.has(text='Delete "folder 00"?')
    s.wm.key(KEY_BACK)  # the selection
    assert s.has(text="folder 00")  # the list beneath did not scroll


def test_screen_size_and_density_are_configurable(tmp_path: Path) -> None:
    import asyncio

    from mgfarm.sim.device import DeviceConfig, SimDevice

    device = SimDevice(DeviceConfig("small", 5555, tmp_path / "small", tmp_path / "snap", 720, 1600, 320))
    asyncio.run(device.boot())
    wm = device.services.window
    assert wm.size == (720, 1600) and wm.density == 320
    assert Image.open(io.BytesIO(wm.screencap_png())).size == (720, 1600)
    nav = find(wm.dump_xml(all_windows=True), rid="com.android.systemui:id/home")
    assert nav.center[1] == 1600 - (48 * 2) // 2  # 48 dp nav bar at 2.0 px/dp


def test_status_bar_clock_follows_time_and_24_hour_setting(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    clock = s.device.services.clock
    clock.freeze(True)
    clock.set_ms(1772641800000)  # 16:30 UTC
    assert find(s.wm.dump_xml(True), rid="com.android.systemui:id/clock").attrs["text"] == "4:30"
    s.device.services.settings.put("system", "time_12_24", "24")
    assert find(s.wm.dump_xml(True), rid="com.android.systemui:id/clock").attrs["text"] == "16:30"


def test_pull_down_shade_quick_settings_tiles(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    settings = s.device.services.settings
    settings.put("global", "wifi_on", "1")
    s.am.launch("com.google.android.deskclock")
    s.wm.swipe(540, 20, 540, 1400, 300)
    xml = s.xml()
    assert 'package="com.android.systemui"' in xml and "com.google.android.deskclock" not in xml
    s.tap(desc="Internet")
    assert settings.get("global", "wifi_on") == "0"
    s.tap(desc="Airplane mode")
    assert (settings.get("global", "airplane_mode_on"), settings.get("global", "bluetooth_on")) == ("1", "0")
    s.tap(desc="Dark theme")
    assert settings.get("secure", "ui_night_mode") == "2"
    s.wm.key(KEY_BACK)  # closes the shade, the app stays
    assert "com.google.android.deskclock" in s.xml()
    assert s.am.resumed()[0] == "com.google.android.deskclock"
    s.wm.swipe(540, 20, 540, 1400, 300)
    s.tap(desc="Open settings")
    assert s.am.resumed()[0] == "com.android.settings"


def test_a_toast_stands_above_the_navigation_bar_over_any_app(tmp_path: Path) -> None:
    """A toast is a system window over the app: on the home screen, drawn behind the bars, it sat
    on the navigation bar's buttons."""
    s = Screen(boot_device(tmp_path))
    places = []
    for package in (LAUNCHER, "org.tasks"):
        s.am.launch(package)
        s.wm.toast = "Storage space running out"  # what ScreenContext.toast sets
        places.append(find(s.xml(), rid=f"{package}:id/snackbar_text").attrs["bounds"])
    assert places[0] == places[1]
    bottom = int(places[0].rsplit(",", 1)[1].rstrip("]"))
    assert bottom <= s.wm.metrics.height - s.wm.metrics.nav_bar
