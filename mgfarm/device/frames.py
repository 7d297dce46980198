"""Decoded screenshots shared by every `Device` of a process, found by their PNG bytes.

Decoding a full-screen PNG costs ~10 ms while screens repeat (home, an app's first page, the same
page on every replica of a task). Identical bytes are identical pixels, so one decoded array,
made read-only, serves every device that shows that screen; a byte budget bounds the memory.
The same budget holds the recent raw frames of devices that share frames, each under a key only
its device knows (a device's digest vouches for its own screens, not another's).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

DEFAULT_BUDGET = 256 * 1024 * 1024  # ~34 decoded 1080x2400 screens


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


SHARED = DecodedFrames()
