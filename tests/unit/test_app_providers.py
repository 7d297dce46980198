"""App data where AOSP keeps it, reached through the same providers `content` uses."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.unit.sim_screen import Screen, boot_device, find, nodes

CONTACTS = "content://com.android.contacts"


def test_contacts_provider_like_the_add_contact_setup_step(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    reg = device.services.providers
    prov, _ = reg.resolve(f"{CONTACTS}/raw_contacts")
    prov.insert(f"{CONTACTS}/raw_contacts", {"starred": 0})
    _, rows = prov.query(f"{CONTACTS}/raw_contacts", ["_id"], None, [], None)
    raw_id = max(r[0] for r in rows)
    prov.insert(
        f"{CONTACTS}/data",
        {"raw_contact_id": raw_id, "mimetype": "vnd.android.cursor.item/name", "data1": "Ada Lovelace"},
    )
    prov.insert(
        f"{CONTACTS}/data",
        {
            "raw_contact_id": raw_id,
            "mimetype": "vnd.android.cursor.item/phone_v2",
            "data1": "+1 415 555 0101",
            "data2": 2,
        },
    )
    legacy, _ = reg.resolve("content://contacts/phones")
    cols, rows = legacy.query("content://contacts/phones", ["display_name", "number"], None, [], None)
    assert cols == ["display_name", "number"] and rows == [("Ada Lovelace", "+1 415 555 0101")]
    _, rows = prov.query(f"{CONTACTS}/contacts", ["display_name", "has_phone_number"], None, [], None)
    assert rows == [("Ada Lovelace", 1)]
    db = device.fs.host("/data/data/com.android.providers.contacts/databases/contacts2.db")
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM mimetypes").fetchone()[0] >= 10
    con.close()
    s = Screen(device)
    s.am.launch("com.google.android.contacts")
    s.tap(text="Ada Lovelace")
    assert s.has(text="+1 415 555 0101")


def test_contacts_ui_create_edit_favourite_delete(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    contacts = s.device.services.apps["com.google.android.contacts"]
    s.am.launch("com.google.android.contacts")
    s.tap(desc="Create contact")
    s.type_into("Grace", text="First name")
    s.type_into("Hopper", text="Last name")
    s.type_into("+1 212 555 0103", text="Phone")
    s.tap(text="Save")
    assert s.has(text="Grace Hopper")
    s.tap(desc="Add to favorites")
    assert [c.starred for c in contacts.db.list()] == [True]
    s.tap(desc="Edit")
    s.tap(text="Hopper")
    for _ in range(6):
        s.wm.key(67)
    s.wm.text("Brewster")
    s.tap(text="Save")
    assert [c.name for c in contacts.db.list()] == ["Grace Brewster"]
    s.tap(desc="Delete")
    s.tap(text="Delete", rid="android:id/button1")
    assert contacts.db.list() == []
    assert s.am.resumed()[1].endswith("PeopleActivity")


def test_sms_and_calendar_uris_and_threads(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    reg = device.services.providers
    sms, _ = reg.resolve("content://sms/inbox")
    sms.insert("content://sms/inbox", {"address": "+14155550101", "body": "Lunch?", "date": 1, "read": 1})
    sms.insert("content://sms/sent", {"address": "+14155550101", "body": "Yes", "date": 2, "read": 1})
    assert sms.query("content://sms/inbox", ["body", "type"], None, [], None)[1] == [("Lunch?", 1)]
    assert sms.query("content://sms/sent", ["body", "type", "thread_id"], None, [], None)[1] == [
        ("Yes", 2, 1)
    ]
    _, threads = sms.query("content://sms/conversations", ["message_count", "snippet"], None, [], None)
    assert threads == [(2, "Yes")]
    s = Screen(device)
    s.am.launch("com.android.messaging")
    s.tap(text="+14155550101")
    s.type_into("See you", text="Text message")
    s.tap(desc="Send SMS")
    assert sms.query("content://sms/sent", ["body"], None, [], "_id")[1][-1] == ("See you",)
    assert s.has(text="See you")
    cal, _ = reg.resolve("content://com.android.calendar/events")
    cal.insert(
        "content://com.android.calendar/events",
        {"calendar_id": 1, "title": "Team sync", "dtstart": 1772618400000, "dtend": 1772622000000},
    )
    assert cal.query("content://com.android.calendar/events", ["title"], None, [], None)[1] == [
        ("Team sync",)
    ]


def test_clock_alarm_add_toggle_delete(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    db = s.device.fs.host("/data/data/com.google.android.deskclock/databases/alarms.db")

    def alarms() -> list[tuple[int, int, int]]:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT hour, minutes, enabled FROM alarm_templates ORDER BY _id").fetchall()
        finally:
            con.close()

    assert alarms() == [(8, 30, 0), (9, 0, 0)]
    s.am.launch("com.google.android.deskclock")
    s.tap(desc="Add alarm")
    s.tap(rid="android:id/toggle_mode")  # the time picker's keyboard entry
    s.type_into("7", rid="android:id/input_hour")
    s.type_into("15", rid="android:id/input_minute")
    s.tap(rid="android:id/am_pm_spinner")  # the picker opens at the device's time: choose AM
    am = [
        n for n in nodes(s.xml()) if n.attrs["text"] == "AM" and n.attrs["class"].endswith("CheckedTextView")
    ]
    s.wm.tap(*am[0].center)
    s.tap(rid="android:id/button1")
    assert alarms()[-1] == (7, 15, 1)
    s.tap(desc="8:30 AM")
    assert alarms()[0] == (8, 30, 1)
    x, y = find(s.xml(), desc="Delete alarm").center  # first card: 7:15 sorts first
    s.wm.tap(x, y)
    assert (7, 15, 1) not in alarms()


def test_contacts_search_filters_by_name_and_number(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    db = s.device.services.apps["com.google.android.contacts"].db
    db.create_contact("Ada", "Lovelace", "+1 415 555 0101", "")
    db.create_contact("Alan", "Turing", "+1 415 555 0102", "")
    s.am.launch("com.google.android.contacts")
    s.tap(desc="Search contacts")
    s.wm.text("tur")
    assert s.has(text="Alan Turing") and not s.has(text="Ada Lovelace")
    s.wm.key(67)
    s.wm.key(67)
    s.wm.key(67)
    s.wm.text("0101")
    assert s.has(text="Ada Lovelace") and not s.has(text="Alan Turing")
    s.wm.key(4)  # hides the keyboard
    s.wm.key(4)  # leaves search
    assert s.has(text="Alan Turing") and s.has(text="Ada Lovelace")


def test_calendar_month_day_and_edit(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.device.services.clock.set_ms(1772616600000)  # 2026-03-04 09:30 UTC
    cal, _ = s.device.services.providers.resolve("content://com.android.calendar/events")
    cal.insert(
        "content://com.android.calendar/events",
        {"calendar_id": 1, "title": "Dentist", "dtstart": 1772719200000, "dtend": 1772724600000},
    )
    s.am.launch("com.android.calendar")
    s.tap(desc="March 5, 1 event")
    assert s.has(text="Thursday, March 5")
    s.tap(text="Dentist")
    title = find(s.xml(), text="Dentist")
    x, y = title.center
    s.wm.tap(x, y)
    s.wm.text(" checkup")
    s.tap(text="Save")
    assert cal.query("content://com.android.calendar/events", ["title"], None, [], None)[1] == [
        ("Dentist checkup",)
    ]


def test_expense_edit_and_delete(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    db = s.device.fs.host("/data/data/com.arduia.expense/databases/accounting.db")
    s.am.launch("com.arduia.expense")
    assert s.has(text="$96.70")
    s.tap(text="Cinema")  # its details
    s.tap(desc="Delete")
    s.tap(text="Confirm")
    con = sqlite3.connect(db)
    try:
        assert [r[0] for r in con.execute("SELECT name FROM expense ORDER BY expense_id")] == [
            "Groceries",
            "Bus pass",
        ]
    finally:
        con.close()
    assert s.has(text="$84.20")


def test_clock_timer_and_stopwatch_follow_the_device_clock(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    clock = s.device.services.clock
    clock.freeze(True)
    clock.set_ms(1772616600000)
    s.am.launch("com.google.android.deskclock")
    s.tap(desc="Timer")
    for key in "2035":
        s.tap(text=key)
    s.tap(desc="Delete")
    s.tap(text="0")
    assert s.has(text="00h 20m 30s")  # digits shift in from the right; AndroidWorld reads this text
    s.tap(desc="Start")
    assert s.has(text="00:20:30")
    clock.set_ms(1772616600000 + 45_000)
    assert s.has(text="00:19:45")
    s.tap(desc="Stopwatch")
    assert not s.has(desc="Reset") and not s.has(desc="Lap")
    s.tap(desc="Start")
    clock.set_ms(1772616600000 + 45_000 + 3_723_000)
    assert s.has(text="01:02:03") and s.has(desc="Lap")
    s.tap(desc="Lap")
    assert s.has(text="# 1")
    s.tap(desc="Pause")
    clock.set_ms(1772616600000 + 99_000_000)
    assert s.has(text="01:02:03") and s.has(desc="Start")
    s.tap(desc="Reset")
    assert s.has(text="00:00:00") and not s.has(text="# 1")


def test_sound_slider_drag_sets_the_volume_setting(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    s.am.start("com.android.settings", ".Settings$SoundSettingsActivity")
    slider = find(s.xml(), desc="Media volume")
    x, y = slider.center
    s.wm.swipe(x, y, 10_000, y, 300)  # dragged past the end: clamps at the maximum
    assert s.device.services.settings.get("system", "volume_music") == "25"
    s.wm.swipe(x, y, 0, y, 300)
    assert s.device.services.settings.get("system", "volume_music") == "0"


def test_expense_first_run_setup_after_clear_and_multi_delete(tmp_path: Path) -> None:
    """`pm clear` brings back the language and currency setup (AndroidWorld taps Next, Continue); on
    Expense Logs a long press selects rows and one Delete removes them all."""
    s = Screen(boot_device(tmp_path))
    db = s.device.fs.host("/data/data/com.arduia.expense/databases/accounting.db")
    s.device.services.packages.clear("com.arduia.expense")
    s.am.launch("com.arduia.expense")
    s.tap(text="Next")
    s.tap(text="Continue")
    assert s.has(text="Recent") and s.has(text="No Items")
    for name, amount in (("Tea", "2.5"), ("Taxi", "14.05")):
        s.tap(desc="Add expense")
        s.type_into(name, text="Name")
        s.type_into(amount, text="Amount")
        s.tap(text="Transportation")
        s.wm.key(4)  # BACK closes the keyboard, which covers Save
        s.tap(text="Save")
    s.tap(text="More")
    x, y = find(s.xml(), text="Tea").center
    s.wm.long_press(x, y)
    s.tap(text="Taxi")
    s.tap(desc="Delete")
    assert s.has(text="2 items")
    s.tap(text="Confirm")
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT count(*) FROM expense").fetchone() == (0,)
        assert con.execute("PRAGMA user_version").fetchone() == (6,)
    finally:
        con.close()


def test_expense_entry_stores_cents_and_category_ids(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    db = s.device.fs.host("/data/data/com.arduia.expense/databases/accounting.db")
    s.am.launch("com.arduia.expense")
    s.tap(desc="Add expense")
    s.type_into("Vet", text="Name")
    s.type_into("123.45", text="Amount")
    s.tap(text="Others")
    s.type_into("Paid by card", text="Note")
    s.wm.key(4)  # BACK closes the keyboard, which covers Save
    s.tap(text="Save")
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT name, amount, category, note FROM expense WHERE name = 'Vet'").fetchone()
    finally:
        con.close()
    assert row == ("Vet", 12345, 1, "Paid by card")
