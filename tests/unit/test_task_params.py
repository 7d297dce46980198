"""Seeded parameters: reproducible per (task, seed), different across seeds, near-miss values differ."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.tasks.params import draw, fill, render

SPECS: dict[str, dict[str, Any]] = {
    "first": {"sample": "first_names"},
    "last": {"sample": "last_names"},
    "full": {"format": "{first} {last}"},
    "phone": {"sample": "phone_number"},
    "other": {"sample": "phone_number", "differ_from": "phone"},
    "n": {"sample": "integer", "min": 2, "max": 5},
    "day": {"sample": "date", "start": "2026-03-01", "end": "2026-03-31"},
    "at": {"sample": "time", "hour_min": 8, "hour_max": 9, "minute_step": 15},
    "pick": {"choice": ["a", "b"]},
}


def test_same_task_and_seed_give_same_params() -> None:
    assert draw(SPECS, "x.y", 7) == draw(SPECS, "x.y", 7)


def test_seeds_vary_the_params() -> None:
    values = {draw(SPECS, "x.y", s)["phone"] for s in range(10)}
    assert len(values) > 5


def test_samplers_respect_their_options() -> None:
    for seed in range(30):
        p = draw(SPECS, "x.y", seed)
        assert p["full"] == f"{p['first']} {p['last']}"
        assert re.fullmatch(r"555\d{7}", p["phone"]) and p["other"] != p["phone"]
        assert 2 <= p["n"] <= 5
        assert "2026-03-01" <= p["day"] <= "2026-03-31"
        assert p["at"][:2] in ("08", "09") and p["at"][3:] in ("00", "15", "30", "45")
        assert p["pick"] in ("a", "b")


def test_impossible_differ_from_is_a_clear_error() -> None:
    specs: dict[str, dict[str, Any]] = {"a": {"choice": ["x"]}, "b": {"choice": ["x"], "differ_from": "a"}}
    with pytest.raises(MgfarmError, match="cannot differ"):
        draw(specs, "x.y", 0)


def test_fill_keeps_type_of_a_lone_placeholder_and_rejects_unknown_names() -> None:
    assert fill("{n}", {"n": 3}) == 3
    assert fill("n={n}", {"n": 3}) == "n=3"
    assert render({"a": ["{n}", "x"]}, {"n": 1}) == {"a": [1, "x"]}
    with pytest.raises(MgfarmError, match="names no parameter"):
        fill("{missing}", {})


def test_a_date_sampler_takes_its_own_format() -> None:
    from mgfarm.tasks.params import spec_problem

    spec = {"sample": "date", "start": "2026-03-01", "end": "2026-03-31", "format": "%Y%m%d"}
    assert spec_problem(spec) is None
    assert re.fullmatch(r"202603\d\d", draw({"day": spec}, "x.y", 1)["day"])
