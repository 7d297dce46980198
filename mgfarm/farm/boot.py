"""Bringing one started replica to `ready`: attach to adb, wait for boot, reset to the farm's snapshot.

The steps are the backend's (`Backend.attach`, `Backend.reset`); the emulator-style defaults live here.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from mgfarm.adb import server as adbserver
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


def wait_attached(
    rep: Replica, adb_server_port: int, deadline: float, alive: Callable[[], bool] | None = None
) -> None:
    """Until the adb server lists the replica as `device`; re-announces it while it is missing.

    `alive` (checked once a second) ends the wait early when the device's process or container died.
    """
    last_announce = 0.0
    last_alive_check = time.monotonic()
    while time.monotonic() < deadline:
        if alive is not None and time.monotonic() - last_alive_check > 1.0:
            last_alive_check = time.monotonic()
            if not alive():
                raise BootError(f"{rep.serial} exited while booting; see `mgfarm logs {rep.index}`.")
        state = adbserver.devices(adb_server_port).get(rep.serial)
        if state == "device":
            return
        if state is None and console_alive(rep.console_port) and time.monotonic() - last_announce > 1.0:
            adbserver.announce(adb_server_port, rep.adb_port)
            last_announce = time.monotonic()
        time.sleep(0.25)  # 64 replicas poll in parallel: keep the adb server's load small
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
