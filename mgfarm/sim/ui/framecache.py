"""Composed screens shared by every device of a process, found by what decides their pixels.

Replicas of one task pass through the same screens (the launcher, an app's first page, the same
list after the same scroll), so a screenshot or hierarchy one device produced serves the others:
a hit skips rendering, PNG encoding and XML writing. Entries are kept by recent use within a byte
budget; `MGFARM_SIM_SHARED_FRAMES=0` turns sharing off (each device then keeps only its own).
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from dataclasses import dataclass

DEFAULT_BUDGET = 64 * 1024 * 1024


@dataclass
class Screen:
    """What one signature produces, filled in as it is asked for."""

    png: bytes | None = None
    xml: str | None = None  # the active window, as `uiautomator dump` writes it
    xml_all: str | None = None  # every window, as uiautomator2's dump_hierarchy returns it
    kept: bool = False  # counted in a cache's running total (a dropped screen may still be in use)

    @property
    def size(self) -> int:
        return len(self.png or b"") + len(self.xml or "") + len(self.xml_all or "")


class FrameCache:
    """Screens by signature digest, least recently used dropped first once over `budget` bytes.

    The bytes kept are a running total, changed as screens are filled and dropped: summing every
    screen on each new frame cost ~5 % of a busy worker.
    """

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.hits = 0
        self.misses = 0
        self.total = 0
        self._screens: OrderedDict[bytes, Screen] = OrderedDict()

    def screen(self, signature: str) -> Screen:
        """The screen for a signature: the shared one when known, else a new one kept from now on."""
        key = hashlib.blake2b(signature.encode(), digest_size=16).digest()
        found = self._screens.get(key)
        if found is not None:
            self.hits += 1
            self._screens.move_to_end(key)
            return found
        self.misses += 1
        screen = Screen()
        if self.budget > 0:
            self._screens[key] = screen
            screen.kept = True
        return screen

    def fill(
        self, screen: Screen, *, png: bytes | None = None, xml: str | None = None, xml_all: str | None = None
    ) -> None:
        """Give a screen its PNG or hierarchy; the total follows, and old screens go when over budget."""
        before = screen.size
        if png is not None:
            screen.png = png
        if xml is not None:
            screen.xml = xml
        if xml_all is not None:
            screen.xml_all = xml_all
        if screen.kept:
            self.total += screen.size - before
            self.trim()

    def trim(self) -> None:
        """Drop the least recently used screens until the kept ones fit the budget."""
        while self.total > self.budget and len(self._screens) > 1:
            _, dropped = self._screens.popitem(last=False)
            dropped.kept = False
            self.total -= dropped.size

    def clear(self) -> None:
        """Drop every kept screen (a screen still in use stays with its user, no longer counted)."""
        for screen in self._screens.values():
            screen.kept = False
        self._screens.clear()
        self.total = 0


def _budget_from_env() -> int:
    return 0 if os.environ.get("MGFARM_SIM_SHARED_FRAMES", "1") == "0" else DEFAULT_BUDGET


SHARED = FrameCache(_budget_from_env())
