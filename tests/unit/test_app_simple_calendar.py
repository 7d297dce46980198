"""Simple Calendar Pro keeps events as the real app does (seconds, its own columns, one row per series)
and shows, edits and deletes them, and their occurrences, through its screens."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.apps.base import sql
from mgfarm.sim.apps.simple_calendar import lane_of
from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, find, nodes

DB = "/data/data/com.simplemobiletools.calendar.pro/databases/events.db"
PKG = "com.simplemobiletools.calendar.pro"
ID = PKG + ":id/"
NOW = datetime(2023, 10, 15, 15, 34, tzinfo=timezone.utc)
ADD = (
    "INSERT INTO events (start_ts, end_ts, title, location, description, reminder_1_minutes,"
    " reminder_2_minutes, reminder_3_minutes, reminder_1_type, reminder_2_type, reminder_3_type,"
    " repeat_interval, repeat_rule,"
    " repeat_limit, repetition_exceptions, attendees, import_id, time_zone, flags, event_type, parent_id,"
    " last_updated, source, availability, color, type)"
    " VALUES (?, ?, ?, '', '', -1, -1, -1, 0, 0, 0, ?, ?, 0, '[]', '', '', 'UTC', 0, 1, 0, 0,"
    " 'imported-ics', 0, 0, 0)"
)


def ts(day: int, hour: int, minute: int = 0) -> int:
    return int(datetime(2023, 10, day, hour, minute, tzinfo=timezone.utc).timestamp())


def booted(tmp_path: Path) -> tuple[SimDevice, Screen, Path]:
    device = boot_device(tmp_path)
    clock = device.services.clock
    clock.freeze(True)
    clock.set_ms(int(NOW.timestamp() * 1000))
    return device, Screen(device), device.fs.host(DB, "/")


def titles(screen: Screen) -> list[str]:
    return [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] == ID + "event_item_title"]


def test_the_app_starts_empty_with_its_regular_event_type(tmp_path: Path) -> None:
    _, _, db = booted(tmp_path)
    assert sql(db, "SELECT count(*) FROM events") == [(0,)]
    assert sql(db, "SELECT id, title FROM event_types") == [(1, "Regular event")]


def test_new_event_is_stored_in_seconds_with_the_apps_defaults(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(desc="New Event")
    screen.type_into("Dentist", rid=ID + "event_title")
    screen.type_into("Main St 1", rid=ID + "event_location")
    screen.tap(rid=ID + "event_start_date")
    screen.tap(desc="18 October 2023")
    screen.tap(text="OK")
    screen.tap(rid=ID + "event_start_time")
    screen.tap(rid="android:id/toggle_mode")  # the keyboard: the hour field takes focus
    screen.wm.text("9")
    screen.type_into("15", rid="android:id/input_minute")
    screen.tap(text="OK")
    # moving the start keeps the hour-long default duration, as the app does
    assert find(screen.xml(), rid=ID + "event_end_time").attrs["text"] == "10:15"
    screen.tap(desc="Save")
    row = sql(
        db,
        "SELECT start_ts, end_ts, title, location, reminder_1_minutes, reminder_2_minutes, repeat_interval,"
        " repeat_rule, repeat_limit, repetition_exceptions, time_zone, event_type, source, last_updated"
        " FROM events",
    )
    assert row == [
        (
            ts(18, 9, 15),
            ts(18, 10, 15),
            "Dentist",
            "Main St 1",
            10,
            -1,
            0,
            0,
            0,
            "[]",
            "UTC",
            1,
            "simple-calendar",
            int(NOW.timestamp() * 1000),
        )
    ]


def test_weekly_series_shows_on_its_weekday_and_loses_one_occurrence(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    monday_bit = 1
    sql(db, ADD, (ts(2, 8), ts(2, 9), "Standup", 604800, monday_bit))
    sql(db, ADD, (ts(10, 8), ts(10, 9), "One-off", 0, 0))
    screen.am.launch(PKG)
    screen.tap(desc="16 October 2023")
    assert titles(screen) == ["Standup"]
    screen.tap(desc="Next")
    assert titles(screen) == []  # Tuesday
    screen.tap(desc="Previous")
    screen.tap(text="Standup")
    assert find(screen.xml(), rid=ID + "event_repetition").attrs["text"] == "Weekly"
    screen.tap(desc="Delete")
    screen.tap(text="Delete only the selected occurrence")
    screen.tap(text="Yes")
    assert json.loads(sql(db, "SELECT repetition_exceptions FROM events WHERE title = 'Standup'")[0][0]) == [
        "20231016"
    ]
    assert titles(screen) == []
    screen.tap(desc="Next")
    screen.tap(desc="Previous")  # the series goes on the other Mondays
    for _ in range(7):
        screen.tap(desc="Next")
    assert titles(screen) == ["Standup"]


def test_deleting_this_and_future_occurrences_ends_the_series(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    sql(db, ADD, (ts(1, 7), ts(1, 8), "Run", 86400, 0))
    screen.am.launch(PKG)
    screen.tap(desc="20 October 2023")
    screen.tap(text="Run")
    screen.tap(desc="Delete")
    screen.tap(text="Delete this and all future occurrences")
    screen.tap(text="Yes")
    assert sql(db, "SELECT repeat_limit FROM events") == [(ts(20, 7) - 1,)]
    assert titles(screen) == []
    screen.tap(desc="Previous")
    assert titles(screen) == ["Run"]


def test_select_several_by_long_press_and_delete_them(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    for hour, title in ((9, "A"), (11, "B"), (13, "C")):
        sql(db, ADD, (ts(17, hour), ts(17, hour + 1), title, 0, 0))
    screen.am.launch(PKG)
    screen.tap(desc="17 October 2023")
    x, y = find(screen.xml(), text="A").center
    screen.wm.long_press(x, y)
    screen.tap(text="C")
    assert screen.has(text="2 selected")
    screen.tap(desc="Delete")
    screen.tap(text="Yes")
    assert sql(db, "SELECT title FROM events") == [("B",)]


def test_search_finds_events_by_description_and_views_change(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    sql(db, ADD, (ts(20, 10), ts(20, 11), "Review", 0, 0))
    sql(db, "UPDATE events SET description = 'quarterly budget'")
    screen.am.launch(PKG)
    screen.tap(desc="Search")
    screen.wm.text("budget")
    assert titles(screen) == ["Review"]
    screen.wm.key(4)  # BACK: the keyboard
    screen.wm.key(4)  # BACK: the search
    screen.tap(desc="Change view")
    screen.tap(text="Weekly view")
    assert screen.has(text="Oct 15 - Oct 21")
    block = find(screen.xml(), rid=ID + "week_event_label")
    assert block.attrs["content-desc"] == "Review, 10:00 - 11:00"
    screen.tap(rid=ID + "week_event_label")
    assert find(screen.xml(), rid=ID + "event_title").attrs["text"] == "Review"
    screen.wm.key(4)
    screen.tap(desc="Change view")
    screen.tap(text="Simple event list")
    assert screen.has(text="Friday, October 20 2023")


def test_week_grid_places_overlapping_events_side_by_side(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    sql(db, ADD, (ts(17, 9), ts(17, 11), "Long", 0, 0))
    sql(db, ADD, (ts(17, 10), ts(17, 10, 30), "Short", 0, 0))
    sql(db, ADD, (ts(17, 12), ts(17, 13), "Later", 0, 0))
    screen.am.launch(PKG)
    screen.tap(desc="Change view")
    screen.tap(text="Weekly view")
    blocks = {
        n.attrs["content-desc"].split(",")[0]: n.attrs["bounds"]
        for n in nodes(screen.xml())
        if n.attrs["resource-id"] == ID + "week_event_label"
    }
    assert set(blocks) == {"Long", "Short", "Later"}

    def box(name: str) -> list[int]:
        return [int(v) for v in blocks[name].replace("][", ",").strip("[]").split(",")]

    long, short, later = box("Long"), box("Short"), box("Later")
    assert short[0] >= long[2]  # the overlap moves to a second lane
    assert later[0] == long[0] and later[1] > long[3]  # the free first lane takes the later event
    assert (short[1] - long[1]) * 2 == long[3] - long[1]  # 10:00 sits halfway down 9:00-11:00
    png = device.services.window.screencap_png()
    assert png.startswith(b"\x89PNG")


def test_weekly_day_follows_a_moved_start_and_monthly_repeats_on_the_same_day(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    for title, repeat, day in (("Gym", "Weekly", "18 October 2023"), ("Rent", "Monthly", "01 October 2023")):
        screen.tap(desc="New Event")
        screen.type_into(title, rid=ID + "event_title")
        screen.wm.key(4)
        screen.tap(rid=ID + "event_repetition")
        screen.tap(text=repeat)
        screen.tap(rid=ID + "event_start_date")
        screen.tap(desc=day)
        screen.tap(text="OK")
        screen.tap(desc="Save")
    wednesday = 1 << 2
    assert sql(db, "SELECT title, repeat_interval, repeat_rule FROM events ORDER BY id") == [
        ("Gym", 604800, wednesday),
        ("Rent", 2592001, 1),
    ]


def test_rows_written_behind_the_app_with_bad_values_do_not_stop_it(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    sql(db, ADD, (ts(16, 9), ts(16, 10), "Fine", 0, 0))
    sql(db, ADD, (10**15, 10**15 + 60, "Far future", 0, 0))
    sql(db, ADD, (ts(16, 11), ts(16, 12), "Odd repeat", "weekly", "x"))
    sql(db, "UPDATE events SET repetition_exceptions = '{' WHERE title = 'Fine'")
    screen.am.launch(PKG)
    screen.tap(desc="16 October 2023")
    assert titles(screen) == ["Fine", "Odd repeat"]
    assert device.services.window.toast is None


def naive_lanes(spans: list[tuple[float, float]]) -> list[int]:
    """The week grid's rule, as the app states it: the first lane whose last event ends by the top."""
    ends: list[float] = []
    out = []
    for top, bottom in spans:
        lane = next((i for i, end in enumerate(ends) if end <= top), len(ends))
        if lane == len(ends):
            ends.append(bottom)
        ends[lane] = bottom
        out.append(lane)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12)), max_size=40))
def test_week_lanes_follow_the_first_free_lane_rule(starts: list[tuple[int, int]]) -> None:
    # A heap finds the lane (a day of 20,000 overlapping events cost ~25 s a frame scanning every lane).
    spans = [(float(top), float(top + length)) for top, length in sorted(starts)]
    assert lane_of(spans) == naive_lanes(spans)
    assert lane_of([(0.0, 5.0)] * 20_000)[-1] == 19_999  # every event its own lane, without a scan each
