"""AndroidWorld's Simple Calendar Pro tasks, unchanged, on a simulated device: each initialises, scores
0.0 untouched and 1.0 after a solution that only taps, types and reads the screen."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "simple calendar pro"
ID = "com.simplemobiletools.calendar.pro:id/"
NOW = datetime(2023, 10, 15, 15, 34, tzinfo=timezone.utc)  # AndroidWorld's device time


def calendar_task(name: str) -> type:
    from android_world.task_evals.single.calendar import calendar

    cls: type = getattr(calendar, name)
    return cls


def ir_task(name: str) -> type:
    from android_world.task_evals.information_retrieval import information_retrieval_registry

    cls: type = information_retrieval_registry.InformationRetrievalRegistry().registry[name]
    return cls


# ---- reading the screen
def rows(dev: AwDevice) -> list[dict[str, Any]]:
    """The event rows on screen: their title, time text and centre."""
    found = []
    for el in ET.fromstring(dev.phone.dump()).iter("node"):
        if el.attrib["resource-id"] != ID + "event_item_holder":
            continue
        texts = {c.attrib["resource-id"].removeprefix(ID): c.attrib["text"] for c in el.iter("node")}
        x0, y0, x1, y1 = (int(v) for v in el.attrib["bounds"].replace("][", ",").strip("[]").split(","))
        found.append({**texts, "center": ((x0 + x1) // 2, (y0 + y1) // 2)})
    return found


def open_day(dev: AwDevice, d: date) -> None:
    """Launch the app (it opens on this month) and tap the day's cell."""
    dev.launch(APP)
    dev.phone.tap(desc=f"{d.day} {d.strftime('%B %Y')}")
    assert dev.phone.has(f"{d.strftime('%B')} {d.day} ({d.strftime('%A')})")


def pick_date(dev: AwDevice, field: str, d: date) -> None:
    """The date picker opens on the field's month; AndroidWorld's dates are in the device's month."""
    dev.phone.tap(rid=ID + field)
    dev.phone.tap(desc=f"{d.day:02d} {d.strftime('%B %Y')}")
    dev.phone.tap(text="OK")


def pick_time(dev: AwDevice, field: str, t: datetime) -> None:
    dev.phone.tap(rid=ID + field)
    dev.phone.tap(rid="android:id/toggle_mode")  # to the keyboard: the hour field takes focus
    dev.phone.type(str(t.hour))
    dev.phone.tap(rid="android:id/input_minute")
    dev.phone.type(f"{t.minute:02d}")
    dev.phone.tap(text="OK")


def answer(dev: AwDevice, text: str) -> None:
    """What AndroidWorld's `answer` action does."""
    dev.env.interaction_cache = text


