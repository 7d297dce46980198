"""Replica leases: one exclusive file lock per replica in `$MGFARM_HOME/farms/<name>/leases/`.

A lock is held by an open file (flock), so a crashed holder frees its replica automatically and
two envs in one process never share a replica.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import IO

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import READY, FarmState, Replica, farm_dir, load_farm


class LeaseError(MgfarmError):
    """No replica could be leased, or a leased replica died."""


def lease_dir(farm_name: str) -> Path:
    return farm_dir(farm_name) / "leases"


class Lease:
    """An exclusive claim on one replica of a farm, until `release()`."""

    def __init__(self, farm_name: str, replica: Replica, handle: IO[str]) -> None:
        self.farm_name = farm_name
        self.replica = replica
        self._handle: IO[str] | None = handle

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None

    def problem(self) -> str | None:
        """Why this replica can no longer be used (from the farm state), or None while it is fine."""
        try:
            farm = load_farm(self.farm_name)
        except MgfarmError as exc:
            return str(exc)
        current = next((r for r in farm.replicas if r.index == self.replica.index), None)
        if current is None:
            return f"replica {self.replica.index} is no longer part of farm {self.farm_name!r}"
        if current.state != READY:
            reason = f" ({current.reason})" if current.reason else ""
            return f"replica {current.index} ({current.serial}) is {current.state}{reason}"
        if current.backend_id != self.replica.backend_id or current.started_at != self.replica.started_at:
            return f"replica {current.index} ({current.serial}) was restarted"
        return None

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _try_lock(farm_name: str, replica: Replica) -> Lease | None:
    path = lease_dir(farm_name) / f"{replica.index}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid={os.getpid()} since={time.time():.0f}\n")
    handle.flush()
    return Lease(farm_name, replica, handle)


def acquire(
    farm_name: str = "default",
    replica: int | None = None,
    timeout: float = 0.0,
    exclude: set[int] | None = None,
) -> tuple[Lease, FarmState]:
    """Lease a ready replica (a given one, or the first free); waits up to `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        farm = load_farm(farm_name)
        candidates = [
            r
            for r in farm.replicas
            if r.state == READY
            and (replica is None or r.index == replica)
            and r.index not in (exclude or set())
        ]
        if replica is not None and not any(r.index == replica for r in farm.replicas):
            raise LeaseError(f"Farm {farm_name!r} has no replica {replica}; see `mgfarm ps`.")
        for rep in candidates:
            lease = _try_lock(farm_name, rep)
            if lease is not None:
                return lease, farm
        if time.monotonic() >= deadline:
            busy = sum(1 for r in farm.replicas if r.state == READY)
            if not candidates:
                raise LeaseError(
                    f"Farm {farm_name!r} has no ready replica to lease ({busy} ready in all); "
                    "see `mgfarm ps` and restart failed ones."
                )
            raise LeaseError(
                f"No free ready replica in farm {farm_name!r} ({busy} ready, all leased); "
                "close other envs or start more with `mgfarm up --replicas N`."
            )
        time.sleep(0.2)
