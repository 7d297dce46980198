"""The watchdog: notices dead, offline or frozen replicas and brings them back from the golden snapshot.

It runs as a daemon per farm (`python -m mgfarm.farm.health NAME`, pid in the state file) and
exits on its own when the farm's state file goes away. A process that runs and an adb server that
lists the device prove little: a device whose event loop is stuck (an endless query, a stopped
worker) looks fine to both. So every pass also asks each device to answer on its console (`ping`,
served by the same loop as adb); one that stays silent twice in a row is frozen and restarted.
Whatever goes wrong in a pass (engine, processes, files) is logged, and the next pass heals on.
"""

from __future__ import annotations

import json
import sys
import threading
import time

from mgfarm.adb import server as adbserver
from mgfarm.adb.console import console_alive, console_command
from mgfarm.errors import MgfarmError
from mgfarm.farm.backends import Backend, get_backend
from mgfarm.farm.procs import pid_alive
from mgfarm.farm.state import FAILED, READY, RESTORING, FarmState, Replica, edit, farm_dir, load_farm

# The watchdog runs once per farm for the farm's whole life, so what it imports is memory every farm
# pays: only what a pass needs loads here (no argparse, concurrent.futures or backend it does not
# run); what a restore needs loads at the first restore.
# tests/unit/test_watchdog_imports.py keeps it that way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")
    R = TypeVar("R")

POLL_SECONDS = 1.0
MAX_RESTARTS_PER_REPLICA = 20  # a replica that keeps dying is marked failed rather than looping forever
PROBE_TIMEOUT = 5.0  # a console that does not answer `ping` within this is silent
FROZEN_AFTER = 2  # silent probes in a row before a replica counts as frozen

# (farm, replica index) -> silent probes in a row, kept across passes of one watchdog process.
_silent: dict[tuple[str, int], int] = {}


_backends: dict[str, Backend] = {}


