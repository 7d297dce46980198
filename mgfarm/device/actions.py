"""AndroidWorld's JSON action schema: validation (pydantic) and execution on a `Device`.

An action is a dict such as `{"action_type": "click", "x": 540, "y": 1200}` or
`{"action_type": "input_text", "text": "Ada", "index": 3, "clear_text": true}`. Coordinates are
pixels, or 0-1000 normalised when `coords="normalized"` (per action or per env).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mgfarm.device.device import LONG_PRESS_MS, Device, key_command, swipe_command, tap_command, text_commands
from mgfarm.device.ui import UIElement
from mgfarm.errors import MgfarmError

ActionType = Literal[
    "click",
    "double_tap",
    "long_press",
    "scroll",
    "swipe",
    "input_text",
    "keyboard_enter",
    "navigate_home",
    "navigate_back",
    "open_app",
    "wait",
    "status",
    "answer",
    "unknown",
]
Direction = Literal["up", "down", "left", "right"]
Coords = Literal["pixel", "normalized"]
ACTION_TYPES: tuple[str, ...] = ActionType.__args__  # type: ignore[attr-defined]

KEY_HOME, KEY_BACK, KEY_ENTER, KEY_DEL, KEY_MOVE_END = 3, 4, 66, 67, 123

# What `open_app` knows by name: app name, label or alias (lower case) -> candidate packages, the first
# installed one wins. The caller hands in the table (the task catalog's apps.yaml, via
# `AppTable.launcher_names`); names it does not list fall back to package-name matching.
AppNames = Mapping[str, Sequence[str]]


class ActionError(MgfarmError):
    """An action that cannot be carried out as given (bad schema, missing element, unknown app)."""


class Action(BaseModel):
    """One AndroidWorld-style action; which fields are required depends on `action_type`."""

    model_config = ConfigDict(extra="forbid")

    action_type: ActionType
    x: float | None = None
    y: float | None = None
    index: int | None = Field(default=None, ge=0)
    direction: Direction | None = None
    text: str | None = Field(default=None, max_length=10_000)
    clear_text: bool = False
    app_name: str | None = Field(default=None, max_length=200)
    goal_status: Literal["complete", "infeasible"] | None = None
    keycode: str | None = Field(default=None, pattern=r"^KEYCODE_[A-Z0-9_]+$")  # keyboard_enter's key
    coords: Coords | None = None

    @model_validator(mode="after")
    def _required_fields(self) -> Action:
        kind = self.action_type
        has_point = self.x is not None and self.y is not None
        if (self.x is None) != (self.y is None):
            raise ValueError("give both x and y, or neither")
        if has_point and self.index is not None:
            raise ValueError("give an element index or x and y, not both")
        if kind in ("click", "double_tap", "long_press") and not has_point and self.index is None:
            raise ValueError(f"{kind} needs x and y, or an element index")
        if kind in ("scroll", "swipe") and self.direction is None:
            raise ValueError(f"{kind} needs a direction (up, down, left or right)")
        if kind in ("input_text", "answer") and self.text is None:
            raise ValueError(f"{kind} needs text")
        if kind == "open_app" and not self.app_name:
            raise ValueError("open_app needs app_name")
        if kind == "status" and self.goal_status is None:
            raise ValueError("status needs goal_status ('complete' or 'infeasible')")
        return self


def parse_action(raw: Action | dict[str, Any] | str) -> Action:
    """Validate an action given as a model, a dict or a JSON string; raises ActionError."""
    if isinstance(raw, Action):
        return raw
    try:
        if isinstance(raw, (str, bytes)):
            raw = json.loads(raw)
        if not isinstance(raw, dict):
            raise ActionError(f"An action must be a JSON object, not {type(raw).__name__}.")
        return Action.model_validate(raw)
    except json.JSONDecodeError as exc:
        raise ActionError(f"The action is not valid JSON ({exc.msg}); send an object.") from exc
    except RecursionError:  # a policy may write anything: JSON nested past the decoder's depth
        raise ActionError("The action is JSON nested too deeply to read; send a flat object.") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "action"
        raise ActionError(f"Invalid action ({where}: {first['msg']}); see the action schema.") from exc


@dataclass(frozen=True)
class ActionOutcome:
    """What executing an action means for the episode."""

    terminal: bool = False
    goal_status: str | None = None
    answer: str | None = None
    # With `execute(..., defer_input=True)`: the input commands not run yet, for the caller to send
    # with its observation (`Device.input_and_observe`).
    inputs: tuple[str, ...] = ()


class ActionExecutor:
    """Turns validated actions into `input`/`am` commands on one device; `apps` names apps for `open_app`."""

    def __init__(
        self,
        device: Device,
        apps: AppNames | None = None,
        coords: Coords = "pixel",
        wait_seconds: float = 1.0,
    ) -> None:
        self.device = device
        self.apps: AppNames = apps or {}
        self.coords = coords
        self.wait_seconds = wait_seconds

    def execute(
        self, raw: Action | dict[str, Any] | str, elements: Sequence[UIElement], defer_input: bool = False
    ) -> ActionOutcome:
        """Carry out an action. Pure input events (taps, swipes, keys, text) are shell commands whose
        output nothing reads; `defer_input` returns them in `ActionOutcome.inputs` instead of running
        them. Actions whose outcome matters (open_app checks the start) or that wait run now."""
        action = parse_action(raw)
        kind = action.action_type
        if kind == "status":
            return ActionOutcome(terminal=True, goal_status=action.goal_status)
        if kind == "answer":
            return ActionOutcome(terminal=True, goal_status="complete", answer=action.text)
        handler = getattr(self, f"_do_{kind}")
        inputs: list[str] = handler(action, elements)
        if defer_input:
            return ActionOutcome(inputs=tuple(inputs))
        for command in inputs:  # one round trip each
            self.device.shell(command)
        return ActionOutcome()

    # -- targets -----------------------------------------------------------------------------
    def _element(self, action: Action, elements: Sequence[UIElement]) -> UIElement:
        assert action.index is not None
        if action.index >= len(elements):
            raise ActionError(
                f"Element index {action.index} is out of range; the screen has {len(elements)} elements."
            )
        return elements[action.index]

    def _point(self, action: Action, elements: Sequence[UIElement]) -> tuple[int, int]:
        width, height = self.device.window_size()
        if action.x is None or action.y is None:
            return self._element(action, elements).center
        space = action.coords or self.coords
        x, y = action.x, action.y
        if space == "normalized":
            if not (0 <= x <= 1000 and 0 <= y <= 1000):
                raise ActionError(f"Normalised coordinates ({x}, {y}) must lie in 0..1000.")
            x, y = x * (width - 1) / 1000, y * (height - 1) / 1000
        if not (0 <= x < width and 0 <= y < height):
            raise ActionError(f"Point ({x:g}, {y:g}) is off the {width}x{height} screen.")
        return round(x), round(y)

    # -- handlers: each returns the input commands it leaves to `execute` ------------------------
    def _do_click(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        return [tap_command(*self._point(action, elements))]

    def _do_double_tap(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        tap = tap_command(*self._point(action, elements))
        return [f"{tap}; {tap}"]  # one command line: the second tap follows the first at once

    def _do_long_press(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        x, y = self._point(action, elements)
        return [swipe_command(x, y, x, y, LONG_PRESS_MS)]

    def _region(self, action: Action, elements: Sequence[UIElement]) -> tuple[int, int, int, int]:
        if action.index is not None:
            return self._element(action, elements).bounds
        width, height = self.device.window_size()
        return 0, 0, width, height

    def _do_scroll(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        # Scrolling down reveals content below: the finger moves up.
        opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
        assert action.direction is not None
        return [self._finger_move(self._region(action, elements), opposite[action.direction])]

    def _do_swipe(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        assert action.direction is not None
        return [self._finger_move(self._region(action, elements), action.direction)]

    def _finger_move(self, region: tuple[int, int, int, int], direction: str) -> str:
        left, top, right, bottom = region
        cx, cy = (left + right) // 2, (top + bottom) // 2
        dx, dy = (right - left) * 3 // 10, (bottom - top) * 3 // 10
        start, end = {
            "up": ((cx, cy + dy), (cx, cy - dy)),
            "down": ((cx, cy - dy), (cx, cy + dy)),
            "left": ((cx + dx, cy), (cx - dx, cy)),
            "right": ((cx - dx, cy), (cx + dx, cy)),
        }[direction]
        return swipe_command(start[0], start[1], end[0], end[1], 300)

    def _do_input_text(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        assert action.text is not None
        commands: list[str] = []
        known_length: int | None = None
        if action.index is not None or action.x is not None:
            commands.append(tap_command(*self._point(action, elements)))
            if action.index is not None:
                known_length = len(self._element(action, elements).text)
        if action.clear_text:
            count = known_length if known_length is not None else 64
            deletes = " ".join([str(KEY_DEL)] * max(count, 1))
            commands.append(f"input keyevent {KEY_MOVE_END} {deletes}")
        return commands + text_commands(action.text)

    def _do_keyboard_enter(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        return [key_command(action.keycode or KEY_ENTER)]

    def _do_unknown(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        raise ActionError("The agent sent an 'unknown' action, so nothing was done; send a concrete action.")

    def _do_navigate_home(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        return [key_command(KEY_HOME)]

    def _do_navigate_back(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        return [key_command(KEY_BACK)]

    def _do_open_app(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        assert action.app_name is not None
        self.device.start_app(resolve_app(self.device, action.app_name, self.apps))
        return []  # done here: its failure is told from the device's answer

    def _do_wait(self, action: Action, elements: Sequence[UIElement]) -> list[str]:
        time.sleep(self.wait_seconds)
        return []


def resolve_app(device: Device, app_name: str, apps: AppNames) -> str:
    """The package for an app name: an installed package, then `apps`' names, then package names."""
    name = app_name.strip().lower()
    installed = device.packages()
    if name in installed:
        return name
    for known in apps.get(name, ()):
        if known in installed:
            return known
    squashed = name.replace(" ", "")
    for package in installed:
        if package.rsplit(".", 1)[-1] == squashed:
            return package
    raise ActionError(f"No installed app is called {app_name!r}; use a launcher label such as 'Contacts'.")
