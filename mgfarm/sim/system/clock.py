"""The device clock: wall time that tasks can set and freeze (`date -s`, `date +%s`)."""

from __future__ import annotations

import time
from typing import Any


class Clock:
    """Wall-clock milliseconds, offset from the host clock or frozen at one instant."""

    def __init__(self) -> None:
        self._offset_ms = 0  # device time minus host time while running
        self._frozen_ms: int | None = None

    def now_ms(self) -> int:
        if self._frozen_ms is not None:
            return self._frozen_ms
        return int(time.time() * 1000) + self._offset_ms

    def now(self) -> float:
        """Seconds since the epoch, as a float."""
        return self.now_ms() / 1000.0

    def set_ms(self, ms: int) -> None:
        """Set the device time; a frozen clock stays frozen at the new instant."""
        if self._frozen_ms is not None:
            self._frozen_ms = ms
        else:
            self._offset_ms = ms - int(time.time() * 1000)

    def freeze(self, frozen: bool) -> None:
        """Stop (True) or restart (False) the clock at the current device time."""
        now = self.now_ms()
        if frozen:
            self._frozen_ms = now
        else:
            self._frozen_ms = None
            self._offset_ms = now - int(time.time() * 1000)

    @property
    def frozen(self) -> bool:
        return self._frozen_ms is not None

    def export_state(self) -> dict[str, Any]:
        return {"now_ms": self.now_ms(), "frozen": self.frozen}

    def import_state(self, state: dict[str, Any]) -> None:
        self._frozen_ms = None
        self.set_ms(int(state["now_ms"]))
        if state.get("frozen"):
            self._frozen_ms = int(state["now_ms"])
