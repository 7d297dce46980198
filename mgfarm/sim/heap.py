"""Keep freed memory in the worker process while it works; give it back once it is idle.

Composing a new screen allocates a few buffers of 8-10 MB (the canvas, its bytes, the filtered
rows). With glibc's defaults each is mapped fresh and returned when freed, so every new screen
page-faults ~2,700 times: ~5 ms of kernel time, as much as the render itself. Serving from the heap
and trimming it only past 256 MB removes that, but keeps what the busiest moment freed: after every
app was opened once, ~45 MB of a one-device worker's ~115 MB is free heap. `trim_when_idle` hands it
back after a quarter second without work, so a device an agent is stepping keeps its fast heap
and an idle one costs what it holds; the first new screen after an idle spell pays the faults once.
A worker whose devices agents step at their pace (a model call between steps) is never idle that
long, yet has CPU to spare: while it uses under 40 % of a core, it trims after every window
and says so (`worked`, mgfarm/sim/release.py), since the page faults and redraws this brings back
cost CPU it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import time
from collections.abc import Callable

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest allowed value on 64-bit
TRIM_THRESHOLD = 256 * 1024 * 1024
IDLE_SECONDS = 0.25  # a window this long ...
IDLE_CPU_SHARE = 0.05  # ... in which the process used under this share of a core is idle
LIGHT_CPU_SHARE = 0.4  # ... and under this share, lightly used: its memory matters more than its speed


def keep_freed_memory() -> bool:
    """Tune glibc malloc for large, short-lived buffers; False where the C library is not glibc."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def trim() -> None:
    """Return every free page of the heap to the kernel (glibc's malloc_trim; nothing elsewhere)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


async def trim_when_idle(
    window: float = IDLE_SECONDS,
    also: Callable[[], None] | None = None,
    worked: Callable[[bool], None] | None = None,
) -> None:
    """Trim once after each busy spell, when a whole `window` passed with (almost) no CPU used;
    `also` runs then too (the worker frees what it kept for fast frames). After every other window,
    `worked(light)` says whether the process used little CPU in it (up to LIGHT_CPU_SHARE of a
    core); the heap is trimmed after those of light use too.

    CPU time, not requests, says idle: it covers every device, thread and kind of work in the
    process, and reading it costs nothing."""
    trimmed = True
    last = time.process_time()
    while True:
        await asyncio.sleep(window)
        share = (time.process_time() - last) / window
        if share > IDLE_CPU_SHARE:
            trimmed = False
            light = share <= LIGHT_CPU_SHARE
            if worked is not None:
                worked(light)
            if light:
                trim()
        elif not trimmed:
            if also is not None:
                also()
            trim()
            trimmed = True
        last = time.process_time()
