"""AndroidWorld's OpenTracks (SportsTracker*) tasks, unchanged, on a simulated device: each initialises,
scores 0.0 untouched and 1.0 after a solution that only reads the track list and answers.

The solutions read what the list shows: the date relative to the device's today (Today, Yesterday, a
weekday within the week, else "8 Oct"), "total time (distance)" in km or m (the app's default
units), and "[category]".
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "open tracks"
ID = "de.dennisguse.opentracks:id/"
TODAY = date(2023, 10, 15)  # AndroidWorld's device date (a Sunday)
MONDAY = TODAY - timedelta(days=TODAY.weekday())
PARTS = ("name", "date", "time", "time_distance", "category_description")
UNIT_M = {"km": 1000.0, "m": 1.0}


def ir_task(name: str) -> type:
    from android_world.task_evals.information_retrieval import information_retrieval_registry

    cls: type = information_retrieval_registry.InformationRetrievalRegistry().registry[name]
    return cls


# ---- reading the screen
def day_of(label: str) -> date:
    """The date a list row's relative date label stands for."""
    if label == "Today":
        return TODAY
    if label == "Yesterday":
        return TODAY - timedelta(days=1)
    weekdays = [(TODAY - timedelta(days=i)) for i in range(2, 7)]
    for d in weekdays:
        if d.strftime("%A") == label:
            return d
    return datetime.strptime(f"{label} {TODAY.year}", "%d %b %Y").date()


def minutes(elapsed: str) -> int:
    parts = [int(p) for p in elapsed.split(":")]
    h, m, s = ([0] if len(parts) == 2 else []) + parts
    return h * 60 + m + round(s / 60)


def meters(distance: str) -> float:
    value, unit = distance.split()
    return float(value.replace(",", "")) * UNIT_M[unit]


def screen_rows(dev: AwDevice) -> list[dict[str, Any]]:
    """The track rows on screen, in order: each is a clickable item holding its parts (a row cut at
    an edge holds only the parts still shown)."""
    rows: list[dict[str, Any]] = []
    for el in ET.fromstring(dev.phone.dump()).iter("node"):
        parts = {
            rid.removeprefix(ID + "track_list_item_"): part.attrib["text"]
            for part in el.iter("node")
            if (rid := part.attrib["resource-id"]).startswith(ID + "track_list_item_")
        }
        if el.attrib["clickable"] == "true" and parts:
            rows.append(parts)
    return rows


def tracks(dev: AwDevice) -> list[dict[str, Any]]:
    """Every track of the list (scrolling to its end), parsed into date, minutes, meters and category."""
    dev.launch(APP)
    seen: dict[tuple[str, ...], dict[str, Any]] = {}
    while True:
        fresh = 0
        for r in screen_rows(dev):
            if not all(part in r for part in PARTS):
                continue  # cut off at an edge: read it whole on another scroll
            key = (r["name"], r["date"], r["time"], r["time_distance"])
            if key not in seen:
                fresh += 1
                seen[key] = r
        if not fresh:
            break
        dev.scroll_down()
    found = []
    for r in seen.values():
        m = re.fullmatch(r"(\S+) \((.+)\)", r["time_distance"])
        assert m, r
        cat = re.match(r"\[(.*?)\]", r.get("category_description", ""))
        found.append(
            {
                "day": day_of(r["date"]),
                "minutes": minutes(m.group(1)),
                "meters": meters(m.group(2)),
                "category": cat.group(1) if cat else "",
            }
        )
    return found


def answer(dev: AwDevice, text: str) -> None:
    """What AndroidWorld's `answer` action does."""
    dev.env.interaction_cache = text


def on(text: str) -> date:
    return datetime.strptime(text, "%B %d %Y").date()


def this_week(dev: AwDevice, category: str) -> list[dict[str, Any]]:
    return [t for t in tracks(dev) if t["category"] == category and MONDAY <= t["day"] <= TODAY]


# ---- solutions
def count_for_week(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, str(len(this_week(dev, raw["category"]))))


def activities_on_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    day = on(raw["date"])
    answer(dev, ", ".join(t["category"] for t in tracks(dev) if t["day"] == day))


def duration_on_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    day = on(raw["date"])
    found = [t for t in tracks(dev) if t["day"] == day and t["category"] == raw["category"]]
    assert len(found) == 1, found
    answer(dev, str(found[0]["minutes"]))


def longest_distance(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, str(round(max(t["meters"] for t in this_week(dev, raw["category"])))))


def total_duration_this_week(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, str(sum(t["minutes"] for t in this_week(dev, raw["category"]))))


def total_distance_over_interval(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    low, high = on(raw["start_date"]), on(raw["end_date"])
    found = [t for t in tracks(dev) if t["category"] == raw["category"] and low <= t["day"] <= high]
    answer(dev, str(round(sum(t["meters"] for t in found))))


IR_TASKS = [
    ("SportsTrackerActivitiesCountForWeek", count_for_week),
    ("SportsTrackerActivitiesOnDate", activities_on_date),
    ("SportsTrackerActivityDuration", duration_on_date),
    ("SportsTrackerLongestDistanceActivity", longest_distance),
    ("SportsTrackerTotalDurationForCategoryThisWeek", total_duration_this_week),
    ("SportsTrackerTotalDistanceForCategoryOverInterval", total_distance_over_interval),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), IR_TASKS, ids=[n for n, _ in IR_TASKS])
def test_opentracks_information_retrieval(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, ir_task(name), seed, solve)
