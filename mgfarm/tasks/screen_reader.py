"""The screen reader: a query answered from what the device shows, proof that the answer is on
screen and not only in the task's hidden parameters (`tasks check`'s from_screen alternative).

It plays the oracle's navigation (its answer step left out), then reads the answer off the UI tree:
- with the template's `on_screen` hint, `count: SELECTOR` counts the rows of the list it ends on
  that match (scrolled to the top, then down until a scroll shows nothing new; rows seen on two
  screens are counted once), and `number: SELECTOR` reads the number printed in the element that
  matches (the regex's group when `text_matches` / `desc_matches` has one; `times: [60, 1]` adds
  its groups as minutes and seconds);
- without a hint (times, texts, amounts, ...), the first element that reads as the right answer.

A hint's SELECTOR takes the oracle's keys (text, text_contains, resource_id, desc, class_name) and
`text_matches` / `desc_matches` (regexes), `checked` (true/false), `side` (left/right: a chat
bubble's side) and `with: SELECTOR` (another element in the same row: one whose vertical centre
lies within the row, the smallest element holding the matched one). Placeholders name the goal's
parameters; `{day:%B %-d}` formats an ISO date as the screen shows it ("May 14").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from mgfarm.tasks.agents import DONE, GIVE_UP, Action, Observation, ScriptedAgent, field_of, matches
from mgfarm.tasks.schema import TaskInstance

MAX_SCROLLS = 8  # each way: a list longer than this many screens is not read to the end
DATE_FORMAT = re.compile(r"\{([A-Za-z_]\w*):([^{}]+)\}")
Bounds = tuple[int, int, int, int]


def render_hint(hint: dict[str, Any], instance: TaskInstance) -> dict[str, Any]:
    """The hint with its parameters filled in (dates formatted as `{name:FORMAT}` asks)."""

    def dates(value: Any) -> Any:
        if isinstance(value, str):
            return DATE_FORMAT.sub(
                lambda m: date.fromisoformat(str(instance.params[m.group(1)])).strftime(m.group(2)), value
            )
        if isinstance(value, dict):
            return {k: dates(v) for k, v in value.items()}
        return value

    return dict(instance.render(dates(hint)))


def bounds(element: Any) -> Bounds:
    b = field_of(element, "bounds") or (0, 0, 0, 0)
    return int(b[0]), int(b[1]), int(b[2]), int(b[3])


def row_of(element: Any, elements: list[Any]) -> list[Any]:
    """The elements sharing `element`'s row: vertical centre within the smallest element that holds
    it (or within its own bounds when nothing does)."""
    own = bounds(element)
    left, top, right, bottom = own
    boxes = [(e, bounds(e)) for e in elements]
    holders = [
        b
        for e, b in boxes
        if e is not element and b != own and b[0] <= left and b[1] <= top and b[2] >= right and b[3] >= bottom
    ]
    if holders:
        _, top, _, bottom = min(holders, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
    return [e for e, b in boxes if top <= (b[1] + b[3]) / 2 <= bottom]


def _regex(selector: dict[str, Any]) -> tuple[str, str] | None:
    """(attribute, pattern) of the selector's regex key, if any."""
    for key, attr in (("text_matches", "text"), ("desc_matches", "content_desc")):
        if key in selector:
            return attr, str(selector[key])
    return None


def selects(element: Any, selector: dict[str, Any], elements: list[Any]) -> bool:
    """Whether `element` (one of `elements`, the screen) matches a hint's selector."""
    if not matches(element, selector):
        return False
    regex = _regex(selector)
    if regex and not re.search(regex[1], str(field_of(element, regex[0]) or "")):
        return False
    if "checked" in selector and bool(field_of(element, "checked")) != bool(selector["checked"]):
        return False
    if "side" in selector:
        width = max((bounds(e)[2] for e in elements), default=0)
        left, _, right, _ = bounds(element)
        if ((left + right) / 2 < width / 2) != (selector["side"] == "left"):
            return False
    if "with" in selector:
        row = row_of(element, elements)
        return any(e is not element and selects(e, selector["with"], elements) for e in row)
    return True


def row_key(element: Any, elements: list[Any]) -> tuple[str, ...]:
    """What a matched row says: the texts and descriptions of its row, top to bottom."""
    row = sorted(row_of(element, elements), key=lambda e: (bounds(e)[1], bounds(e)[0]))
    return tuple(key for key in screen_text(row) if key != "|")  # containers say nothing


