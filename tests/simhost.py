"""Simulated devices inside the test process, announced to a real adb server.

`SimThread` runs the listeners `mgfarm sim serve` runs (`mgfarm.sim.server.DeviceHost`: adbd and the
console) on an asyncio loop in a daemon thread. Clients reach such a device exactly as they reach a
served one, through the real adb server and the console port; what the tests save is the worker
process (an interpreter, the imports and the sandbox: about a second per device) and a boot per test,
as a module's tests can share devices and reset them with a snapshot load.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from mgfarm.errors import MgfarmError
from mgfarm.farm.ports import quiet_range_start
from mgfarm.sim.device import DeviceConfig
from mgfarm.sim.server import DeviceHost

T = TypeVar("T")
START_TIMEOUT = 30.0


@dataclass
class InProcessSim:
    """One device hosted by a `SimThread`."""

    serial: str
    adb_port: int
    console_port: int
    token: str


class SimThread:
    """An event loop in a daemon thread hosting devices announced to the adb server on `adb_server_port`."""

    def __init__(self, workdir: Path, adb_server_port: int, token_file: Path) -> None:
        self.workdir = workdir
        self.adb_server_port = adb_server_port
        self.token_file = token_file
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sim-loop", daemon=True)
        self.thread.start()
        self.hosts: list[DeviceHost] = []

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = START_TIMEOUT) -> T:
        """Run a coroutine on the loop thread and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def start(self) -> InProcessSim:
        """Boot one device on free ports and announce it; returns once its listeners are up."""
        token = self.token_file.read_text()
        for attempt in range(3):  # another process may take the ports between the probe and the bind
            console_port = quiet_range_start(1)
            config = DeviceConfig(
                name=f"mgfarm_sim_{console_port}",
                adb_port=console_port + 1,
                data_dir=self.workdir / f"emulator-{console_port}",
                snapshot_dir=self.workdir / "snapshots",
                token_file=self.token_file,
            )
            host = DeviceHost(config, self.adb_server_port, token)
            try:
                self.run(host.start())
            except MgfarmError:
                if attempt == 2:
                    raise
                continue
            self.hosts.append(host)
            return InProcessSim(config.serial, config.adb_port, console_port, token)
        raise AssertionError("unreachable")

    def close(self) -> None:
        for host in self.hosts:
            self.run(host.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()
