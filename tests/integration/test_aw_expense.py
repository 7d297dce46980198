"""AndroidWorld's Pro Expense tasks, unchanged, on a simulated device: each initialises (its first run
taps the app's Next and Continue setup), scores 0.0 untouched and 1.0 after a solution that only taps,
long-presses, types, scrolls and reads the screen.

ExpenseAddMultipleFromGallery is in test_aw_gallery.py (it views expenses.jpg in Simple Gallery Pro first).
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "pro expense"
ID = "com.arduia.expense:id/"
SWIPE = "input swipe 540 1800 540 1000 800"  # slow, so the list moves by the finger's travel, no fling


def expense_task(name: str) -> type:
    from android_world.task_evals.single import expense

    cls: type = getattr(expense, name)
    return cls


@dataclass(frozen=True)
class Item:
    """One expense row of a list on screen."""

    name: str
    day: str
    amount: str
    x: int
    y: int
    top: int


def box(el: ET.Element) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = (int(v) for v in el.attrib["bounds"].replace("][", ",").strip("[]").split(","))
    return x0, y0, x1, y1


def items(dev: AwDevice) -> list[Item]:
    """The expense rows wholly on screen, top to bottom (a row cut by the list's edge reports only its
    visible part as bounds, so it is shorter than the others and is left out)."""
    root = ET.fromstring(dev.phone.dump())
    rows = [el for el in root.iter("node") if el.attrib["resource-id"] == ID + "cd_expense"]
    full = max((box(el)[3] - box(el)[1] for el in rows), default=0)
    found = []
    for el in rows:
        x0, y0, x1, y1 = box(el)
        if y1 - y0 < full:
            continue
        texts = {c.attrib["resource-id"].removeprefix(ID): c.attrib["text"] for c in el.iter("node")}
        found.append(
            Item(texts["tv_name"], texts["tv_date"], texts["tv_amount"], (x0 + x1) // 2, (y0 + y1) // 2, y0)
        )
    return found


def open_logs(dev: AwDevice) -> None:
    """Expense Logs, from the drawer, scrolled to the top."""
    dev.launch(APP)
    dev.phone.tap(desc="Open navigation drawer")
    dev.phone.tap(text="Expense Logs")
    for _ in range(3):
        dev.phone.sh("input swipe 540 800 540 2000 200")


def pages(dev: AwDevice) -> Any:
    """Yield the rows on screen, then scroll a little less than a screen, until the list stops moving."""
    seen = None
    while True:
        now = items(dev)
        if now == seen:
            return
        yield now
        seen = now
        dev.phone.sh(SWIPE)


def tap(dev: AwDevice, item: Item, long: bool = False) -> None:
    dev.phone.sh(
        f"input swipe {item.x} {item.y} {item.x} {item.y} 800" if long else f"input tap {item.x} {item.y}"
    )


def details(dev: AwDevice) -> dict[str, str]:
    """What the Expense Detail sheet shows."""
    root = ET.fromstring(dev.phone.dump())
    return {
        el.attrib["resource-id"].removeprefix(ID): el.attrib["text"]
        for el in root.iter("node")
        if el.attrib["resource-id"].endswith("_value")
    }


# ---- solutions
def add_expense(dev: AwDevice, name: str, dollars: str, category: str, note: str) -> None:
    """Type one expense into the entry screen (type_into closes the keyboard, which covers Save)."""
    dev.launch(APP)
    dev.phone.tap(desc="Add expense")
    dev.type_into(name, rid=ID + "edt_name")
    dev.type_into(dollars, rid=ID + "edt_amount")
    dev.phone.tap(text=category)
    if note:
        dev.type_into(note, rid=ID + "edt_note")
    dev.phone.tap(text="Save")


def add_expenses(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """The expenses the goal lists (amount_dollars is `$12.5`: typed without the sign)."""
    for e in raw["row_objects"]:
        add_expense(dev, e.name, e.amount_dollars.removeprefix("$"), e.category_name, e.note)


def add_from_markor(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Read my_expenses.txt in Markor (`name|amount_dollars|category_name|note` rows) and log the rows
    whose note ends in "Reimbursable." (that mark says which to log; it is not part of the note)."""
    dev.launch("markor")
    dev.phone.tap(text="my_expenses.txt")
    text = dev.phone.node(rid="net.gsantner.markor:id/document__fragment__edit__highlighting_editor")["text"]
    dev.phone.key("KEYCODE_BACK")
    lines = [line for line in text.strip("\n").split("\n") if line.strip()]
    header = lines[0].split("|")
    for line in lines[1:]:
        row = dict(zip(header, line.split("|"), strict=True))
        note = row["note"]
        if note.endswith(". Reimbursable."):
            add_expense(
                dev,
                row["name"],
                row["amount_dollars"].removeprefix("$"),
                row["category_name"],
                note.removesuffix(". Reimbursable."),
            )


