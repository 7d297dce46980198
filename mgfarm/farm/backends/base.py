"""What a farm needs from a way of running devices: the `Backend` every registry entry subclasses.

A backend plans its replicas (serials and ports), starts and stops them, attaches them to the
farm's adb server, and resets them to the farm's snapshot. The defaults here are those of
emulator-style devices the farm starts itself: a console on an even host port, adb on the next odd
one, serial `emulator-<console>` once announced to the farm's adb server, and a console
`avd snapshot load` as the reset. A backend overrides what differs.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from mgfarm.adb.console import console_alive, console_command
from mgfarm.errors import MgfarmError
from mgfarm.farm.profiles import DEFAULT_PROFILE
from mgfarm.farm.state import BOOTING, FarmState, Replica, ports_of_other_farms

# mgfarm.farm.boot and mgfarm.farm.ports are imported by the methods that use them: a farm's
# watchdog holds its backend for `alive` all its life and boots or moves devices only when it
# restores one.

TYPE_CHECKING = False  # not `typing`'s: a process farm's watchdog imports this module, not typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import ClassVar, Literal

    # Where a backend's snapshots live: "files" in the farm's folder, shared read-only by its devices;
    # "image" inside each device's (container) image; "device" on the device itself, never built by
    # mgfarm.
    SnapshotStore = Literal["files", "image", "device"]
    Publish = Callable[[Replica, str], None]


MIN_STORAGE_MIB = 64  # the sim's own minimum (its system/space.py): its files ~1 MiB, tasks push MiBs


def check_storage(storage: str) -> str:
    """A device's data partition size as `mgfarm sim serve --storage` takes it (512m, 2g), at least
    64m; one sentence otherwise."""
    text = storage.strip().lower()
    number, unit = (text[:-1], text[-1]) if text[-1:] in ("k", "m", "g") else (text, "")
    if not (number.isascii() and number.isdigit()):
        raise MgfarmError(f"--storage {storage!r} is not a size; write e.g. 2g or 512m.")
    mib = int(number) * {"k": 1 / 1024, "m": 1, "g": 1024}.get(unit, 1 / 1024**2)
    if mib < MIN_STORAGE_MIB:
        raise MgfarmError(f"--storage {storage} is below the 64m a device needs; pass 64m or more.")
    return text


@dataclass
class UpFlags:
    """The `mgfarm up` settings a backend may take its options from."""

    image: str = ""
    workers: int = 0
    cpus: float | None = None
    memory: str | None = None
    devices: list[str] = field(default_factory=list)
    grpc: bool = False  # give every device an emulator gRPC port (where the backend can serve one)
    profile: str = DEFAULT_PROFILE
    storage: str | None = None  # each simulated device's data partition (e.g. 2g); None: the sim's default


class Backend(ABC):
    """One way of running a farm's devices; registered by `name` in mgfarm.farm.backends."""

    name: ClassVar[str]
    snapshot_store: ClassVar[SnapshotStore]
    owns_devices: ClassVar[bool] = True  # False: the user's devices; never killed, moved or saved over
    image: str = ""  # what the devices run, as the farm state and snapshot manifests record it
    grpc: bool = False  # its devices serve the emulator gRPC API on a farm port each

    @classmethod
    @abstractmethod
    def options(cls, flags: UpFlags) -> dict[str, object]:
        """Constructor keywords from `up`'s flags; the state file keeps them so `down` can rebuild it."""

    @property
    def shared_snapshots(self) -> bool:
        """True when the farm's devices share one snapshot folder (only one of them saves a missing one)."""
        return self.snapshot_store == "files"

    def default_adb_port(self) -> int:
        """The adb server a farm uses when none is named: a private one on a quiet port."""
        from mgfarm.farm.ports import quiet_range_start

        return quiet_range_start(1)

    def check_profile(self, profile: str) -> None:
        """Refuse a device profile these devices cannot run (a checked name: see farm.profiles)."""
        return None  # a simulated device runs every profile

    def plan(
        self, count: int, first_port: int, reserved: set[int], token: str, snapshot: str
    ) -> list[Replica]:
        """The farm's replicas before anything starts: free console/adb port pairs from `first_port`,
        each with its gRPC port when the devices serve one."""
        from mgfarm.farm.ports import allocate_pairs, grpc_port_for

        pairs = allocate_pairs(count, first_port, reserved, grpc=self.grpc)
        return [
            Replica(
                i,
                f"emulator-{console}",
                adb,
                console,
                token,
                state=BOOTING,
                grpc_port=grpc_port_for(console) if self.grpc else 0,
            )
            for i, (console, adb) in enumerate(pairs)
        ]

    @abstractmethod
    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        """Launch these replicas without waiting for boot; record backend ids (and workers) in `farm`."""

    @abstractmethod
    def alive(self, farm: FarmState, rep: Replica) -> bool:
        """True while the replica's process, container or device is there."""

    @abstractmethod
    def kill(self, farm: FarmState, rep: Replica, force: bool = False) -> None:
        """Stop one replica (before respawning it); `force`: it is frozen, do not wait for it."""

    def stop(self, farm: FarmState, rep: Replica, frozen: bool = False) -> None:
        """Stop one replica: through its console first, because a process worker may host others too.

        A frozen replica cannot hear its console: its process or container is killed outright.
        """
        if not frozen and self.alive(farm, rep) and console_alive(rep.console_port):
            with contextlib.suppress(MgfarmError):  # already going away
                console_command(rep.console_port, rep.console_token, "kill", timeout=5)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and console_alive(rep.console_port):
                time.sleep(0.1)
        self.kill(farm, rep, force=frozen)

    @abstractmethod
    def stop_all(self, farm: FarmState) -> list[str]:
        """Stop everything of the farm; returns descriptions of what could not be stopped."""

    def attach(
        self, farm: FarmState, rep: Replica, deadline: float, alive: Callable[[], bool] | None = None
    ) -> None:
        """Until the farm's adb server lists the replica as `device` (announced to it while missing)."""
        from mgfarm.farm.boot import wait_attached

        wait_attached(rep, farm.adb_server_port, deadline, alive)

    def reset(self, farm: FarmState, rep: Replica, publish: Publish | None = None) -> None:
        """Return the replica to the farm's snapshot (console `avd snapshot load`); a farm without one
        ('' snapshot) is not reset. A missing golden is saved first from this freshly booted device."""
        from mgfarm.farm.boot import DEFAULT_SNAPSHOT, load_snapshot

        if farm.snapshot:
            save = farm.snapshot == DEFAULT_SNAPSHOT
            load_snapshot(rep, farm.snapshot, save, self.shared_snapshots, publish)

    def relocate(self, farm: FarmState, rep: Replica) -> bool:
        """Give `rep` a new port pair when something else took one of its ports; True when moved.

        Ports are checked free at allocation, but another program may bind them before the device does.
        """
        from mgfarm.farm.ports import FIRST_CONSOLE_PORT, allocate_pairs, grpc_port_for, port_in_use

        if not any(port_in_use(port) for port in rep.ports()):
            return False
        reserved = ports_of_other_farms(farm.name) | {farm.adb_server_port}
        reserved |= {p for r in farm.replicas if r is not rep for p in r.ports()}
        reserved |= set(rep.ports())
        grpc = bool(rep.grpc_port)
        console, adb = allocate_pairs(1, farm.first_port or FIRST_CONSOLE_PORT, reserved, grpc=grpc)[0]
        rep.console_port, rep.adb_port, rep.serial = console, adb, f"emulator-{console}"
        rep.grpc_port = grpc_port_for(console) if grpc else 0
        return True

    def publish_snapshot(self, farm: FarmState, rep: Replica, name: str, farm_dir: Path) -> None:
        """Make the snapshot `name` that `rep` just saved the farm's read-only copy for every replica."""
        return None  # a device that keeps its snapshots itself has nothing to publish

    def check_snapshot(self, ram_mb: int, snapshot: str) -> None:
        """Refuse a built snapshot these devices cannot run (its emulator's guest RAM, say)."""
        return None  # a simulated device runs any

    @abstractmethod
    def logs(self, farm: FarmState, rep: Replica, farm_dir: Path, tail: int) -> str:
        """The replica's recent log lines."""

    @abstractmethod
    def memory_kib(self, farm: FarmState) -> int:
        """Memory the farm's devices use right now."""
