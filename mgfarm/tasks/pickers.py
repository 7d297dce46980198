"""The scripted agent's `pick_date` and `pick_time` steps: Android's DatePickerDialog and
TimePickerDialog played from what is on screen, one tap or typed field per observation, as an agent
that reads the UI tree does (month arrows until the day shows, the keyboard toggle, the fields)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date
from typing import Any

from mgfarm.tasks.agents import Action, field_of, find_element

DAY_DESC = re.compile(r"^\d{2} ([A-Z][a-z]+) (\d{4})$")  # SimpleMonthView's day cells: "05 December 2026"
MONTHS = tuple(calendar.month_name)[1:]  # English, as the sim and AndroidWorld's image speak


def _click(elements: list[Any], selector: dict[str, Any]) -> Action | None:
    index = find_element(elements, selector)
    return None if index is None else {"action_type": "click", "index": index}


def pick_date(value: str, elements: list[Any]) -> tuple[Action | None, bool]:
    """In an open DatePickerDialog: turn months until the day shows, tap it, then OK.

    Returns the next action and whether it ends the step (None: no picker on screen)."""
    want = date.fromisoformat(value.strip())
    label = f"{want.day:02d} {MONTHS[want.month - 1]} {want.year}"
    cell = next((el for el in elements if str(field_of(el, "content_desc") or "") == label), None)
    if cell is not None:
        if field_of(cell, "selected"):
            return _click(elements, {"resource_id": "android:id/button1"}), True
        return _click(elements, {"desc": label}), False
    for el in elements:
        m = DAY_DESC.match(str(field_of(el, "content_desc") or ""))
        if m and m.group(1) in MONTHS:
            shown = (int(m.group(2)), MONTHS.index(m.group(1)) + 1)
            arrow = "android:id/prev" if (want.year, want.month) < shown else "android:id/next"
            return _click(elements, {"resource_id": arrow}), False
    return None, False


def _text_of(elements: list[Any], selector: dict[str, Any]) -> str | None:
    index = find_element(elements, selector)
    return None if index is None else str(field_of(elements[index], "text") or "")


def _number(text: str | None) -> int | None:
    try:
        return int(str(text).strip())
    except ValueError:
        return None


def pick_time(value: str, elements: list[Any]) -> tuple[Action | None, bool]:
    """In an open TimePickerDialog: switch to the keyboard, type the hour and minute (12-hour with
    AM/PM when the dialog has the AM/PM spinner, else 24-hour), then OK. `value` is HH:MM, 24-hour."""
    hour, minute = (int(x) for x in value.strip().split(":"))
    if find_element(elements, {"resource_id": "android:id/input_hour"}) is None:
        return _click(elements, {"resource_id": "android:id/toggle_mode"}), False
    half = "AM" if hour < 12 else "PM"
    dropdown = find_element(elements, {"class_name": "CheckedTextView", "text": half})
    if dropdown is not None:
        return {"action_type": "click", "index": dropdown}, False
    spinner = find_element(elements, {"resource_id": "android:id/am_pm_spinner"})
    shown_hour = hour if spinner is None else hour % 12 or 12
    for rid, want in (("android:id/input_hour", shown_hour), ("android:id/input_minute", minute)):
        if _number(_text_of(elements, {"resource_id": rid})) != want:
            index = find_element(elements, {"resource_id": rid})
            return {"action_type": "input_text", "text": str(want), "index": index, "clear_text": True}, False
    if spinner is not None:
        x0, y0, x1, y1 = field_of(elements[spinner], "bounds") or (0, 0, 0, 0)
        inside = [
            el
            for el in elements
            if str(field_of(el, "class_name") or "").endswith(".TextView")
            and str(field_of(el, "text") or "") in ("AM", "PM")
            and x0 <= (field_of(el, "bounds") or (0, 0, 0, 0))[0] < x1
            and y0 <= (field_of(el, "bounds") or (0, 0, 0, 0))[1] < y1
        ]
        if inside and field_of(inside[0], "text") != half:
            return {"action_type": "click", "index": spinner}, False
    return _click(elements, {"resource_id": "android:id/button1"}), True


PICKERS: dict[str, Callable[[str, list[Any]], tuple[Action | None, bool]]] = {
    "pick_date": pick_date,
    "pick_time": pick_time,
}
# The fewest UI actions each step takes (the day cell and OK; the keyboard toggle, two fields and OK):
# a template's level counts what an agent does, not how many lines its oracle has.
FEWEST_ACTIONS = {"pick_date": 2, "pick_time": 4}


def oracle_actions(oracle: list[Any]) -> int:
    """UI actions in a reference solution: one a step, a picker step its fewest."""
    return sum(
        max((FEWEST_ACTIONS.get(k, 1) for k in step), default=1) if isinstance(step, dict) else 1
        for step in oracle
    )
