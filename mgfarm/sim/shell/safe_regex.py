"""Regular expressions on device input, bounded so that one device cannot stall the others.

Patterns come from an agent (`grep`, `sed`, `find -regex`), and a catastrophic one backtracks for
ever. The `regex` package matches with the GIL released (`concurrent=True`) and gives up after a
deadline (`timeout=`), so commands run their matching in a worker thread (`run_bounded`) while the
event loop keeps serving every other device, and a match that takes too long ends the command.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import regex

# Seconds of matching one command may spend; then it fails with RegexTimeout.
REGEX_BUDGET = 2.0
MAX_PATTERN = 4096

T = TypeVar("T")


class RegexError(ValueError):
    """A pattern that does not compile (or is too long)."""


class RegexTimeout(Exception):
    """Matching ran past the command's budget."""


class Budget:
    """The time left for one command's matching."""

    def __init__(self, seconds: float = REGEX_BUDGET) -> None:
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise RegexTimeout("regular expression took too long")
        return remaining


class BoundedPattern:
    """A compiled pattern whose every call runs concurrently (GIL released) within a Budget."""

    def __init__(self, pattern: Any, budget: Budget) -> None:
        self._pattern = pattern
        self.budget = budget

    def _bounded(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, timeout=self.budget.left(), concurrent=True, **kwargs)
        except TimeoutError as exc:
            raise RegexTimeout("regular expression took too long") from exc

    @property
    def groups(self) -> int:
        """How many capturing groups the pattern has."""
        return int(self._pattern.groups)

    def search(self, text: str, pos: int = 0) -> Any:
        return self._bounded(self._pattern.search, text, pos)

    def match(self, text: str) -> Any:
        return self._bounded(self._pattern.match, text)

    def fullmatch(self, text: str) -> Any:
        return self._bounded(self._pattern.fullmatch, text)

    def hits(self, text: str, limit: int) -> list[str]:
        """The non-empty matched texts in `text`, at most `limit` + 1 of them (so a caller can tell
        there were too many), never a list of millions of match objects."""
        out: list[str] = []
        try:
            for m in self._pattern.finditer(text, timeout=self.budget.left(), concurrent=True):
                if m.group(0):
                    out.append(m.group(0))
                    if len(out) > limit:
                        break
        except TimeoutError as exc:
            raise RegexTimeout("regular expression took too long") from exc
        return out

    def posix_matches(self, text: str) -> Iterator[Any]:
        """Non-overlapping matches left to right, as sed's and awk's global substitutions take them:
        an empty match right where the last match ended is not one (`s/o*/X/g` on "foo")."""
        pos, last_end = 0, -1
        while pos <= len(text):
            m = self.search(text, pos)
            if m is None:
                return
            if m.start() == m.end() == last_end:
                pos = m.end() + 1
                continue
            yield m
            last_end = m.end()
            pos = m.end() if m.end() > m.start() else m.end() + 1

    def subn(self, repl: str, text: str, count: int = 0) -> tuple[str, int]:
        result: tuple[str, int] = self._bounded(self._pattern.subn, repl, text, count)
        return result


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str, flags: int) -> Any:
    return regex.compile(pattern, flags | regex.VERSION0)


def compile_regex(pattern: str, ignore_case: bool = False, budget: Budget | None = None) -> BoundedPattern:
    """A pattern with Python `re` syntax, bounded by `budget` (a fresh REGEX_BUDGET by default)."""
    if len(pattern) > MAX_PATTERN:
        raise RegexError(f"pattern longer than {MAX_PATTERN} characters")
    try:
        compiled = _compiled(pattern, regex.IGNORECASE if ignore_case else 0)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise RegexError(str(exc)) from exc
    return BoundedPattern(compiled, budget or Budget())


# Worker threads for device work that may run long (matching, SQL): their own pool, so that a few
# stuck devices do not hold the loop's default executor, which the rest of the process shares.
DEVICE_WORK = ThreadPoolExecutor(max_workers=32, thread_name_prefix="device-work")


async def run_bounded(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` (matching or SQL with its own budget) in a worker thread, leaving the event
    loop free for the other devices."""
    return await asyncio.get_running_loop().run_in_executor(DEVICE_WORK, functools.partial(fn, *args))


class RunStopped(Exception):
    """A script run (awk, sed) past its time or output, or cancelled; the message says which."""


class Limits:
    """What one script run may spend: a time budget for its matching and its own loops, output
    characters, and a stop flag set when its command is cancelled (a client gone, `timeout`)."""

    def __init__(self, seconds: float, max_output: int, stop: threading.Event) -> None:
        self.seconds = seconds
        self.budget = Budget(seconds)
        self.deadline = time.monotonic() + seconds
        self.max_output = max_output
        self.stop = stop
        self.steps = 0
        self.size = 0

    def tick(self) -> None:
        """One step of the run's own work (a statement, a cycle); checked every 1024 steps."""
        self.steps += 1
        if self.steps & 1023 == 0:
            if self.stop.is_set():
                raise RunStopped("stopped")
            if time.monotonic() > self.deadline:
                raise RunStopped(f"ran longer than {self.seconds:.0f} s, stopped")

    def output(self, count: int) -> None:
        self.size += count
        if self.size > self.max_output:
            raise RunStopped(f"more than {self.max_output >> 20} MiB of output, stopped")


async def run_stoppable(fn: Callable[..., T], *args: Any) -> T:
    """`run_bounded(fn, *args, stop)`: `stop` is set if the awaiting command is cancelled, so the
    worker thread ends at its next `Limits.tick` instead of running on unseen."""
    stop = threading.Event()
    try:
        return await run_bounded(fn, *args, stop)
    except asyncio.CancelledError:
        stop.set()
        raise
