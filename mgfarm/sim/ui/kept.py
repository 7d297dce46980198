"""What a worker keeps for all its devices: least recently used first out once over a budget.

Each entry costs `cost(value)` of the budget (bytes of a text mask; 1 for a picture or a raw frame,
to keep a count); the newest entry stays even alone over the budget, and a budget of 0 keeps
nothing. A lock, since devices render on several threads of the worker.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """Values by key within `budget`, the sum of their `cost`s."""

    def __init__(self, budget: int, cost: Callable[[V], int]) -> None:
        self.budget = budget
        self.cost = cost
        self.total = 0  # the cost of what is kept
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> V:
        """Keep `value` for `key` unless a value is kept for it already; returns the one kept."""
        with self._lock:
            kept = self._entries.get(key)
            if kept is not None:
                return kept
            if self.budget <= 0:
                return value
            self._entries[key] = value
            self.total += self.cost(value)
            self._trim()
            return value

    def limit(self, budget: int) -> None:
        """Keep within `budget` from now on when it is less than the budget now."""
        with self._lock:
            self.budget = min(self.budget, budget)
            self._trim()

    def _trim(self) -> None:
        """Drop the least recently used entries while over the budget, but the newest (unless 0)."""
        while self._entries and self.total > self.budget and (len(self._entries) > 1 or self.budget <= 0):
            _, dropped = self._entries.popitem(last=False)
            self.total -= self.cost(dropped)

    def values(self) -> Iterator[V]:
        """What is kept, least recently used first (a snapshot)."""
        with self._lock:
            return iter(list(self._entries.values()))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.total = 0
