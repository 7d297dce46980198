"""AndroidWorld's Tasks (org.tasks) information-retrieval tasks, unchanged, on a simulated device: each
initialises, scores 0.0 untouched and 1.0 after a solution that only taps, scrolls and reads the screen.

Every solution opens the app, turns on "Show unstarted" and "Show completed" in its menu (AndroidWorld
hides many tasks behind a start date still ahead, and completed tasks are off by default), reads every
row of the list (title, due date, priority from the checkbox, done or not) and answers from them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "tasks"
ID = "org.tasks:id/"
TODAY = date(2023, 10, 15)  # AndroidWorld's device date
RELATIVE = {"Today": TODAY, "Tomorrow": TODAY + timedelta(days=1), "Yesterday": TODAY - timedelta(days=1)}


@dataclass(frozen=True)
class TaskRow:
    title: str
    due: date | None
    priority: str
    done: bool


def ir_task(name: str) -> type:
    from android_world.task_evals.information_retrieval import information_retrieval_registry

    cls: type = information_retrieval_registry.InformationRetrievalRegistry().registry[name]
    return cls


def bounds(el: ET.Element) -> tuple[int, ...]:
    return tuple(int(v) for v in el.attrib["bounds"].replace("][", ",").strip("[]").split(","))


def due_date(text: str) -> date | None:
    """The date of a due text: Today, Tomorrow, Yesterday or "Mon, Oct 16" (", 2024" in another year),
    each maybe followed by a time."""
    if not text:
        return None
    for word, day in RELATIVE.items():
        if text.startswith(word):
            return day
    parts = text.split(", ")
    year = int(parts[2][:4]) if len(parts) > 2 else TODAY.year
    month, day = parts[1].split()[:2]
    return datetime.strptime(f"{month} {day} {year}", "%b %d %Y").date()


def visible_rows(dev: AwDevice) -> list[TaskRow]:
    """The task rows wholly on screen (the dump gives a row cut by the list's edge its visible part)."""
    rows = [
        el for el in ET.fromstring(dev.phone.dump()).iter("node") if el.attrib["resource-id"] == ID + "row"
    ]
    full = max((bounds(el)[3] - bounds(el)[1] for el in rows), default=0)
    found = []
    for el in rows:
        if bounds(el)[3] - bounds(el)[1] < full:
            continue
        parts = {c.attrib["resource-id"].removeprefix(ID): c for c in el.iter("node")}
        box = parts["completeBox"]
        found.append(
            TaskRow(
                parts["title"].attrib["text"],
                due_date(parts["due_date"].attrib["text"]) if "due_date" in parts else None,
                box.attrib["content-desc"].removesuffix(" priority"),
                box.attrib["checked"] == "true",
            )
        )
    return found


def all_tasks(dev: AwDevice) -> list[TaskRow]:
    """Every task the app has: both menu switches on, then the list read from top to bottom.

    Rows are told apart by what they show; AndroidWorld's answers never hinge on two identical rows."""
    dev.launch(APP)
    for label in ("Show unstarted", "Show completed"):
        dev.phone.tap(desc="More options")
        dev.phone.tap(text=label)
    seen: list[TaskRow] = []
    page: list[TaskRow] = []
    while True:
        now = visible_rows(dev)
        if now == page:
            return seen
        seen += [r for r in now if r not in seen]
        page = now
        dev.phone.sh("input swipe 540 1800 540 1000 400")


def answer(dev: AwDevice, titles: list[str]) -> None:
    """What AndroidWorld's `answer` action does."""
    dev.env.interaction_cache = ", ".join(titles)


def day_of(raw: dict[str, Any], key: str = "date") -> date:
    return datetime.strptime(raw[key], "%B %d %Y").date()


# ---- solutions
def due_on_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, [r.title for r in all_tasks(dev) if r.due == day_of(raw)])


def high_priority(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, [r.title for r in all_tasks(dev) if r.priority == "High"])


def high_priority_due_on_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, [r.title for r in all_tasks(dev) if r.priority == "High" and r.due == day_of(raw)])


def due_next_week(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    monday = TODAY + timedelta(days=7 - TODAY.weekday())
    count = sum(1 for r in all_tasks(dev) if r.due and monday <= r.due < monday + timedelta(days=7))
    dev.env.interaction_cache = str(count)


def completed_for_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, [r.title for r in all_tasks(dev) if r.done and r.due == day_of(raw)])


def incomplete_by_date(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    answer(dev, [r.title for r in all_tasks(dev) if not r.done and r.due and r.due <= day_of(raw)])


IR_TASKS = [
    ("TasksDueOnDate", due_on_date),
    ("TasksHighPriorityTasks", high_priority),
    ("TasksHighPriorityTasksDueOnDate", high_priority_due_on_date),
    ("TasksDueNextWeek", due_next_week),
    ("TasksCompletedTasksForDate", completed_for_date),
    ("TasksIncompleteTasksOnDate", incomplete_by_date),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), IR_TASKS, ids=[n for n, _ in IR_TASKS])
def test_tasks_information_retrieval(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, ir_task(name), seed, solve)
