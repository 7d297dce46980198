"""Which AndroidWorld tasks `mgfarm eval --suite androidworld --tasks ...` runs (no AndroidWorld needed)."""

from __future__ import annotations

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.suites.aw_eval import Row, markdown, select

REGISTRY = {name: object() for name in ("MarkorDeleteNote", "ClockTimerEntry", "MarkorCreateNote")}


def test_no_pattern_selects_the_whole_registry_sorted() -> None:
    assert select(REGISTRY, []) == ["ClockTimerEntry", "MarkorCreateNote", "MarkorDeleteNote"]


def test_names_and_globs_in_the_order_given_without_repeats() -> None:
    chosen = select(REGISTRY, ["MarkorDeleteNote", "Markor*", "ClockTimerEntry"])
    assert chosen == ["MarkorDeleteNote", "MarkorCreateNote", "ClockTimerEntry"]


def test_an_unknown_name_is_one_sentence() -> None:
    with pytest.raises(MgfarmError, match=r"No AndroidWorld task is named 'ClockTimer'; .* globs"):
        select(REGISTRY, ["ClockTimer"])


def test_the_table_keeps_errors_on_one_row() -> None:
    text = markdown([Row("ClockTimerEntry", 30, "no", 2, 1.25, "Error: a | b\nc")])
    assert text.splitlines()[2] == "| ClockTimerEntry | 30 | no | 2 | 1.2 | Error: a / b c |"
