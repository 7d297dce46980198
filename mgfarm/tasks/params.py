"""Seeded parameter samplers: word lists, names, phone numbers, dates, times and numbers.

A template's `params` maps a name to one spec, drawn in order so later specs may refer to earlier
values: `{sample: NAME, ...options}`, `{value: X}`, `{choice: [...]}` or `{format: "{a} {b}"}`.
Every sampler accepts `differ_from: NAME | [NAMES]` (draw again until the value differs), which is
how near-misses get a plausible wrong value.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from mgfarm.errors import MgfarmError

DATA_DIR = Path(__file__).parent / "data"
WORD_LISTS = (
    "first_names",
    "last_names",
    "words",
    "note_topics",
    "expense_categories",
    "message_phrases",
)
Sampler = Callable[[random.Random, dict[str, Any]], Any]
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\}")


@cache
def word_list(name: str) -> tuple[str, ...]:
    """The entries of a bundled word list (one per line)."""
    lines = (DATA_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip())


def rng_for(task_id: str, seed: int) -> random.Random:
    """A generator that depends only on the task and the seed (stable across Python runs)."""
    digest = hashlib.sha256(f"{task_id}/{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _pick_word(name: str) -> Sampler:
    def sample(rng: random.Random, opts: dict[str, Any]) -> Any:
        return rng.choice(word_list(name))

    return sample


def _phone_number(rng: random.Random, opts: dict[str, Any]) -> str:
    # 555-01xx style numbers are reserved for fiction; ten digits keeps apps' formatting simple.
    return "555" + "".join(str(rng.randint(0, 9)) for _ in range(7))


def _integer(rng: random.Random, opts: dict[str, Any]) -> int:
    return rng.randrange(int(opts.get("min", 0)), int(opts.get("max", 10)) + 1, int(opts.get("step", 1)))


def _number(rng: random.Random, opts: dict[str, Any]) -> float:
    value = rng.uniform(float(opts.get("min", 0)), float(opts.get("max", 100)))
    return round(value, int(opts.get("decimals", 2)))


def _date(rng: random.Random, opts: dict[str, Any]) -> str:
    start = dt.date.fromisoformat(str(opts.get("start", "2026-01-01")))
    end = dt.date.fromisoformat(str(opts.get("end", "2026-12-31")))
    day = start + dt.timedelta(days=rng.randint(0, (end - start).days))
    return day.strftime(str(opts.get("format", "%Y-%m-%d")))


def _time(rng: random.Random, opts: dict[str, Any]) -> str:
    step = int(opts.get("minute_step", 5))
    hour = rng.randint(int(opts.get("hour_min", 6)), int(opts.get("hour_max", 22)))
    minute = rng.randrange(0, 60, step)
    return f"{hour:02d}:{minute:02d}"


def _choice(rng: random.Random, opts: dict[str, Any]) -> Any:
    return rng.choice(list(opts["options"]))


SAMPLERS: dict[str, Sampler] = {name: _pick_word(name) for name in WORD_LISTS}
SAMPLERS.update(
    {
        "phone_number": _phone_number,
        "integer": _integer,
        "number": _number,
        "date": _date,
        "time": _time,
        "choice": _choice,
    }
)
SPEC_KINDS = ("sample", "value", "choice", "format")


def spec_problem(spec: Any) -> str | None:
    """Why a parameter spec is malformed, or None when it is fine."""
    if not isinstance(spec, dict):
        return "must be a mapping such as {sample: first_names}"
    kinds = [k for k in SPEC_KINDS if k in spec and not (k == "format" and "sample" in spec)]
    if len(kinds) != 1:
        return f"needs exactly one of {', '.join(SPEC_KINDS)}"
    if kinds[0] == "sample" and spec["sample"] not in SAMPLERS:
        return f"unknown sampler {spec['sample']!r}; known: {', '.join(sorted(SAMPLERS))}"
    if kinds[0] == "choice" and (not isinstance(spec["choice"], list) or not spec["choice"]):
        return "choice needs a non-empty list"
    return None


def fill(text: str, params: dict[str, Any]) -> Any:
    """Substitute `{name}` placeholders; a string that is exactly one placeholder keeps the value's type."""
    whole = PLACEHOLDER.fullmatch(text)
    if whole:
        return _lookup(whole.group(1), params)
    return PLACEHOLDER.sub(lambda m: str(_lookup(m.group(1), params)), text)


def _lookup(name: str, params: dict[str, Any]) -> Any:
    """A parameter, or a field of a mapping parameter (`{slot.hour}`)."""
    head, *fields = name.split(".")
    if head not in params:
        raise MgfarmError(f"Placeholder {{{name}}} names no parameter; define it under `params`.")
    value = params[head]
    for f in fields:
        if not isinstance(value, dict) or f not in value:
            raise MgfarmError(f"Placeholder {{{name}}}: parameter {head!r} has no field {f!r}.")
        value = value[f]
    return value


def render(value: Any, params: dict[str, Any]) -> Any:
    """`fill` applied to every string inside nested lists and mappings."""
    if isinstance(value, str):
        return fill(value, params)
    if isinstance(value, list):
        return [render(v, params) for v in value]
    if isinstance(value, dict):
        return {k: render(v, params) for k, v in value.items()}
    return value


def draw_one(spec: dict[str, Any], rng: random.Random, params: dict[str, Any]) -> Any:
    """One value for one spec, given the parameters drawn so far."""
    if "value" in spec:
        return render(spec["value"], params)
    if "sample" in spec:  # before `format`, which is also the date sampler's option
        return SAMPLERS[str(spec["sample"])](rng, spec)
    if "format" in spec:
        return fill(str(spec["format"]), params)
    if "choice" in spec:  # options may name earlier parameters: [{target: "{early}", index: 0}, ...]
        return render(rng.choice(list(spec["choice"])), params)
    return SAMPLERS[str(spec["sample"])](rng, spec)


def draw(specs: dict[str, dict[str, Any]], task_id: str, seed: int) -> dict[str, Any]:
    """All parameters of one task instance, reproducible from (task_id, seed)."""
    rng = rng_for(task_id, seed)
    params: dict[str, Any] = {}
    for name, spec in specs.items():
        avoid = spec.get("differ_from", [])
        avoid_values = [params[a] for a in ([avoid] if isinstance(avoid, str) else avoid)]
        value = draw_one(spec, rng, params)
        for _ in range(200):
            if value not in avoid_values:
                break
            value = draw_one(spec, rng, params)
        else:
            raise MgfarmError(f"Parameter {name!r} of {task_id} cannot differ from {avoid}; widen its range.")
        params[name] = value
    return params
