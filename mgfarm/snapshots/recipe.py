"""Snapshot recipes: the YAML that says what a golden device holds, and its stable hash.

A recipe's seed steps use the task setup vocabulary (`mgfarm.tasks.steps`), so recipes and task
setup share one implementation; `time` and `locale` are shorthands that become steps too.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mgfarm.errors import MgfarmError
from mgfarm.tasks.schema import SETUP_KINDS, describe_error, single_key
from mgfarm.tasks.yamlines import load_with_lines

RECIPES_DIR = Path(__file__).resolve().parent.parent / "catalog" / "snapshots"


class Recipe(BaseModel):
    """What a golden snapshot contains: apps that must exist, device time and locale, seed steps."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,40}$")
    description: str = ""
    apps: list[str] = Field(default_factory=list)
    time: str | None = None
    locale: str | None = Field(default=None, pattern=r"^[a-z]{2,3}(-[A-Z]{2})?$")
    seed: list[Any] = Field(default_factory=list)
    source: str = ""  # file the recipe came from, filled by the loader; not hashed

    @field_validator("time")
    @classmethod
    def iso_time(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                dt.datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a date and time like '2026-03-04 09:30'") from None
        return value

    @field_validator("seed")
    @classmethod
    def seed_steps(cls, steps: list[Any]) -> list[Any]:
        for number, step in enumerate(steps, 1):
            try:
                kind, args = single_key(step, SETUP_KINDS, "seed step")
            except ValueError as exc:
                raise ValueError(f"step {number}: {exc}") from None
            if kind == "snapshot":
                raise ValueError("a recipe builds a snapshot and cannot load one; remove the snapshot step")
            if kind == "repeat":
                if not isinstance(args, dict) or "times" not in args or "steps" not in args:
                    raise ValueError("repeat needs {times: N, steps: [...]}")
                cls.seed_steps(args["steps"])
        return steps

    def steps(self) -> list[Any]:
        """Every step the build runs, in order: locale, seed data, then the clock (set last, so
        seeding does not move it)."""
        steps: list[Any] = []
        if self.locale:
            steps.append({"shell": f"setprop persist.sys.locale {self.locale}"})
            steps.append({"settings": {"system": {"system_locales": self.locale}}})
        steps.extend(self.seed)
        if self.time:
            steps.append({"set_time": self.time})
        return steps

    def content_hash(self) -> str:
        """12 hex digits that change whenever anything that shapes the snapshot changes."""
        data = self.model_dump(exclude={"source", "description"})
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def recipe_path(name_or_path: str) -> Path:
    """A recipe file: an existing path, else `<name>.yaml` among the shipped recipes."""
    given = Path(name_or_path)
    if given.suffix in (".yaml", ".yml") and given.is_file():
        return given
    shipped = RECIPES_DIR / f"{name_or_path}.yaml"
    if shipped.is_file():
        return shipped
    known = ", ".join(sorted(p.stem for p in RECIPES_DIR.glob("*.yaml"))) or "none"
    raise MgfarmError(f"No snapshot recipe {name_or_path!r}; give a YAML file or one of: {known}.")


def load_recipe(name_or_path: str) -> Recipe:
    """Parse and validate a recipe; errors name the file, line and field."""
    path = recipe_path(name_or_path)
    data, lines = load_with_lines(path)
    if not isinstance(data, dict):
        raise MgfarmError(f"{path}:1: a recipe is a mapping with name, apps, time, locale and seed; fix it.")
    try:
        recipe = Recipe(**data)
    except ValidationError as exc:
        raise MgfarmError(describe_error(path, lines, (), exc) + "; fix the recipe.") from None
    return recipe.model_copy(update={"source": str(path)})


def list_recipes() -> list[Recipe]:
    """The shipped recipes."""
    return [load_recipe(str(p)) for p in sorted(RECIPES_DIR.glob("*.yaml"))]
