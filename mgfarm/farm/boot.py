"""Bringing one started replica to `ready`: attach to adb, wait for boot, reset to the farm's snapshot.

The steps are the backend's (`Backend.attach`, `Backend.reset`); the emulator-style defaults live here.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from mgfarm.adb import server as adbserver
from mgfarm.adb import wire
from mgfarm.adb.console import console_alive, console_command, snapshot_names
from mgfarm.adb.errors import AdbError
from mgfarm.adb.shell import ShellClient
from mgfarm.errors import MgfarmError
from mgfarm.farm.state import FarmState, Replica

if TYPE_CHECKING:  # the backends build on this module's steps
    from mgfarm.farm.backends.base import Backend

DEFAULT_SNAPSHOT = "golden"

# Saving the golden snapshot once per shared snapshot folder: the first replica saves, others load.
_golden_lock = threading.Lock()


class BootError(MgfarmError):
    """A replica did not become ready; the message says at which step."""


class DeviceTracker:
    """The adb server's device list as it changes (`host:track-devices`), instead of polling it.

    The server sends the whole list (`SERIAL\tSTATE` lines) at once and again on every change, so
    a wait ends the moment a device turns `device`; a poll every 0.25 s added 0-0.25 s to every boot
    (half of a one-replica cold start). A closed connection (the server restarted) reads as an
    empty list, and the next `changes` call opens a new one.
    """

    def __init__(self, adb_server_port: int) -> None:
        self.port = adb_server_port
        self.sock: socket.socket | None = None

    def __enter__(self) -> DeviceTracker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def changes(self, timeout: float) -> dict[str, str] | None:
        """The next list (serial -> state) within `timeout` seconds; None when nothing changed."""
        try:
            if self.sock is None:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=5.0)
                wire.request(self.sock, "host:track-devices")
            readable, _, _ = select.select([self.sock], [], [], max(timeout, 0.0))
            if not readable:
                return None
            # A list is sent in one write: once it starts, it is read whole (never cut by `timeout`).
            return adbserver.parse_devices(wire.read_hex_payload(self.sock).decode("utf-8", "replace"))
        except (OSError, AdbError):
            self.close()
            time.sleep(min(max(timeout, 0.0), 0.1))  # no server right now: do not spin
            return {}


def wait_attached(
    rep: Replica, adb_server_port: int, deadline: float, alive: Callable[[], bool] | None = None
) -> None:
    """Until the adb server lists the replica as `device`; re-announces it while it is missing.

    `alive` (checked once a second) ends the wait early when the device's process or container died.
    """
    last_announce = 0.0
    last_check = time.monotonic()
    known: dict[str, str] = {}
    with DeviceTracker(adb_server_port) as tracker:
        while time.monotonic() < deadline:
            listed = tracker.changes(min(deadline - time.monotonic(), 1.0))
            if listed is not None:
                known = listed
                if known.get(rep.serial) == "device":
                    return
            if time.monotonic() - last_check < 1.0:
                continue
            # Once a second: a dead device, or one the server lost (restarted) and must hear of again.
            last_check = time.monotonic()
            if alive is not None and not alive():
                raise BootError(f"{rep.serial} exited while booting; see `mgfarm logs {rep.index}`.")
            missing = rep.serial not in known and time.monotonic() - last_announce > 1.0
            if missing and console_alive(rep.console_port):
                adbserver.announce(adb_server_port, rep.adb_port)
                last_announce = time.monotonic()
    raise BootError(f"{rep.serial} never attached to the adb server on port {adb_server_port}.")


def wait_boot_completed(rep: Replica, adb_server_port: int, deadline: float) -> None:
    """Until `getprop sys.boot_completed` says 1.

    Through mgfarm's own shell client, not adbutils: the watchdog imports this module, and adbutils
    (with requests and PIL) would be most of its memory.
    """
    client = ShellClient(rep.serial, adb_server_port)
    last = ""
    while time.monotonic() < deadline:
        try:
            last = client.run_raw("getprop sys.boot_completed", timeout=10).decode("utf-8", "replace").strip()
        except (AdbError, OSError) as exc:
            last = str(exc)
        if last == "1":
            return
        time.sleep(0.2)
    raise BootError(f"{rep.serial} did not finish booting (sys.boot_completed: {last!r}).")


def load_snapshot(
    rep: Replica,
    snapshot: str,
    save_missing: bool,
    shared: bool = True,
    publish: Callable[[Replica, str], None] | None = None,
) -> None:
    """Load `snapshot` through the console; save it first from this fresh device when it is missing.

    `shared`: devices of the farm share one read-only snapshot folder, so only one of them saves
    it. `publish` then moves it from the device's own folder into the read-only one (the farm's,
    or the container's own with docker), where no device can change it.
    """
    if snapshot not in snapshot_names(rep.console_port, rep.console_token):
        with _golden_lock if shared else contextlib.nullcontext():
            if snapshot not in snapshot_names(rep.console_port, rep.console_token):
                if not save_missing:
                    raise BootError(
                        f"{rep.serial} has no snapshot {snapshot!r}; build it with `mgfarm snapshot build` "
                        "or leave --snapshot at its default."
                    )
                console_command(rep.console_port, rep.console_token, f"avd snapshot save {snapshot}")
                if publish is not None:
                    publish(rep, snapshot)
    console_command(rep.console_port, rep.console_token, f"avd snapshot load {snapshot}", timeout=120)


def bring_up(
    farm: FarmState,
    backend: Backend,
    rep: Replica,
    before_load: Callable[[Replica], None] | None = None,
    publish: Callable[[Replica, str], None] | None = None,
) -> None:
    """Attach, wait for boot, (check,) reset to the snapshot; raises BootError naming the failed step."""
    deadline = time.monotonic() + farm.boot_timeout
    backend.attach(farm, rep, deadline, partial(backend.alive, farm, rep))
    wait_boot_completed(rep, farm.adb_server_port, deadline)
    if before_load is not None:
        before_load(rep)
    backend.reset(farm, rep, publish)