def in_threads(fn: Callable[[T], R], items: list[T], workers: int) -> list[R]:
    """`fn` of each item, in order, run in up to `workers` threads; `fn`'s first exception is raised.

    Plain threads, not concurrent.futures: the watchdog would keep that package loaded (~0.6 MiB).
    """
    results: dict[int, R] = {}
    errors: list[BaseException] = []
    todo = iter(range(len(items)))
    lock = threading.Lock()

    def run() -> None:
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            try:
                results[i] = fn(items[i])
            except BaseException as exc:  # handed to the caller, as a pool's map would
                errors.append(exc)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(min(workers, len(items)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [results[i] for i in range(len(items))]


def backend_of(farm: FarmState) -> Backend:
    """The farm's backend; reused across watchdog passes (a docker backend holds an engine client)."""
    key = json.dumps([farm.backend, farm.options], sort_keys=True)
    if key not in _backends:
        _backends[key] = get_backend(farm.backend, **farm.options)
    return _backends[key]


def dead_replicas(farm: FarmState, backend: Backend) -> list[int]:
    """Indices of ready replicas whose process/container is gone or whose device stopped answering."""
    listed = adbserver.devices(farm.adb_server_port)
    dead = []
    for rep in farm.replicas:
        if rep.state != READY:
            continue
        if not backend.alive(farm, rep):
            dead.append(rep.index)
        elif listed.get(rep.serial) != "device":
            if console_alive(rep.console_port):
                adbserver.announce(farm.adb_server_port, rep.adb_port)  # server restarted: re-attach only
            else:
                dead.append(rep.index)
    return dead


def answers(rep: Replica, timeout: float = PROBE_TIMEOUT) -> bool:
    """True when the device answers a real request (console `ping`) within `timeout` seconds."""
    try:
        return "I am alive" in console_command(rep.console_port, rep.console_token, "ping", timeout=timeout)
    except MgfarmError:
        return False


def frozen_replicas(farm: FarmState, candidates: list[int]) -> list[int]:
    """Of these ready, running replicas, the ones silent FROZEN_AFTER probes in a row."""
    reps = [farm.replica(i) for i in candidates if farm.replica(i).console_port]  # no console: no probe
    replies = in_threads(answers, reps, 32)
    frozen = []
    for rep, ok in zip(reps, replies, strict=True):
        key = (farm.name, rep.index)
        _silent[key] = 0 if ok else _silent.get(key, 0) + 1
        if _silent[key] >= FROZEN_AFTER:
            frozen.append(rep.index)
            _silent.pop(key)
    return frozen


def silent(farm: FarmState, backend: Backend, indices: list[int]) -> set[int]:
    """Of these replicas, the running ones that do not answer (`restart` of a frozen replica).

    A frozen device's socket still accepts connections (the kernel does that), so only a request
    tells it from a live one.
    """
    reps = [farm.replica(i) for i in indices]
    running = [r for r in reps if backend.alive(farm, r) and console_alive(r.console_port)]
    replies = in_threads(lambda rep: answers(rep, timeout=3.0), running, 16)
    return {r.index for r, ok in zip(running, replies, strict=True) if not ok}


def restore(
    name: str,
    indices: list[int],
    reason: str,
    frozen: frozenset[int] = frozenset(),
    seen: dict[int, str] | None = None,
) -> dict[int, str]:
    """Restart these replicas, wait for boot, load the snapshot, mark them ready.

    `frozen`: those among them known to have stopped answering; the others are asked once more.
    A frozen one is killed without asking, with its whole process (or container), so the replicas
    that process also hosted are restored too.
    `seen`: backend ids the watchdog saw when it judged them (index -> id); a replica restarted or
    restoring since (by `restart`, say) is left alone, so no replica is restored twice.
    Returns index -> error text for the replicas that could not be restored (marked failed).
    """
    from mgfarm.farm.boot import bring_up  # loaded by the first restore, not by every watchdog

    with edit(name) as farm:
        if seen is not None:
            indices = [
                i for i in indices if (farm.replica(i).state, farm.replica(i).backend_id) == (READY, seen[i])
            ]
            frozen = frozenset(i for i in frozen if i in indices)
            if not indices:
                return {}
        backend = backend_of(farm)
        stuck = set(frozen) | silent(farm, backend, [i for i in indices if i not in frozen])
        hosts = {farm.replica(i).backend_id for i in stuck}
        stuck |= {r.index for r in farm.replicas if r.backend_id and r.backend_id in hosts}
        indices = sorted(set(indices) | stuck)
        for index in indices:
            rep = farm.replica(index)
            rep.state, rep.reason = RESTORING, reason
        for index in indices:
            backend.stop(farm, farm.replica(index), index in stuck)
        for index in indices:
            backend.relocate(farm, farm.replica(index))
        backend.start(farm, [farm.replica(i) for i in indices], farm_dir(name))
        reps = {i: farm.replica(i) for i in indices}

    def one(index: int) -> str:
        try:
            bring_up(farm, backend, reps[index])
        except Exception as exc:  # any failure marks this replica failed, never the pass
            return str(exc) or exc.__class__.__name__
        return ""

    errors = dict(zip(indices, in_threads(one, indices, 16), strict=True))
    with edit(name) as farm:
        for index, error in errors.items():
            rep = farm.replica(index)
            rep.restarts += 1
            rep.state, rep.reason = (FAILED, error) if error else (READY, "")
            if not error:
                rep.started_at = time.time()
    return {i: e for i, e in errors.items() if e}


def log_error(exc: BaseException) -> None:
    """One `watchdog:` line on stderr: the message of an error a user can fix, else the traceback."""
    if isinstance(exc, MgfarmError):
        detail = str(exc)
    else:
        import traceback  # only on this path: the watchdog does not keep it loaded

        detail = "".join(traceback.format_exception(exc))
    print(f"watchdog: {detail}", file=sys.stderr, flush=True)


def watch_once(name: str) -> list[int]:
    """One watchdog pass; returns the replicas it restored."""
    farm = load_farm(name)
    backend = backend_of(farm)
    if not adbserver.server_running(farm.adb_server_port):
        adbserver.ensure_server(farm.adb_server_port, private=backend.owns_devices)
    dead = dead_replicas(farm, backend)
    running = [r.index for r in farm.replicas if r.state == READY and r.index not in dead]
    frozen = frozen_replicas(farm, running)
    chosen = [i for i in dead + frozen if farm.replica(i).restarts < MAX_RESTARTS_PER_REPLICA]
    if chosen:
        reason = "device stopped answering; restoring from the snapshot" if frozen else ""
        seen = {i: farm.replica(i).backend_id for i in chosen}
        reason = reason or "device stopped; restoring from the snapshot"
        restore(name, chosen, reason, frozenset(frozen), seen)
    return chosen


def owner_gone(name: str) -> bool:
    """True when the farm belongs to a process (a private farm) that no longer runs."""
    owner = load_farm(name).owner_pid
    return owner > 0 and not pid_alive(owner)


def stop_orphaned(name: str) -> None:
    """`down` of a farm whose owner died, run by its own watchdog (which `down` must not stop)."""
    from mgfarm.farm.api import down  # api starts watchdogs: imported here, where a watchdog ends one

    with edit(name) as farm:
        farm.watchdog_pid = 0
    down(name)


def watch(name: str, interval: float = POLL_SECONDS) -> None:
    """Loop until the farm's state file is gone (or holds another farm of that name); no error ends
    it while the farm exists.

    A private farm whose owner died (killed before it could run `down`) is stopped here, so nothing
    of it is left running.
    """
    try:
        born = load_farm(name).created_at
    except MgfarmError:
        return  # down ran before this watchdog started
    while True:
        try:
            if load_farm(name).created_at != born:
                # Its farm went down and another of that name came up: that one has its own watchdog.
                print("watchdog: the farm was replaced; exiting", flush=True)
                return
            if owner_gone(name):
                print("watchdog: the farm's owner process is gone; stopping the farm", flush=True)
                stop_orphaned(name)
                return
            restored = watch_once(name)
        except Exception as exc:  # the watchdog outlives engine and process errors
            if not (farm_dir(name) / "state.json").exists():
                return
            log_error(exc)
            _backends.clear()  # a broken engine client is made anew next pass
            restored = []
        if restored:
            print(f"watchdog: restored replicas {restored}", flush=True)
        time.sleep(interval)


def main(argv: list[str] | None = None) -> int:
    """`python -m mgfarm.farm.health NAME [--interval SECONDS]` (read by hand: argparse would stay loaded)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 1 or (len(args) == 3 and args[1] == "--interval"):
        watch(args[0], float(args[2]) if len(args) == 3 else POLL_SECONDS)
        return 0
    print("usage: python -m mgfarm.farm.health NAME [--interval SECONDS]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
