"""The farm state file: `$MGFARM_HOME/farms/<name>/state.json`, the farm's single source of truth.

The CLI, the watchdog and the env all read it; writers hold an exclusive lock on `state.lock` and
replace the file atomically, so readers never see half a file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mgfarm.errors import MgfarmError

TYPE_CHECKING = False  # not `typing`'s: the watchdog, which reads this file all its life, skips typing
if TYPE_CHECKING:
    from typing import Any

READY = "ready"
BOOTING = "booting"
FAILED = "failed"
RESTORING = "restoring"
REPLICA_STATES = (READY, BOOTING, FAILED, RESTORING)

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")


@dataclass
class Replica:
    """One device of a farm."""

    index: int
    serial: str
    adb_port: int
    console_port: int
    console_token: str
    backend_id: str = ""  # worker pid ("pid:123") or container id
    state: str = BOOTING
    started_at: float = 0.0
    reason: str = ""  # why it is failed/restoring; empty when ready
    restarts: int = 0
    grpc_port: int = 0  # the emulator gRPC API (android_env's control channel); 0: none served
    frame_file: str = ""  # raw frames shared on this host (mgfarm.device.framebuffer); "": PNG over adb

    def ports(self) -> tuple[int, ...]:
        """Every host port the replica's device listens on."""
        return tuple(p for p in (self.console_port, self.adb_port, self.grpc_port) if p)


@dataclass
class Worker:
    """One daemonised `mgfarm sim serve` process of the process backend."""

    pid: int
    replicas: list[int]
    log: str
    data: str = ""  # its data folder (device roots and the snapshots it saved)


