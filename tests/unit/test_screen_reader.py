"""The screen reader answers from what it sees: counts rows while scrolling (each row once), reads a
printed number, and fails on a wrong screen."""

from __future__ import annotations

from typing import Any

from mgfarm.tasks.schema import TaskTemplate
from mgfarm.tasks.screen_reader import ScreenReaderAgent, matching_rows, merge, read_number


def template(hint: dict[str, Any]) -> TaskTemplate:
    return TaskTemplate.model_validate(
        {
            "id": "phone.count_missed",
            "apps": ["phone"],
            "goal": "How many calls from {who} did I miss on {day}?",
            "difficulty": "L1",
            "params": {"who": {"value": "Ann"}, "day": {"value": "2026-05-14"}},
            "answer": {"count": "integer"},
            "judge": {"answer.equals": {"field": "count", "value": 2}},
            "on_screen": hint,
            "oracle": [{"open_app": "Phone"}, {"answer": {"count": 2}}],
        }
    )


def call(top: int, who: str, kind: str) -> list[dict[str, Any]]:
    """One call-log row: the name, what happened, a call button beside both (no container)."""
    return [
        {"text": who, "resource_id": "x:id/primary_text", "bounds": [189, top, 849, top + 60]},
        {"text": kind, "resource_id": "x:id/secondary_text", "bounds": [189, top + 60, 849, top + 115]},
        {"content_desc": f"Call {who}", "bounds": [891, top - 5, 1017, top + 120]},
    ]


LOG = [
    ("Ann", "Missed · 9:00"),
    ("Bob", "Missed · 8:00"),
    ("Ann", "Incoming · 7:00"),
    ("Ann", "Missed · 6:00"),
    ("Ann", "Missed · 5:00"),
]
HINT = {"count": {"desc": "Call {who}", "with": {"text_matches": "^Missed"}}}


def screen(first: int, rows: int = 3) -> list[dict[str, Any]]:
    """The log scrolled to show rows first..first+rows-1."""
    out: list[dict[str, Any]] = []
    for i, (who, kind) in enumerate(LOG[first : first + rows]):
        out += call(300 + 190 * i, who, kind)
    return out


def play(
    agent: ScreenReaderAgent, screens: list[list[dict[str, Any]]], position: int
) -> list[dict[str, Any]]:
    """Feed the agent screens from `position`, moving through them as it scrolls; its actions."""
    actions = []
    for _ in range(30):
        action = agent.act({"ui_elements": screens[position]})
        actions.append(action)
        if action["action_type"] == "scroll":
            step = 1 if action["direction"] == "down" else -1
            position = min(max(position + step, 0), len(screens) - 1)
        elif action["action_type"] != "open_app":
            break
    return actions


def test_rows_on_two_screens_count_once_and_only_matching_rows_count() -> None:
    instance = template(HINT).instantiate(0)
    agent = ScreenReaderAgent(instance, "count", lambda text: False, HINT)
    # Starts scrolled to the middle (the oracle scrolled); three rows a screen, one row a scroll.
    actions = play(agent, [screen(0), screen(1), screen(2)], 1)
    assert actions[-1] == {"action_type": "answer", "text": "3"}  # Ann's missed calls: rows 0, 3 and 4
    # Up to the top (a scroll that moves nothing says so), then down to the end.
    directions = [a["direction"] for a in actions if a["action_type"] == "scroll"]
    assert directions == ["up", "up", "down", "down", "down"]


def test_identical_rows_scrolled_apart_are_kept_apart() -> None:
    first = [("Ann", "Missed", "7:20"), ("Ann", "Missed", "7:20")]
    seen = merge([], first)
    assert merge(seen, [*first[1:], ("Ann", "Missed", "6:00")]) == [*first, ("Ann", "Missed", "6:00")]
    assert merge(seen, first) == first  # the list did not move
    assert len(merge(seen, [("Bob", "Missed", "5:00")])) == 3  # no overlap: a whole new page


def test_with_looks_only_at_the_same_row() -> None:
    rows = matching_rows(screen(0), {"desc": "Call Ann", "with": {"text_matches": "^Incoming"}})
    assert rows == [("|Call Ann", "Ann|", "Incoming · 7:00|")]  # the row of the button that matched


def test_number_reads_the_group_and_adds_minutes_and_seconds() -> None:
    els = [
        {"text": "Beach day", "bounds": [284, 281, 912, 342]},
        {"text": "1:55", "resource_id": "x:id/time", "bounds": [284, 342, 912, 391]},
        {"bounds": [0, 242, 1080, 431]},
        {"text": "City tour", "bounds": [284, 470, 912, 531]},
        {"text": "3:02", "resource_id": "x:id/time", "bounds": [284, 531, 912, 580]},
        {"bounds": [0, 431, 1080, 620]},
    ]
    selector = {"resource_id": "time", "text_matches": r"^(\d+):(\d\d)$", "with": {"text": "City tour"}}
    assert read_number(els, selector, [60, 1]) == "182"
    day = [{"content_desc": "May 14, 3 events", "bounds": [0, 0, 10, 10]}]
    assert read_number(day, {"desc_matches": r"^May 14, (\d+) events?$"}) == "3"


def test_hint_dates_are_formatted_as_the_screen_shows_them() -> None:
    hint = {"number": {"desc_matches": r"^{day:%B %-d}, (\d+) events?$"}}
    agent = ScreenReaderAgent(template(hint).instantiate(0), "count", lambda text: False, hint)
    cells = [
        {"content_desc": "May 13, 4 events", "bounds": [0, 0, 10, 10]},
        {"content_desc": "May 14, 2 events", "bounds": [10, 0, 20, 10]},
    ]
    agent.act({"ui_elements": []})  # the oracle's open_app
    assert agent.act({"ui_elements": cells}) == {"action_type": "answer", "text": "2"}


def test_nothing_to_read_gives_up() -> None:
    hint = {"number": {"desc_matches": r"^{day:%B %-d}, (\d+) events?$"}}
    agent = ScreenReaderAgent(template(hint).instantiate(0), "count", lambda text: False, hint)
    agent.act({"ui_elements": []})
    assert agent.act({"ui_elements": screen(0)})["goal_status"] == "infeasible"
