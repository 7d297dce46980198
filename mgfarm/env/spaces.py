"""Observation and action spaces of the mobile env (declared for gymnasium and its checker)."""

from __future__ import annotations

import copy
import string
from typing import Any

import numpy as np
from gymnasium import spaces

from mgfarm.device.ui import UIElement

MAX_TEXT = 100_000
MAX_ELEMENT_TEXT = 10_000
_PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "
BOOL_FIELDS = (
    "clickable",
    "long_clickable",
    "editable",
    "scrollable",
    "checkable",
    "checked",
    "focused",
    "enabled",
    "selected",
)
TEXT_FIELDS = ("text", "content_desc", "resource_id", "class_name", "package")


class AnyText(spaces.Text):
    """Text of any Unicode characters up to `max_length`; samples are printable ASCII.

    Apps show any characters (accents, emoji), so membership must not depend on a charset.
    """

    def __init__(self, max_length: int, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=_PRINTABLE, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.max_length})"


def element_space() -> spaces.Dict:
    fields: dict[str, spaces.Space[Any]] = {"index": spaces.Discrete(100_000)}
    for name in TEXT_FIELDS:
        fields[name] = AnyText(MAX_ELEMENT_TEXT)
    fields["bounds"] = spaces.Box(low=-100_000, high=100_000, shape=(4,), dtype=np.int32)
    for name in BOOL_FIELDS:
        fields[name] = spaces.Discrete(2)
    return spaces.Dict(fields)


def shaped_box(template: spaces.Box, shape: tuple[int, ...]) -> spaces.Box:
    """A Box of `shape` equal to one made with `template`'s bounds tiled to `shape`, but whose
    bounds are read-only broadcasts of `template`'s.

    A Box keeps four arrays of its full shape (low, high and whether each is bounded) and checks
    them element by element when made: for a 1080x2400 screenshot that is 31 MB and ~40 ms of CPU
    per env, and n times more for a batch of n (most of `make_vec`'s time at 64 envs).
    """
    box = spaces.Box(low=0, high=1, shape=(1,), dtype=template.dtype)  # checked bounds: template's
    box._shape = shape
    for name in ("low", "high", "bounded_below", "bounded_above"):
        setattr(box, name, np.broadcast_to(getattr(template, name), shape))
    box.low_repr, box.high_repr = template.low_repr, template.high_repr
    box._np_random = copy.deepcopy(template.np_random)
    return box


def screen_box(width: int, height: int) -> spaces.Box:
    """The screenshot's Box: (height, width, 3) RGB bytes."""
    return shaped_box(spaces.Box(low=0, high=255, shape=(1, 1, 3), dtype=np.uint8), (height, width, 3))


def observation_space(width: int, height: int, screenshot: bool = True) -> spaces.Dict:
    """Screenshot (unless a text-only agent turns it off), UI elements and goal."""
    fields: dict[str, spaces.Space[Any]] = {}
    if screenshot:
        fields["screenshot"] = screen_box(width, height)
    fields["ui_elements"] = spaces.Sequence(element_space())
    fields["goal"] = AnyText(MAX_TEXT)
    return spaces.Dict(fields)


def action_space() -> AnyText:
    """Actions are AndroidWorld JSON objects (as dicts or JSON text); the space describes the text."""
    return AnyText(MAX_TEXT)


def element_observation(element: UIElement) -> dict[str, Any]:
    """One element as a member of `element_space()`."""
    obs: dict[str, Any] = {"index": element.index}
    for name in TEXT_FIELDS:
        obs[name] = getattr(element, name)[:MAX_ELEMENT_TEXT]
    obs["bounds"] = np.asarray(element.bounds, dtype=np.int32)
    for name in BOOL_FIELDS:
        obs[name] = int(getattr(element, name))
    return obs
