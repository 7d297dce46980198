"""Backends decide how devices are started and which ports they listen on; nothing else.

Every backend yields emulator-style devices: a console on an even host port, adb on the next odd
one, serial `emulator-<console>` once announced to the managed adb server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import FarmState, Replica

BACKENDS = ("process", "docker")


class Backend(Protocol):
    """What the farm needs from a way of running devices."""

    name: str

    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        """Launch these replicas without waiting for boot; record backend ids (and workers) in `farm`."""
        ...

    def alive(self, farm: FarmState, rep: Replica) -> bool:
        """True while the replica's process or container runs."""
        ...

    def kill(self, farm: FarmState, rep: Replica) -> None:
        """Stop one replica (used before respawning it)."""
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


def get_backend(name: str, **options: object) -> Backend:
    """The backend called `name`."""
    if name == "process":
        from mgfarm.farm.backends.process import ProcessBackend

        return ProcessBackend(**options)  # type: ignore[arg-type]
    if name == "docker":
        from mgfarm.farm.backends.docker import DockerBackend

        return DockerBackend(**options)  # type: ignore[arg-type]  # options come from the state file
    raise MgfarmError(f"Unknown backend {name!r}; use one of: {', '.join(BACKENDS)}.")
