"""Turning the emulator API's pointer events (touch down/move/up, mouse buttons) into taps and swipes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

MAX_POINTERS = 10  # the emulator's multi-touch slots; further fingers are ignored


@dataclass
class Pointer:
    """One finger (or the mouse button) from down to up."""

    x0: int
    y0: int
    t0: float
    x: int = 0
    y: int = 0
    path: list[tuple[int, int]] = field(default_factory=list)


class Gestures:
    """Pointers by id; on up, a still pointer is a tap (or a long press), a moving one a swipe."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.down: dict[int, Pointer] = {}

    def event(self, pointer: int, x: int, y: int, pressed: bool, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        current = self.down.get(pointer)
        if pressed:
            if current is None and len(self.down) < MAX_POINTERS:
                self.down[pointer] = Pointer(x, y, now, x, y)
            elif current is None:
                return
            else:
                current.x, current.y = x, y
            return
        if current is None:
            return  # an up without a down (android_env sends a lift as its no-op): nothing happens
        del self.down[pointer]
        held_ms = round((now - current.t0) * 1000)
        self.window.swipe(current.x0, current.y0, x, y, max(held_ms, 1))
