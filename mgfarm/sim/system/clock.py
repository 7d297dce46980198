"""The device clock: wall time that tasks can set and freeze (`date -s`, `date +%s`)."""

from __future__ import annotations

import bisect
import time
from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from mgfarm.sim.system.cursor import get_long

if TYPE_CHECKING:
    from mgfarm.sim.system.props import Props


# How device time stood against host time since its last changes (`Clock.device_ns`): a change
# time older than all of them is read against the oldest.
ANCHORS = 32


class Clock:
    """Wall-clock milliseconds, offset from the host clock or frozen at one instant."""

    def __init__(self) -> None:
        self._offset_ms = 0  # device time minus host time while running
        self._frozen_ms: int | None = None
        self._anchors: list[tuple[int, int]] = []  # (host ns, device ns) at each change of the clock
        self._anchor()

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
        self._anchor()

    def freeze(self, frozen: bool) -> None:
        """Stop (True) or restart (False) the clock at the current device time."""
        now = self.now_ms()
        if frozen:
            self._frozen_ms = now
        else:
            self._frozen_ms = None
            self._offset_ms = now - int(time.time() * 1000)
        self._anchor()

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
        self._anchor()

    def _anchor(self) -> None:
        host = time.time_ns()
        frozen = self._frozen_ms
        device = host + self._offset_ms * 1_000_000 if frozen is None else frozen * 1_000_000
        self._anchors.append((host, device))
        del self._anchors[:-ANCHORS]

    def device_ns(self, host_ns: int) -> int:
        """The device time at host instant `host_ns` (a change time the host kernel stamped), the
        clock running from how it stood then: a frozen clock's instants stay apart, as a device's
        kernel's change times do."""
        at = bisect.bisect_right(self._anchors, (host_ns, 2**63)) - 1
        host, device = self._anchors[max(at, 0)]
        return device + host_ns - host


TIMEZONE_PROP = "persist.sys.timezone"


def zone_named(name: str | None) -> tzinfo:
    """The time zone named `name`, UTC when empty or not a zone, as bionic falls back to GMT.

    Any string may come from `setprop` or `TZ=`: an unknown key, a path (ValueError), a folder of
    the zone database such as "America" (IsADirectoryError), a name too long for a file (OSError)."""
    if not name:
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):
        return timezone.utc


def device_zone(props: Props) -> tzinfo:
    """The device's time zone (persist.sys.timezone), UTC when unset or unknown."""
    return zone_named(props.get(TIMEZONE_PROP, "UTC"))


# The instants Python's datetime can hold, with a day to spare for any time zone; Java's Date goes
# further, and a device may store any 64-bit time: beyond these an app shows the nearest one.
EARLIEST_S = datetime(1, 1, 2, tzinfo=timezone.utc).timestamp()
LATEST_S = datetime(9999, 12, 30, tzinfo=timezone.utc).timestamp()


def at(epoch: float, tz: tzinfo) -> datetime:
    """Seconds since the epoch as a time in zone `tz`, within the instants a datetime holds."""
    return datetime.fromtimestamp(min(max(epoch, EARLIEST_S), LATEST_S), tz)


def instant(ms: object, tz: tzinfo) -> datetime:
    """A column's epoch milliseconds (read as `Cursor.getLong` reads them) as a time in zone `tz`."""
    return at(get_long(ms) / 1000, tz)


def local_time(props: Props, epoch: float) -> datetime:
    """An instant as the device shows it: in its own time zone."""
    return at(epoch, device_zone(props))


def local_ms(props: Props, ms: object) -> datetime:
    """A column's epoch milliseconds as the device shows them: in its own time zone."""
    return instant(ms, device_zone(props))