def delete_by_name(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """On Expense Logs, long-press the first target, tap the others (selection), then Delete, Confirm."""
    wanted = {e.name for e in raw["row_objects"]}
    open_logs(dev)
    chosen: set[str] = set()
    for page in pages(dev):
        for item in page:
            if item.name in wanted and item.name not in chosen:
                tap(dev, item, long=not chosen)
                chosen.add(item.name)
        if chosen == wanted:
            break
    assert chosen == wanted, f"not on the list: {wanted - chosen}"
    dev.phone.tap(desc="Delete")
    assert dev.phone.has(f"{len(wanted)} item" + ("s" if len(wanted) > 1 else ""))
    dev.phone.tap(text="Confirm")


def delete_duplicate(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Exact duplicates were made at the same moment, so the list (newest first) shows them one after
    the other with the same name, day and amount; their details must agree too. One of them goes."""
    open_logs(dev)
    for page in pages(dev):
        for first, second in itertools.pairwise(page):
            if (first.name, first.day, first.amount) != (second.name, second.day, second.amount):
                continue
            tap(dev, first)
            one = details(dev)
            dev.phone.tap(desc="Close")
            tap(dev, second)
            if details(dev) == one:
                dev.phone.tap(desc="Delete")
                dev.phone.tap(text="Confirm")
                return
            dev.phone.tap(desc="Close")
    raise AssertionError("no two expenses alike on the list")


TASKS = [
    ("ExpenseAddSingle", add_expenses),
    ("ExpenseAddMultiple", add_expenses),
    ("ExpenseAddMultipleFromMarkor", add_from_markor),
    ("ExpenseDeleteSingle", delete_by_name),
    ("ExpenseDeleteMultiple", delete_by_name),
    ("ExpenseDeleteMultiple2", delete_by_name),
    ("ExpenseDeleteDuplicates", delete_duplicate),
    ("ExpenseDeleteDuplicates2", delete_duplicate),
]
CASES = [(name, solve, seed) for name, solve in TASKS for seed in (1, 2)]


def test_first_run_setup(aw_device: AwDevice) -> None:
    """After `pm clear` the app has no table: AndroidWorld's ExpenseApp.setup launches it and taps Next
    and Continue, and the database exists once Home has opened it."""
    aw_device.phone.sh("pm clear com.arduia.expense")
    run_task(aw_device, expense_task("ExpenseAddSingle"), 3, add_expenses)


def test_list_after_init(aw_device: AwDevice) -> None:
    """The rows AndroidWorld writes show on Expense Logs as the app shows them (screenshot kept)."""
    cls: Any = expense_task("ExpenseDeleteMultiple2")
    task = cls(cls.generate_random_params())
    task.initialize_task(aw_device.env)
    try:
        open_logs(aw_device)
        shown = items(aw_device)
        aw_device.phone.save_screen("aw_expense_logs")
        rows = sorted(task.list_rows(aw_device.env), key=lambda r: (-r.created_date, -r.expense_id))
        assert [(i.name, i.amount) for i in shown] == [
            (r.name, f"{r.amount / 100:,.2f}") for r in rows[: len(shown)]
        ]
    finally:
        task.tear_down(aw_device.env)


@pytest.mark.parametrize(("name", "solve", "seed"), CASES, ids=[f"{n}-{s}" for n, _, s in CASES])
def test_expense_task(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, expense_task(name), seed, solve)
