"""The log buffers `logcat` reads: what ActivityManager, the modem and apps print, in a bounded ring."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

BUFFERS = ("main", "system", "radio", "events", "crash")
MAX_ENTRIES = 4096  # per device; an agent spamming `log` only pushes old entries out
MAX_MESSAGE = 4068  # liblog's max payload
# What `logcat -g` reports each buffer holds at most (logd's default size on the emulator): past it
# a buffer drops its oldest entries. Without it a device spamming long messages kept 4096 of them
# (~16 MiB); now each buffer holds at most this much text.
BUFFER_BYTES = 256 * 1024
ENTRY_OVERHEAD = 24  # bytes an entry consumes besides its tag and message (logd's header)
SYSTEM_PID = 560  # system_server in `ps`
by_seq = attrgetter("seq")


@dataclass(frozen=True, slots=True)  # up to MAX_ENTRIES per device: no dict per entry
class Entry:
    seq: int
    time_ms: int
    pid: int
    tid: int
    level: str  # V D I W E F
    tag: str
    message: str
    buffer: str = "main"


class LogBuffer:
    """The buffers of one device, oldest entry first in each; `seq` numbers order them and let
    readers follow. The whole holds at most MAX_ENTRIES entries and each buffer BUFFER_BYTES."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.buffers: dict[str, deque[Entry]] = {name: deque() for name in BUFFERS}
        self._used: dict[str, int] = dict.fromkeys(BUFFERS, 0)
        self._count = 0
        self.next_seq = 1

    def write(self, level: str, tag: str, message: str, pid: int = SYSTEM_PID, buffer: str = "main") -> None:
        now = self.device.services.clock.now_ms()
        tid = pid if buffer != "system" else pid + 17
        ring = self.buffers[buffer]
        for line in message[:MAX_MESSAGE].split("\n") or [""]:
            ring.append(Entry(self.next_seq, now, pid, tid, level, tag, line, buffer))
            self._used[buffer] += cost(ring[-1])
            self._count += 1
            self.next_seq += 1
            while self._used[buffer] > BUFFER_BYTES and len(ring) > 1:
                self._drop(ring)
            while self._count > MAX_ENTRIES:
                self._drop(min((r for r in self.buffers.values() if r), key=lambda r: r[0].seq))

    def _drop(self, ring: deque[Entry]) -> None:
        """Remove the oldest entry of one buffer."""
        entry = ring.popleft()
        self._used[entry.buffer] -= cost(entry)
        self._count -= 1

    def clear(self, buffers: set[str]) -> None:
        for name in buffers:
            self._count -= len(self.buffers[name])
            self.buffers[name].clear()
            self._used[name] = 0

    def since(self, seq: int) -> list[Entry]:
        """Entries after `seq`, of every buffer, in the order they were written."""
        rings = [ring for ring in self.buffers.values() if ring and ring[-1].seq > seq]
        if len(rings) == 1:
            return [e for e in rings[0] if e.seq > seq]
        # Each ring is in order already: sorting runs merges them in linear time.
        return sorted((e for ring in rings for e in ring if e.seq > seq), key=by_seq)

    def used_bytes(self, buffer: str) -> int:
        return self._used[buffer]


def cost(entry: Entry) -> int:
    """What an entry consumes of its buffer, as `logcat -g` counts it."""
    return len(entry.tag) + len(entry.message) + ENTRY_OVERHEAD


def log(
    device: SimDevice, level: str, tag: str, message: str, pid: int = SYSTEM_PID, buffer: str = "main"
) -> None:
    """Append to the device's log."""
    device.services.logs.write(level, tag, message, pid, buffer)
