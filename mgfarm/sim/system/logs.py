"""The log buffers `logcat` reads: what ActivityManager, the modem and apps print, in a bounded ring."""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

BUFFERS = ("main", "system", "radio", "events", "crash")
MAX_ENTRIES = 4096  # per device; an agent spamming `log` only pushes old entries out
MAX_MESSAGE = 4068  # liblog's max payload
SYSTEM_PID = 560  # system_server in `ps`


@dataclass(frozen=True)
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
    """All buffers of one device in one ring, oldest first; `seq` numbers let readers follow."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.entries: deque[Entry] = deque(maxlen=MAX_ENTRIES)
        self.next_seq = 1

    def write(self, level: str, tag: str, message: str, pid: int = SYSTEM_PID, buffer: str = "main") -> None:
        now = self.device.services.clock.now_ms()
        tid = pid if buffer != "system" else pid + 17
        for line in message[:MAX_MESSAGE].split("\n") or [""]:
            self.entries.append(Entry(self.next_seq, now, pid, tid, level, tag, line, buffer))
            self.next_seq += 1

    def clear(self, buffers: set[str]) -> None:
        self.entries = deque((e for e in self.entries if e.buffer not in buffers), maxlen=MAX_ENTRIES)

    def since(self, seq: int) -> list[Entry]:
        return [e for e in self.entries if e.seq > seq]

    def used_bytes(self, buffer: str) -> int:
        return sum(len(e.tag) + len(e.message) + 24 for e in self.entries if e.buffer == buffer)


def log(
    device: SimDevice, level: str, tag: str, message: str, pid: int = SYSTEM_PID, buffer: str = "main"
) -> None:
    """Append to the device's log."""
    device.services.logs.write(level, tag, message, pid, buffer)


def shell_pid() -> int:
    return 4242 + os.getpid() % 1000
