"""Regenerate the screenshots in this folder: home, each app's main screen, and a few key screens.

    .venv/bin/python docs/screens/generate.py

Boots one simulated device in-process, seeds it like the golden snapshot (contacts, messages, events,
files; 4 March 2026, 09:30 UTC) and saves what `screencap -p` would return.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path

from mgfarm.sim.device import DeviceConfig, SimDevice

OUT = Path(__file__).parent
NOW_MS = 1772616600000  # 2026-03-04 09:30 UTC
CONTACTS = (
    ("Ada", "Lovelace", "+1 415 555 0101", "ada@example.com"),
    ("Alan", "Turing", "+1 415 555 0102", ""),
    ("Grace", "Hopper", "+1 212 555 0103", "grace@example.org"),
    ("Linus", "Pauling", "+44 20 7946 0104", ""),
    ("Marie", "Curie", "+33 1 55 55 01 05", ""),
)


def seed(device: SimDevice) -> None:
    device.services.clock.set_ms(NOW_MS)
    device.services.clock.freeze(True)
    apps = device.services.apps
    for first, last, phone, email in CONTACTS:
        apps["com.google.android.contacts"].db.create_contact(first, last, phone, email)
    apps["com.google.android.contacts"].db.set_starred(1, True)
    reg = device.services.providers
    sms, _ = reg.resolve("content://sms")
    sms.insert(
        "content://sms/inbox",
        {
            "address": "+14155550101",
            "body": "Are we still on for lunch tomorrow?",
            "date": 1772561520000,
            "read": 1,
        },
    )
    sms.insert(
        "content://sms/sent",
        {
            "address": "+14155550101",
            "body": "Yes, 12:30 at the usual place.",
            "date": 1772613900000,
            "read": 1,
        },
    )
    sms.insert(
        "content://sms/inbox",
        {
            "address": "+12125550103",
            "body": "Slides for Friday are in your inbox.",
            "date": 1772452800000,
            "read": 0,
        },
    )
    cal, _ = reg.resolve("content://com.android.calendar/events")
    for title, start, end in (
        ("Team sync", 1772618400000, 1772622000000),
        ("Dentist", 1772719200000, 1772724600000),
        ("Concert", 1772823600000, 1772830800000),
    ):
        cal.insert(
            "content://com.android.calendar/events",
            {"calendar_id": 1, "title": title, "dtstart": start, "dtend": end, "eventTimezone": "UTC"},
        )
    calls, _ = reg.resolve("content://call_log/calls")
    for number, name, kind, date in (
        ("+1 415 555 0101", "Ada Lovelace", 1, 1772600000000),
        ("+1 212 555 0103", "Grace Hopper", 3, 1772500000000),
        ("+44 20 7946 0104", "Linus Pauling", 2, 1772400000000),
    ):
        calls.insert(
            "content://call_log/calls",
            {"number": number, "name": name, "type": kind, "date": date, "duration": 60},
        )
    docs = device.fs.host("/sdcard/Documents")
    (docs / "shopping_list.txt").write_text("milk\neggs\nbread\n")
    (device.fs.host("/sdcard/Download") / "report.pdf").write_bytes(b"%PDF" + bytes(20480))


def pickers(device: SimDevice) -> None:
    """Android's date and time pickers: Calendar's editor (its From date and From time) and Clock's
    Add alarm dial."""
    wm, am = device.services.window, device.services.activities

    def save(name: str) -> None:
        (OUT / f"{name}.png").write_bytes(wm.screencap_png())

    am.home()
    am.launch("com.android.calendar")
    am.start(
        "com.android.calendar", "com.android.calendar.event.EditEventActivity", extras={"day": "2026-03-04"}
    )
    xml = wm.dump_xml()
    for rid, name in (("start_date", "calendar_date_picker"), ("start_time", "calendar_time_picker")):
        tap_id(device, xml, f"com.android.calendar:id/{rid}")
        save(name)
        wm.key(4)
    am.home()
    am.launch("com.google.android.deskclock")
    tap_id(device, wm.dump_xml(), "com.google.android.deskclock:id/fab")
    save("clock_time_picker")
    wm.key(4)
    am.home()


def tap_id(device: SimDevice, xml: str, rid: str) -> None:
    """Tap the centre of the element with this resource-id."""
    m = re.search(rf'resource-id="{re.escape(rid)}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    assert m, rid
    x0, y0, x1, y1 = (int(v) for v in m.groups())
    device.services.window.tap((x0 + x1) // 2, (y0 + y1) // 2)


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        device = SimDevice(DeviceConfig("docs", 5555, Path(tmp) / "d", Path(tmp) / "s"))
        await device.boot()
        seed(device)
        wm, am = device.services.window, device.services.activities

        def save(name: str) -> None:
            (OUT / f"{name}.png").write_bytes(wm.screencap_png())

        save("home")
        for package, name in (
            ("com.android.settings", "settings"),
            ("com.google.android.contacts", "contacts"),
            ("com.google.android.dialer", "phone"),
            ("com.android.messaging", "messages"),
            ("com.google.android.deskclock", "clock"),
            ("com.android.calendar", "calendar"),
            ("com.google.android.documentsui", "files"),
            ("com.arduia.expense", "expense"),
        ):
            am.home()
            am.launch(package)
            save(name)
        am.home()
        wm.swipe(540, 2000, 540, 800, 200)
        save("app_drawer")
        am.home()
        wm.swipe(540, 20, 540, 1400, 300)
        save("quick_settings")
        wm.key(4)
        am.home()
        am.launch("com.google.android.contacts")
        am.start(
            "com.google.android.contacts",
            "com.android.contacts.activities.ContactEditorActivity",
            extras={"new": 1},
        )
        wm.tap(700, 330)
        wm.text("Katherine")
        save("contacts_editor_keyboard")
        wm.key(4)
        pickers(device)


if __name__ == "__main__":
    asyncio.run(main())
