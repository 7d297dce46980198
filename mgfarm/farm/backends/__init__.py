"""Backends decide how devices are started and which ports they listen on; nothing else.

Every backend yields emulator-style devices: a console on an even host port, adb on the next odd
one, serial `emulator-<console>` once announced to the managed adb server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from mgfarm.errors import MgfarmError
from mgfarm.farm.ports import FIRST_CONSOLE_PORT, allocate_pairs, port_in_use
from mgfarm.farm.state import FarmState, Replica, ports_of_other_farms

BACKENDS = ("process", "docker")


class Backend(Protocol):
    """What the farm needs from a way of running devices."""

    name: str
    shared_snapshots: bool  # True when the farm's devices share one snapshot folder

    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        """Launch these replicas without waiting for boot; record backend ids (and workers) in `farm`."""
        ...

    def alive(self, farm: FarmState, rep: Replica) -> bool:
        """True while the replica's process or container runs."""
        ...

    def kill(self, farm: FarmState, rep: Replica, force: bool = False) -> None:
        """Stop one replica (used before respawning it); `force`: it is frozen, do not wait for it."""
        ...

    def publish_snapshot(self, farm: FarmState, rep: Replica, name: str, farm_dir: Path) -> None:
        """Make the snapshot `name` that `rep` just saved the farm's read-only copy for every replica."""
        ...

    def stop_all(self, farm: FarmState) -> list[str]:
        """Stop everything of the farm; returns descriptions of what could not be stopped."""
        ...

    def logs(self, farm: FarmState, rep: Replica, farm_dir: Path, tail: int) -> str:
        """The replica's recent log lines."""
        ...

    def memory_kib(self, farm: FarmState) -> int:
        """Memory the farm's devices use right now."""
        ...


def relocate_if_taken(farm: FarmState, rep: Replica) -> bool:
    """Give `rep` a new port pair when something else took one of its ports; True when moved.

    Ports are checked free at allocation, but another program may bind them before the device does.
    """
    if not (port_in_use(rep.console_port) or port_in_use(rep.adb_port)):
        return False
    reserved = ports_of_other_farms(farm.name) | {farm.adb_server_port}
    reserved |= {p for r in farm.replicas if r is not rep for p in (r.console_port, r.adb_port)}
    reserved |= {rep.console_port, rep.adb_port}
    console, adb = allocate_pairs(1, farm.first_port or FIRST_CONSOLE_PORT, reserved)[0]
    rep.console_port, rep.adb_port, rep.serial = console, adb, f"emulator-{console}"
    return True


def get_backend(name: str, **options: object) -> Backend:
    """The backend called `name`."""
    if name == "process":
        from mgfarm.farm.backends.process import ProcessBackend

        return ProcessBackend(**options)  # type: ignore[arg-type]
    if name == "docker":
        from mgfarm.farm.backends.docker import DockerBackend

        return DockerBackend(**options)  # type: ignore[arg-type]  # options come from the state file
    raise MgfarmError(f"Unknown backend {name!r}; use one of: {', '.join(BACKENDS)}.")