# ---- solutions
def add_event(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    start = datetime(raw["year"], raw["month"], raw["day"], raw["hour"], tzinfo=timezone.utc)
    end = start + timedelta(minutes=raw["duration_mins"])
    dev.launch(APP)
    dev.phone.tap(desc="New Event")
    dev.type_into(raw["event_title"], rid=ID + "event_title")
    dev.type_into(raw["event_description"], rid=ID + "event_description")
    pick_date(dev, "event_start_date", start.date())
    pick_time(dev, "event_start_time", start)
    pick_date(dev, "event_end_date", end.date())
    pick_time(dev, "event_end_time", end)
    if "repeat_rule" in raw:
        dev.phone.tap(rid=ID + "event_repetition")
        dev.phone.tap(text=raw["repeat_rule"].capitalize())
    dev.phone.tap(desc="Save")


def delete_one(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    open_day(dev, date(raw["year"], raw["month"], raw["day"]))
    target = next(r for r in rows(dev) if r["event_item_title"] == raw["event_title"])
    assert target["event_item_time"].startswith(f"{raw['hour']:02d}:")
    dev.phone.sh("input tap {} {}".format(*target["center"]))
    dev.phone.tap(desc="Delete")
    dev.phone.tap(text="Yes")


def delete_day(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Select every event of the day by long press, then delete them together."""
    open_day(dev, date(raw["year"], raw["month"], raw["day"]))
    found = rows(dev)
    assert found
    x, y = found[0]["center"]
    dev.phone.sh(f"input swipe {x} {y} {x} {y} 800")
    for row in found[1:]:
        dev.phone.sh("input tap {} {}".format(*row["center"]))
    assert dev.phone.has(f"{len(found)} selected")
    dev.phone.tap(desc="Delete")
    dev.phone.tap(text="Yes")
    assert rows(dev) == []


def events_on_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    open_day(dev, datetime.strptime(raw["date"], "%B %d %Y").date())
    answer(dev, ", ".join(r["event_item_title"] for r in rows(dev)))


def event_at_time(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    at = hhmm(raw["time"])
    open_day(dev, datetime.strptime(raw["date"], "%B %d %Y").date())
    answer(dev, ", ".join(r["event_item_title"] for r in rows(dev) if r["event_item_time"].startswith(at)))


def next_event(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Today's rows first, then the following days', until one starts after the device's time."""
    now = NOW.strftime("%H:%M")
    day = NOW.date()
    open_day(dev, day)
    while True:
        later = [r for r in rows(dev) if day > NOW.date() or r["event_item_time"][:5] > now]
        if later:
            first = min(r["event_item_time"][:5] for r in later)
            answer(dev, ", ".join(r["event_item_title"] for r in later if r["event_item_time"][:5] == first))
            return
        dev.phone.tap(desc="Next")
        day += timedelta(days=1)


def location_of_event(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    dev.phone.tap(desc="Search")
    dev.phone.type(raw["title"])
    match = next(r for r in rows(dev) if r["event_item_title"] == raw["title"])
    dev.phone.sh("input tap {} {}".format(*match["center"]))
    answer(dev, dev.phone.node(rid=ID + "event_location")["text"])


def starts(row: dict[str, Any]) -> str:
    return str(row["event_item_time"])[:5]


def hhmm(text: str) -> str:
    from android_world.task_evals.information_retrieval import datetime_utils

    return str(datetime_utils.parse_time(text).strftime("%H:%M"))


def first_after_time(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    at = hhmm(raw["time"])
    open_day(dev, datetime.strptime(raw["date"], "%B %d %Y").date())
    later = [r for r in rows(dev) if starts(r) >= at]
    first = min(starts(r) for r in later)
    answer(dev, ", ".join(r["event_item_title"] for r in later if starts(r) == first))


def events_in_range(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    low, high = hhmm(raw["start_time"]), "20:00"
    open_day(dev, datetime.strptime(raw["date"], "%B %d %Y").date())
    answer(dev, ", ".join(r["event_item_title"] for r in rows(dev) if low <= starts(r) <= high))


def events_next_week(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Monday to Sunday after today, one day view after the other."""
    monday = NOW.date() + timedelta(days=7 - NOW.weekday())
    open_day(dev, monday)
    found: list[str] = []
    for i in range(7):
        if i:
            dev.phone.tap(desc="Next")
        found += [r["event_item_title"] for r in rows(dev)]
    answer(dev, ", ".join(found))


def next_meeting_with(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Search the person; the search rows carry each event's date and time."""
    dev.launch(APP)
    dev.phone.tap(desc="Search")
    dev.phone.type(raw["person"])
    moments = [datetime.strptime(r["event_item_time"].split(" - ")[0], "%b %d %Y, %H:%M") for r in rows(dev)]
    upcoming = [m for m in moments if m >= NOW.replace(tzinfo=None)] or moments
    first = min(upcoming)
    answer(dev, f"{first.strftime('%B')} {first.day} {first.year} {first.strftime('%H:%M')}")


TASKS = [
    ("SimpleCalendarAddOneEvent", add_event),
    ("SimpleCalendarAddOneEventRelativeDay", add_event),
    ("SimpleCalendarAddOneEventTomorrow", add_event),
    ("SimpleCalendarAddOneEventInTwoWeeks", add_event),
    ("SimpleCalendarAddRepeatingEvent", add_event),
    ("SimpleCalendarDeleteEvents", delete_day),
    ("SimpleCalendarDeleteEventsOnRelativeDay", delete_day),
    ("SimpleCalendarDeleteOneEvent", delete_one),
]
IR_TASKS = [
    ("SimpleCalendarEventsOnDate", events_on_date),
    ("SimpleCalendarAnyEventsOnDate", events_on_date),
    ("SimpleCalendarEventOnDateAtTime", event_at_time),
    ("SimpleCalendarNextEvent", next_event),
    ("SimpleCalendarLocationOfEvent", location_of_event),
    ("SimpleCalendarFirstEventAfterStartTime", first_after_time),
    ("SimpleCalendarEventsInTimeRange", events_in_range),
    ("SimpleCalendarEventsInNextWeek", events_next_week),
    ("SimpleCalendarNextMeetingWithPerson", next_meeting_with),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_calendar_task(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, calendar_task(name), seed, solve)


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize(("name", "solve"), IR_TASKS, ids=[n for n, _ in IR_TASKS])
def test_calendar_information_retrieval(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, ir_task(name), seed, solve)