def matching_rows(elements: list[Any], selector: dict[str, Any]) -> list[tuple[str, ...]]:
    """The rows of one screen that match, top to bottom."""
    hits = [e for e in elements if selects(e, selector, elements)]
    hits.sort(key=lambda e: (bounds(e)[1], bounds(e)[0]))
    return [row_key(e, elements) for e in hits]


def merge(seen: list[tuple[str, ...]], screen: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Rows seen so far plus a scrolled screen's: the longest run that ends `seen` and starts
    `screen` is the overlap (the same rows, moved up) and is counted once."""
    for k in range(min(len(seen), len(screen)), 0, -1):
        if seen[-k:] == screen[:k]:
            return seen + screen[k:]
    return seen + screen


def read_number(elements: list[Any], selector: dict[str, Any], times: list[int] | None = None) -> str | None:
    """The number printed in the first element the selector matches: its regex's group, or with
    `times` the sum of its groups times these (minutes and seconds: `[60, 1]`; a group that did not
    match counts 0)."""
    for element in elements:
        if not selects(element, selector, elements):
            continue
        regex = _regex(selector)
        found = re.search(regex[1], str(field_of(element, regex[0]) or "")) if regex else None
        if found and times:
            return str(sum(int(g or 0) * t for g, t in zip(found.groups(), times, strict=False)))
        if found and found.groups():
            return found.group(1)
        return str(field_of(element, "text") or field_of(element, "content_desc") or "")
    return None


def screen_text(elements: list[Any]) -> tuple[str, ...]:
    """What a screen shows, to tell whether a scroll moved anything."""
    return tuple(f"{field_of(e, 'text') or ''}|{field_of(e, 'content_desc') or ''}" for e in elements)


class ScreenReaderAgent(ScriptedAgent):
    """Plays the oracle's navigation, then answers from the screens it sees (see the module's doc).
    Gives up when nothing on screen reads as an answer."""

    def __init__(
        self,
        instance: TaskInstance,
        field: str,
        reads_as: Callable[[str], bool],
        hint: dict[str, Any] | None = None,
    ) -> None:
        steps = [s for s in instance.task.oracle if not (isinstance(s, dict) and "answer" in s)]
        super().__init__(steps, instance)
        self.field = field
        self.reads_as = reads_as
        self.hint = render_hint(hint, instance) if hint else None
        self.reset("", {})

    def reset(self, goal: str, info: dict[str, Any]) -> None:
        super().reset(goal, info)
        self.phase = "up"  # count: to the top of the list first, then down through it
        self.last: tuple[str, ...] | None = None
        self.rows: list[tuple[str, ...]] = []
        self.scrolls = 0

    def act(self, observation: Observation) -> Action:
        action = super().act(observation)
        if action != DONE:
            return action
        elements = list(observation.get("ui_elements") or [])
        if self.hint and "count" in self.hint:
            return self._count(elements, dict(self.hint["count"]))
        if self.hint and "number" in self.hint:
            found = read_number(elements, dict(self.hint["number"]), self.hint.get("times"))
            return GIVE_UP if not found else {"action_type": "answer", "text": found}
        return self._value(elements)

    def _count(self, elements: list[Any], selector: dict[str, Any]) -> Action:
        screen = screen_text(elements)
        if self.phase == "up":  # the oracle may have scrolled to find its targets
            if screen != self.last and self.scrolls < MAX_SCROLLS:
                self.last, self.scrolls = screen, self.scrolls + 1
                return {"action_type": "scroll", "direction": "up"}
            self.phase, self.last, self.scrolls = "down", None, 0
        if screen != self.last:
            self.rows = merge(self.rows, matching_rows(elements, selector))
        if screen == self.last or self.scrolls >= MAX_SCROLLS:
            return {"action_type": "answer", "text": str(len(self.rows))}
        self.last, self.scrolls = screen, self.scrolls + 1
        return {"action_type": "scroll", "direction": "down"}

    def _value(self, elements: list[Any]) -> Action:
        for el in elements:
            for text in (field_of(el, "text"), field_of(el, "content_desc")):
                # A range ("9:30 AM - 10:30 AM", en dash on screen) is read by its parts.
                for part in [str(text or ""), *re.split(r"\s+[–-]\s+", str(text or ""))]:
                    if part and self.reads_as(part):
                        return {"action_type": "answer", "text": part}
        return GIVE_UP
