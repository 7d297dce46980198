"""What a worker keeps for all its devices: least recently used first out once over a budget.

Each entry costs `cost(value)` of the budget (bytes of a text mask; 1 for a picture or a raw frame,
to keep a count); the newest entry stays even alone over the budget, and a budget of 0 keeps
nothing. A lock, since devices render on several threads of the worker. Files apps read on every
frame are parsed once for each version of the file (`parsed_file`).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


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


FileVersion = tuple[int, int, int, int, int]


def file_version(st: os.stat_result) -> FileVersion:
    """A file's inode, size and modification and change times: any write changes one of them."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


# The kernel stamps a write with a clock that moves once a tick (1-10 ms), so a file changed twice
# within a tick can keep its size and times. A version is kept only once its change time is this far
# behind the clock: any write after that is stamped later (git's "racily clean" entries, the same).
SETTLED_NS = 50_000_000


def settled(changed_ns: int) -> bool:
    """Whether a file last changed at `changed_ns` (its ctime) is settled: any later write to it
    would be stamped later, so what is kept by its times stays true until they change."""
    return time.time_ns() - changed_ns > SETTLED_NS


# Files apps read on every frame (preferences, a map's favourites, pictures), parsed once for each
# version of the file: a shell can make any of them as large as the partition. Kept by the bytes of
# the files parsed, with the parsed value.
PARSED_BYTES = 8 * 1024 * 1024
_parsed: Kept[tuple[str, Callable[[bytes], object], FileVersion], tuple[object, int]] = Kept(
    PARSED_BYTES, lambda kept: 256 + kept[1]
)


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The bytes of the host file at `path`; None if it cannot be read or holds over `limit` bytes."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size > limit:  # known too large without reading it
                return None
            data = f.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def parsed_file(path: str | os.PathLike[str], limit: int, parse: Callable[[bytes], T]) -> T | None:
    """`parse` of the bytes of the host file at `path`, kept until the file changes; None if it
    cannot be read or holds over `limit` bytes. What `parse` returns is shared: not to be changed."""
    try:
        with open(path, "rb") as f:
            version = file_version(os.fstat(f.fileno()))
            key = (os.fspath(path), parse, version)
            kept = _parsed.get(key)
            if kept is not None:
                return cast(T, kept[0])
            if version[2] > limit:  # its size: known too large without reading it
                return None
            data = f.read(limit + 1)
            if len(data) > limit:
                return None
            value = parse(data)
            st = os.fstat(f.fileno())
            if file_version(st) == version and settled(st.st_ctime_ns):  # unchanged while read, and old
                _parsed.put(key, (value, len(data)))
            return value
    except OSError:
        return None
