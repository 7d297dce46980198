"""The Clock app's alarm list says when a one-time alarm rings next, as DeskClock does."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from mgfarm.sim.apps.base import sql
from tests.unit.sim_screen import Screen, boot_device, find

ALARMS_DB = "/data/data/com.google.android.deskclock/databases/alarms.db"
ADD = (
    "INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label)"
    " VALUES (?, ?, 0, ?, 1, ?)"
)


def test_one_time_alarms_show_today_tomorrow_or_not_scheduled(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    clock = device.services.clock
    clock.freeze(True)
    clock.set_ms(int(datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc).timestamp() * 1000))
    db = device.fs.host(ALARMS_DB, "/")
    sql(db, ADD, (11, 0, 1, "later"))
    sql(db, ADD, (7, 0, 1, "earlier"))
    sql(db, ADD, (12, 0, 0, "off"))
    screen = Screen(device)
    screen.am.launch("com.google.android.deskclock")
    xml = screen.xml()
    assert find(xml, text="later · Today")
    assert find(xml, text="earlier · Tomorrow")
    assert find(xml, text="off · Not scheduled")
    assert find(xml, text="Mon, Tue, Wed, Thu, Fri")  # the seeded weekday alarm keeps its days


def test_an_alarm_written_with_text_in_its_numbers_reads_as_deskclock_reads_it(tmp_path: Path) -> None:
    # A shell can store any value in any column; DeskClock reads them with Cursor.getInt/getString
    # (a text as its leading number, else 0), where the sim's app stopped on the first frame showing it.
    device = boot_device(tmp_path)
    db = device.fs.host(ALARMS_DB, "/")
    sql(db, "DELETE FROM alarm_templates")
    sql(db, ADD, ("x", "7 minutes", 1, ""))
    sql(db, ADD, (2**32 + 13, 5, 1, "wrapped"))
    screen = Screen(device)
    screen.am.launch("com.google.android.deskclock")
    xml = screen.xml()
    assert screen.am.resumed()[0] == "com.google.android.deskclock"
    assert find(xml, text="12:07 AM") and find(xml, text="1:05 PM")  # hour 0, 7 minutes; 2**32 + 13 as an int
