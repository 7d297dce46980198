"""Decoded screenshots shared by every `Device` of a process, found by their PNG bytes.

Decoding a full-screen PNG costs ~10 ms while screens repeat (home, an app's first page, the same
page on every replica of a task). Identical bytes are identical pixels, so one decoded array,
made read-only, serves every device that shows that screen; a byte budget bounds the memory.
The same budget holds the recent raw frames of devices that share frames, each under a key only
its device knows (a device's digest vouches for its own screens, not another's).
"""

from __future__ import annotations

import hashlib
import math
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

DEFAULT_BUDGET = 256 * 1024 * 1024  # ~34 decoded 1080x2400 screens
# Unused frame memory `FramePool` keeps for the next frames: 16 of 1080x2400 (a step of 16 envs frees
# and needs 16, and memory handed back would come back zeroed by the kernel).
SPARE_BYTES = 128 * 1024 * 1024


class DecodedFrames:
    """Read-only pixel arrays by PNG digest, least recently used dropped first."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self._frames: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, png: bytes, decode: Callable[[bytes], np.ndarray]) -> np.ndarray:
        """The pixels of `png`: kept ones when seen before, else `decode(png)`, kept from now on."""
        key = hashlib.blake2b(png, digest_size=16).digest()
        found = self.find(key)
        if found is not None:
            return found
        pixels = decode(png)  # outside the lock: other devices go on meanwhile
        pixels.flags.writeable = False
        self.keep(key, pixels)
        return pixels

    def find(self, key: bytes) -> np.ndarray | None:
        """The pixels kept under `key` (now the most recently used), or None."""
        with self._lock:
            found = self._frames.get(key)
            if found is not None:
                self._frames.move_to_end(key)
            return found

    def keep(self, key: bytes, pixels: np.ndarray) -> None:
        """Keep read-only `pixels` under `key` (unless some are already), within the budget."""
        with self._lock:
            if key not in self._frames:
                self._frames[key] = pixels
                self._bytes += pixels.nbytes
            while self._bytes > self.budget and len(self._frames) > 1:
                _, dropped = self._frames.popitem(last=False)
                self._bytes -= dropped.nbytes

    def drop(self, key: bytes) -> None:
        with self._lock:
            dropped = self._frames.pop(key, None)
            if dropped is not None:
                self._bytes -= dropped.nbytes


class FramePool:
    """Memory for new frames (read from a frame file, or copied), reused once no array uses it.

    Fresh memory for a ~8 MB frame makes the kernel zero it before the frame is written into it
    (huge pages the allocator got back from a busy trainer's heap): 13% of the client's CPU at 16
    envs. A buffer is unused when nothing but the pool refers to it: every frame handed out, and
    every view of one, refers to the buffer (numpy views point at the array owning the memory).
    """

    def __init__(self, spare_bytes: int = SPARE_BYTES) -> None:
        self.spare_bytes = spare_bytes
        self._buffers: list[np.ndarray] = []
        self._lock = threading.Lock()
        self._unused_refs = _pool_refs([np.empty(1, dtype=np.uint8)])

    def empty(self, shape: tuple[int, ...]) -> np.ndarray:
        """A uint8 array of `shape`, its contents undefined, sharing memory with no array in use."""
        nbytes = math.prod(shape)
        with self._lock:
            found: np.ndarray | None = None
            kept: list[np.ndarray] = []
            spare = 0  # bytes of the unused buffers kept
            for buffer in self._buffers:
                # Counted before `buffer` joins `kept` or `found`, as _pool_refs counts it.
                if sys.getrefcount(buffer) > self._unused_refs:
                    kept.append(buffer)  # in use
                elif found is None and buffer.nbytes == nbytes:
                    found = buffer
                    kept.append(buffer)
                elif spare + buffer.nbytes <= self.spare_bytes:
                    spare += buffer.nbytes
                    kept.append(buffer)
                # else: unused beyond the spare ones, let go
            if found is None:
                found = np.empty(nbytes, dtype=np.uint8)
                kept.append(found)
            self._buffers = kept
            return found.reshape(shape)


def _pool_refs(buffers: list[np.ndarray]) -> int:
    """References to a buffer only the pool's list holds, seen as `FramePool.empty` sees them."""
    for buffer in buffers:
        return sys.getrefcount(buffer)
    raise AssertionError("one buffer is needed")


SHARED = DecodedFrames()
POOL = FramePool()
