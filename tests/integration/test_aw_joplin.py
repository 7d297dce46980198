"""AndroidWorld's Joplin tasks (its four Notes information-retrieval tasks), unchanged, on a simulated
device: each initialises (100 random notes in a dozen notebooks plus the task's own), scores 0.0 without an
answer and 1.0 after an answer read from the screen: search, open the note, read its Markdown, or count the
to-do checkboxes of a notebook's list."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "joplin"
CHECKBOX = "android.widget.CheckBox"
TEXT = "android.widget.TextView"


@dataclass
class Node:
    klass: str
    text: str
    desc: str
    checked: bool
    box: tuple[int, int, int, int]

    @property
    def center(self) -> tuple[int, int]:
        return (self.box[0] + self.box[2]) // 2, (self.box[1] + self.box[3]) // 2


def ir_task(name: str) -> type:
    from android_world.task_evals.information_retrieval import information_retrieval_registry

    cls: type = information_retrieval_registry.InformationRetrievalRegistry().registry[name]
    return cls


# ---- reading the screen
def screen(dev: AwDevice) -> list[Node]:
    found = []
    for el in ET.fromstring(dev.phone.dump()).iter("node"):
        a = el.attrib
        x0, y0, x1, y1 = (int(v) for v in a["bounds"].replace("][", ",").strip("[]").split(","))
        found.append(Node(a["class"], a["text"], a["content-desc"], a["checked"] == "true", (x0, y0, x1, y1)))
    return found


def tap(dev: AwDevice, node: Node) -> None:
    dev.phone.sh("input tap {} {}".format(*node.center))


def list_rows(dev: AwDevice) -> list[tuple[bool, str]]:
    """(is a to-do, title) of each note row on screen: a row's checkbox sits on the line of its title."""
    nodes = screen(dev)
    boxes = [n for n in nodes if n.klass == CHECKBOX]
    rows = []
    for n in nodes:
        if n.klass != TEXT or not n.text or n.box[1] < 200:  # the app bar's title is not a note
            continue
        todo = any(b.box[1] < n.center[1] < b.box[3] for b in boxes)
        rows.append((todo, n.text))
    return rows


def open_note(dev: AwDevice, title: str) -> list[Node]:
    """Search the title, open the result of that exact title, and return the note's screen."""
    dev.launch(APP)
    dev.phone.tap(desc="Search")
    dev.phone.type(title)
    dev.phone.key("KEYCODE_BACK")  # hides the keyboard
    hit = next(n for n in screen(dev) if n.klass == TEXT and n.text == title)
    tap(dev, hit)
    nodes = screen(dev)
    assert not any(n.klass == "android.widget.EditText" for n in nodes), "the note did not open"
    return nodes


def answer(dev: AwDevice, text: str) -> None:
    """What AndroidWorld's `answer` action does."""
    dev.env.interaction_cache = text


# ---- solutions
def is_todo(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """A to-do shows a checkbox on the line of its title."""
    nodes = open_note(dev, raw["title"])
    title = next(n for n in nodes if n.klass == TEXT and n.text == raw["title"])
    todo = any(n.klass == CHECKBOX and title.box[1] <= n.center[1] <= title.box[3] for n in nodes)
    answer(dev, str(todo))


def ingredient_quantity(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """The ingredient's bullet reads '• <amount> <unit> <ingredient>'."""
    nodes = open_note(dev, raw["title"])
    line = next(n.text for n in nodes if n.text.startswith("• ") and n.text.endswith(" " + raw["ingredient"]))
    answer(dev, line.removeprefix("• ").removesuffix(" " + raw["ingredient"]))


def attendee_count(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """The one bullet of the minutes with a number says how many attended."""
    nodes = open_note(dev, raw["title"])
    numbers = [m[0] for n in nodes if n.text.startswith("• ") for m in [re.search(r"\d+", n.text)] if m]
    assert len(numbers) == 1, numbers
    answer(dev, numbers[0])


def todo_count(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Pick the notebook in the sidebar and count the checkboxes of its list, scrolling to its end."""
    dev.launch(APP)
    dev.phone.tap(desc="Sidebar")
    for _ in range(3):  # a dozen notebooks: the last ones are further down the sidebar
        if dev.phone.has(raw["folder"]):
            break
        dev.phone.sh("input swipe 300 1800 300 900 400")
    dev.phone.tap(text=raw["folder"])
    seen: list[tuple[bool, str]] = []
    page = list_rows(dev)
    while True:
        # Pages overlap: append what follows the longest overlap of the last page's end with this start.
        k = next((k for k in range(min(len(seen), len(page)), 0, -1) if seen[-k:] == page[:k]), 0)
        seen += page[k:]
        dev.scroll_down()
        following = list_rows(dev)
        if following == page:
            break
        page = following
    answer(dev, str(sum(todo for todo, _ in seen)))


IR_TASKS = [
    ("NotesIsTodo", is_todo),
    ("NotesRecipeIngredientCount", ingredient_quantity),
    ("NotesMeetingAttendeeCount", attendee_count),
    ("NotesTodoItemCount", todo_count),
]


@pytest.mark.parametrize("seed", [1, 4])  # NotesIsTodo: seed 1 draws a to-do, seed 4 a plain note
@pytest.mark.parametrize(("name", "solve"), IR_TASKS, ids=[n for n, _ in IR_TASKS])
def test_joplin_information_retrieval(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, ir_task(name), seed, solve)