@dataclass
class FarmState:
    """Everything needed to find, check and stop a farm."""

    name: str
    backend: str
    adb_server_port: int
    snapshot: str
    replicas: list[Replica] = field(default_factory=list)
    image: str = ""
    created_at: float = 0.0
    workers: list[Worker] = field(default_factory=list)
    watchdog_pid: int = 0
    adb_server_pid: int = 0  # set when this farm started the managed adb server
    options: dict[str, Any] = field(default_factory=dict)  # backend options (workers, cpus, memory)
    boot_timeout: float = 120.0
    first_port: int = 5554  # the farm's port range starts here; restarts stay in it
    owner_pid: int = 0  # a private farm's process (tasks check): its watchdog stops the farm if it dies
    profile: str = "android13"  # the device profile (image the devices mirror; their app packages)
    frames_dir: str = ""  # the process backend's frame files (mgfarm.farm.frames); "": none made yet

    def replica(self, index: int) -> Replica:
        for rep in self.replicas:
            if rep.index == index:
                return rep
        raise MgfarmError(
            f"Farm {self.name!r} has no replica {index}; replicas are 0..{len(self.replicas) - 1}."
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FarmState:
        fields = dict(data)
        fields["replicas"] = [Replica(**r) for r in data.get("replicas", [])]
        fields["workers"] = [Worker(**w) for w in data.get("workers", [])]
        return cls(**fields)


def home() -> Path:
    """$MGFARM_HOME, default ~/.mgfarm."""
    return Path(os.environ.get("MGFARM_HOME") or Path.home() / ".mgfarm")


def owner_id() -> str:
    """Whose farms these are: a short hash of the resolved home folder.

    Docker names and labels carry it, so a farm of another MGFARM_HOME (another user, another test
    run) with the same name is never listed, reset or removed by this one.
    """
    import hashlib  # here: loading OpenSSL would cost the watchdog, which never needs it, ~0.8 MiB

    return hashlib.sha256(str(home().resolve()).encode()).hexdigest()[:10]


def check_name(name: str) -> str:
    if not _NAME_RE.match(name):
        raise MgfarmError(
            f"Farm name {name!r} is not valid; use lowercase letters, digits, '.', '_' or '-' (max 63)."
        )
    return name


def farm_dir(name: str) -> Path:
    return home() / "farms" / check_name(name)


def state_path(name: str) -> Path:
    return farm_dir(name) / "state.json"


def farm_exists(name: str) -> bool:
    return state_path(name).is_file()


def load_farm(name: str = "default") -> FarmState:
    """The farm's state; a clear error when no farm of that name is up."""
    path = state_path(name)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise MgfarmError(f"No farm named {name!r} is up; start one with `mgfarm up --replicas N`.") from None
    except (json.JSONDecodeError, OSError) as exc:
        raise MgfarmError(
            f"The state file {path} is unreadable ({exc}); remove it with `mgfarm down --farm {name}`."
        ) from None
    try:
        return FarmState.from_json(data)
    except TypeError:
        raise MgfarmError(
            f"The state file {path} is from another mgfarm version; "
            f"clear it with `mgfarm down --farm {name}`."
        ) from None


def save_farm(farm: FarmState) -> None:
    """Write the state atomically (callers that read-modify-write hold `locked(name)`)."""
    path = state_path(farm.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    write_private(tmp, json.dumps(farm.to_json(), indent=1))
    os.replace(tmp, path)


def remove_folder(folder: Path) -> None:
    """Delete a farm or snapshot folder, sealed snapshots included (their folders lack the write bit)."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for dirpath, dirnames, _files in os.walk(folder):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                with contextlib.suppress(OSError):
                    os.chmod(path, os.lstat(path).st_mode | 0o700)
    shutil.rmtree(folder, ignore_errors=True)


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (0600 from its creation): it holds console tokens."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # O_CREAT's mode does not apply to a file that already existed
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """Exclusive lock for read-modify-write of one farm's state.

    It never makes the farm's folder: a process that outlived its farm (a watchdog mid-pass) must
    not leave a `state.lock` behind, which would make the next `up` of that name fail.
    """
    try:
        handle = (farm_dir(name) / "state.lock").open("a")
    except FileNotFoundError:
        raise MgfarmError(f"No farm named {name!r} is up; start one with `mgfarm up --replicas N`.") from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def home_locked() -> Iterator[None]:
    """Exclusive lock over the set of farms in this home (who still uses a shared adb server)."""
    with _flocked(home() / "farms" / "farms.lock"):
        yield


@contextlib.contextmanager
def _flocked(lock: Path) -> Iterator[None]:
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def edit(name: str) -> Iterator[FarmState]:
    """Load the farm under the lock, let the caller change it, save it on a clean exit."""
    with locked(name):
        farm = load_farm(name)
        yield farm
        save_farm(farm)


def update_replica(name: str, index: int, **changes: Any) -> FarmState:
    """Change fields of one replica under the lock and save; returns the new state."""
    with locked(name):
        farm = load_farm(name)
        rep = farm.replica(index)
        for key, value in changes.items():
            setattr(rep, key, value)
        save_farm(farm)
        return farm


def list_farms() -> list[str]:
    """Names of farms that have a state file."""
    root = home() / "farms"
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "state.json").is_file())


def resolve_farm(name: str | None) -> str:
    """The farm to use: the one named, else the only farm that is up, else `default`."""
    if name:
        return name
    farms = list_farms()
    if len(farms) == 1:
        return farms[0]
    if len(farms) > 1 and "default" not in farms:
        raise MgfarmError(f"Several farms are up ({', '.join(farms)}); pick one with farm= (or --farm).")
    return "default"


def other_farms(name: str) -> list[FarmState]:
    """The states of this home's other farms (a state that cannot be read is left out)."""
    farms: list[FarmState] = []
    for other in list_farms():
        if other == name:
            continue
        try:
            farms.append(load_farm(other))
        except MgfarmError:
            continue
    return farms


def ports_of_other_farms(name: str, others: list[FarmState] | None = None) -> set[int]:
    """Ports promised to other farms (their devices may be restarting and not bound right now);
    `others`: those farms' states when the caller has read them already."""
    return {
        port
        for farm in (other_farms(name) if others is None else others)
        for rep in farm.replicas
        for port in rep.ports()
    }


def uptime(rep: Replica, now: float | None = None) -> float:
    if not rep.started_at:
        return 0.0
    return max(0.0, (now or time.time()) - rep.started_at)
