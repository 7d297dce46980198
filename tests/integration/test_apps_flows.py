"""Every app end to end: targets from `uiautomator dump`, actions by `adb shell input`, state checked
with `settings get`, `content query` and `sqlite3` through the real adb server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import AdbServer, SimProcess
from tests.integration.phone_driver import Phone


@pytest.fixture(scope="module")
def phone(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phone]:
    """One simulated device shared by the flows below (each flow starts from the home screen)."""
    workdir: Path = tmp_path_factory.mktemp("apps")
    proc = SimProcess(adb_server, workdir, 1)
    try:
        handle = proc.wait_ready()[0]
        yield Phone(adb_server.client().device(handle.serial))
    finally:
        proc.stop()


def test_settings_wifi_dark_theme_brightness(phone: Phone) -> None:
    phone.sh("settings put global wifi_on 1")
    phone.open_from_launcher("Settings")
    phone.save_screen("settings_main")
    phone.tap(text="Network & internet")
    phone.tap(text="Internet")
    phone.tap(rid="android:id/switch_widget")
    assert phone.sh("settings get global wifi_on").strip() == "0"
    assert phone.has("To see available networks, turn Wi-Fi on.")
    phone.key("KEYCODE_BACK")
    phone.key("KEYCODE_BACK")
    phone.tap(text="Display")
    phone.tap(text="Dark theme")
    assert phone.sh("settings get secure ui_night_mode").strip() == "2"
    node = phone.node(rid="com.android.settings:id/slider")
    _x0, y0, x1, y1 = (int(v) for v in node["bounds"].replace("][", ",").strip("[]").split(","))
    phone.sh(f"input tap {x1 - 10} {(y0 + y1) // 2}")
    assert int(phone.sh("settings get system screen_brightness")) >= 240
    phone.save_screen("settings_display_dark")
    phone.sh("settings put secure ui_night_mode 1")


def test_contacts_create_favourite_and_delete(phone: Phone) -> None:
    phone.open_from_launcher("Contacts")
    phone.tap(desc="Create contact")
    phone.tap(text="First name")
    phone.type("Ada")
    phone.tap(text="Last name")
    phone.type("Lovelace")
    phone.tap(text="Phone")
    phone.type("+1 415 555 0101")
    phone.save_screen("contacts_editor")
    phone.tap(text="Save")
    rows = phone.content("content://contacts/phones", "display_name:number")
    assert "display_name=Ada Lovelace, number=+1 415 555 0101" in rows
    phone.tap(desc="Add to favorites")
    assert "starred=1" in phone.content("content://com.android.contacts/contacts", "display_name:starred")
    phone.key("KEYCODE_BACK")
    phone.save_screen("contacts_list")
    phone.tap(text="Ada Lovelace")
    phone.tap(desc="Delete")
    phone.tap(text="Delete", rid="android:id/button1")
    assert "No result found." in phone.content("content://contacts/phones")


def test_messages_compose_and_send(phone: Phone) -> None:
    phone.open_from_launcher("Messages")
    phone.tap(desc="Start chat")
    phone.tap(text="Type names, phone numbers")
    phone.type("+12125550103")
    phone.tap(text="Next")
    phone.tap(text="Text message")
    phone.type("Running late")
    phone.tap(desc="Send SMS")
    sent = phone.content("content://sms/sent", "address:body:type")
    assert "address=+12125550103, body=Running late, type=2" in sent
    phone.save_screen("messages_conversation")


def test_phone_dial_pad_call_log(phone: Phone) -> None:
    phone.open_from_launcher("Phone")
    phone.tap(desc="key pad")
    for digit in "5550199":
        phone.tap(desc=digit)
    phone.tap(desc="dial")
    phone.tap(desc="End call")
    calls = phone.content("content://call_log/calls", "number:type")
    assert "number=5550199, type=2" in calls
    assert phone.has("5550199")


def test_clock_add_and_toggle_alarm(phone: Phone) -> None:
    phone.open_from_launcher("Clock")
    phone.tap(desc="Add alarm")  # the time picker's dial: the hour, then the minutes, then AM
    phone.tap(desc="6")
    phone.tap(desc="45")
    phone.tap(rid="android:id/am_label")
    phone.tap(text="OK")
    db = "/data/data/com.google.android.deskclock/databases/alarms.db"
    assert "6|45|1" in phone.sh(f"sqlite3 {db} 'SELECT hour, minutes, enabled FROM alarm_templates'")
    phone.tap(desc="6:45 AM")
    assert "6|45|0" in phone.sh(f"sqlite3 {db} 'SELECT hour, minutes, enabled FROM alarm_templates'")


def test_calendar_create_event(phone: Phone) -> None:
    phone.open_from_launcher("Calendar")
    phone.tap(desc="Create new event")
    phone.tap(text="Event name")
    phone.type("Dentist")
    phone.tap(text="Save")
    events = phone.content("content://com.android.calendar/events", "title:calendar_id")
    assert "title=Dentist, calendar_id=1" in events
    phone.tap(text="Day")
    assert phone.has("Dentist")
    phone.save_screen("calendar_day")


def test_files_create_rename_delete_folder(phone: Phone) -> None:
    phone.open_from_launcher("Files")
    phone.tap(desc="New folder")
    phone.tap(text="Folder name")
    phone.type("Receipts")
    phone.tap(text="OK")
    assert "Receipts" in phone.sh("ls /sdcard").split()
    node = phone.node(text="Receipts")
    x0, y0, x1, y1 = (int(v) for v in node["bounds"].replace("][", ",").strip("[]").split(","))
    phone.sh(f"input swipe {(x0 + x1) // 2} {(y0 + y1) // 2} {(x0 + x1) // 2} {(y0 + y1) // 2} 800")
    phone.tap(desc="Rename")
    for _ in range(len("Receipts")):
        phone.key("KEYCODE_DEL")
    phone.type("Taxes")
    phone.tap(text="OK")
    listing = phone.sh("ls /sdcard").split()
    assert "Taxes" in listing and "Receipts" not in listing
    phone.tap(text="Taxes")  # into the folder and back out
    assert phone.has("Internal storage › Taxes")
    phone.key("KEYCODE_BACK")
    node = phone.node(text="Taxes")
    x0, y0, x1, y1 = (int(v) for v in node["bounds"].replace("][", ",").strip("[]").split(","))
    phone.sh(f"input swipe {(x0 + x1) // 2} {(y0 + y1) // 2} {(x0 + x1) // 2} {(y0 + y1) // 2} 800")
    phone.tap(desc="Delete")
    phone.tap(text="Delete", rid="android:id/button1")
    assert "Taxes" not in phone.sh("ls /sdcard").split()


def test_expense_add(phone: Phone) -> None:
    phone.open_from_launcher("Pro Expense")
    phone.tap(desc="Add expense")
    phone.tap(text="Name")
    phone.type("Coffee")
    phone.tap(text="Amount")
    phone.type("3.75")
    phone.tap(text="Food")
    phone.key("KEYCODE_BACK")  # close the keyboard, which covers Save
    phone.tap(text="Save")
    db = "/data/data/com.arduia.expense/databases/accounting.db"
    assert "Coffee|375|3" in phone.sh(f"sqlite3 {db} 'SELECT name, amount, category FROM expense'")
    assert phone.has("3.75")


def test_dumpsys_reports_the_resumed_activity_and_home_returns(phone: Phone) -> None:
    phone.open_from_launcher("Settings")
    out = phone.sh("dumpsys activity activities")
    assert "mResumedActivity: ActivityRecord{" in out and "com.android.settings/.Settings t" in out
    phone.home()
    assert "com.android.launcher3" in phone.sh("dumpsys window windows | grep mCurrentFocus")
    phone.save_screen("home")


def test_quick_settings_shade_over_adb(phone: Phone) -> None:
    phone.sh("settings put global bluetooth_on 0")
    phone.home()
    phone.sh("input swipe 540 10 540 1400 300")
    phone.tap(desc="Bluetooth")
    assert phone.sh("settings get global bluetooth_on").strip() == "1"
    phone.save_screen("quick_settings")
    phone.key("KEYCODE_BACK")
    assert 'package="com.android.launcher3"' in phone.dump()
