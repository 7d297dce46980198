"""What the CLI, the env and the tests call: up, down, status, restart, logs, exec."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

from mgfarm.adb import server as adbserver
from mgfarm.adb.binary import adb_args
from mgfarm.errors import MgfarmError
from mgfarm.farm import frames, procs
from mgfarm.farm.backends import DEFAULT_BACKEND, Backend, UpFlags, backend_class, check_storage, get_backend
from mgfarm.farm.boot import DEFAULT_SNAPSHOT, bring_up
from mgfarm.farm.health import backend_of, restore
from mgfarm.farm.ports import FIRST_CONSOLE_PORT
from mgfarm.farm.profiles import DEFAULT_PROFILE, check_profile
from mgfarm.farm.state import (
    FAILED,
    READY,
    FarmState,
    Replica,
    check_name,
    edit,
    farm_dir,
    farm_exists,
    home_locked,
    list_farms,
    load_farm,
    locked,
    other_farms,
    ports_of_other_farms,
    remove_folder,
    save_farm,
    write_private,
)

Progress = Callable[[Replica, int, int], None]  # (replica that finished, done, total)
NO_SNAPSHOT = "none"  # `--snapshot none`: the farm never resets its devices (adopted ones without a console)


class BuiltSnapshot(Protocol):
    """A snapshot built for the farm's backend (`mgfarm snapshot build`), found and checked by the
    snapshots layer and handed to `up`, which boots every replica into it."""

    @property
    def ram_mb(self) -> int:
        """Guest RAM its emulator needs (0 on a simulated device)."""
        ...

    def place(self, farm_dir: Path) -> None:
        """Put its files where the farm's devices load it (nothing when the image holds it)."""
        ...

    def check_device(self, farm: FarmState, rep: Replica) -> None:
        """Refuse, before it loads, a booted device it does not fit (another screen size, say)."""
        ...


# (the farm's backend, the snapshot name) -> the built snapshot, or None when none was built.
SnapshotFinder = Callable[[Backend, str], "BuiltSnapshot | None"]


@dataclass
class ExecResult:
    exit_code: int
    output: str


def _farm_processes_alive(farm: FarmState, backend: Backend | None) -> bool:
    if procs.is_ours(farm.watchdog_pid) or any(procs.is_ours(w.pid) for w in farm.workers):
        return True
    return backend is not None and any(backend.alive(farm, r) for r in farm.replicas)


def _refuse_existing(name: str) -> None:
    """A farm of this name is running, or left a stale state file: say which and how to fix it."""
    farm = load_farm(name)
    try:
        backend: Backend | None = backend_of(farm)
    except MgfarmError:
        backend = None
    if _farm_processes_alive(farm, backend):
        raise MgfarmError(
            f"Farm {name!r} is already up with {len(farm.replicas)} replicas; stop it with "
            f"`mgfarm down --farm {name}` or pick another --farm."
        )
    raise MgfarmError(
        f"Farm {name!r} left a stale state file from a run that crashed; clear it with "
        f"`mgfarm down --farm {name}`."
    )


def _refuse_adopted_elsewhere(others: list[FarmState], planned: list[Replica]) -> None:
    """A device another farm of this home holds (adopted, or one of its own) is not adopted again:
    both farms would reset it under each other's episodes."""
    for theirs in others:
        held = {r.serial: r.index for r in theirs.replicas}
        local = {r.adb_port: r.index for r in theirs.replicas if r.adb_port}
        for rep in planned:
            index = held.get(rep.serial)
            host = rep.serial.rpartition(":")[0]
            if index is None and host in ("127.0.0.1", "localhost"):
                index = local.get(rep.adb_port)  # 127.0.0.1:5587 is the device emulator-5586 too
            if index is not None:
                raise MgfarmError(
                    f"Device {rep.serial} is already replica {index} of farm {theirs.name!r}; stop that farm "
                    f"with `mgfarm down --farm {theirs.name}` or leave the device out."
                )


class _ScreenCheck:
    """Runs the built snapshot's device check once, on the first booted replica, before any load."""

    def __init__(self, farm: FarmState, built: BuiltSnapshot | None) -> None:
        self.farm, self.built = farm, built
        self.lock = threading.Lock()
        self.passed = False

    def __call__(self, rep: Replica) -> None:
        """Raises (for this replica's attempt) until one check passes; a flaky device gets retried."""
        if self.built is None:
            return
        with self.lock:
            if not self.passed:
                self.built.check_device(self.farm, rep)
                self.passed = True


def _boot_all(
    farm: FarmState,
    backend: Backend,
    retries: int,
    on_progress: Progress | None,
    before_load: _ScreenCheck | None = None,
) -> dict[int, str]:
    """Bring every replica up in parallel, retrying a failed one up to `retries` times."""
    lock = threading.Lock()
    done = 0
    total = len(farm.replicas)

    def one(rep: Replica) -> str:
        nonlocal done
        error = ""
        for attempt in range(retries + 1):
            try:
                if attempt:
                    with lock:
                        backend.kill(farm, rep)
                        backend.relocate(farm, rep)
                        backend.start(farm, [rep], farm_dir(farm.name))
                        save_farm(farm)
                bring_up(farm, backend, rep, before_load, partial(_publish, farm, backend, lock))
                error = ""
                break
            except MgfarmError as exc:
                error = str(exc)
        with lock:
            rep.state, rep.reason = (FAILED, error) if error else (READY, "")
            rep.started_at = time.time() if not error else rep.started_at
            done += 1
            save_farm(farm)
            if on_progress:
                on_progress(rep, done, total)
        return error

    with ThreadPoolExecutor(max_workers=min(16, total)) as pool:
        errors = list(pool.map(one, farm.replicas))
    return {rep.index: err for rep, err in zip(farm.replicas, errors, strict=False) if err}


def _publish(farm: FarmState, backend: Backend, lock: threading.Lock, rep: Replica, name: str) -> None:
    """Share the golden a fresh replica saved with the whole farm (read-only)."""
    with lock:
        backend.publish_snapshot(farm, rep, name, farm_dir(farm.name))


def up(
    replicas: int,
    backend: str = DEFAULT_BACKEND,
    name: str = "default",
    image: str = "",
    snapshot: str = DEFAULT_SNAPSHOT,
    adb_port: int = 0,
    first_port: int = FIRST_CONSOLE_PORT,
    keep_partial: bool = False,
    retries: int = 2,
    boot_timeout: float = 120.0,
    workers: int = 0,
    cpus: float | None = None,
    memory: str | None = None,
    devices: list[str] | None = None,
    on_progress: Progress | None = None,
    find_snapshot: SnapshotFinder | None = None,
    owner_pid: int = 0,
    grpc: bool = True,
    profile: str = DEFAULT_PROFILE,
    storage: str | None = None,
) -> FarmState:
    """Start `replicas` devices, wait until each is booted on its snapshot, write the state file.

    `adb_port` 0 gives the farm an adb server of its own on a free port, so no other farm or user
    sees its devices (the existing backend: the user's adb server); name a port to share a server
    on purpose. `devices`: what the existing backend adopts (SERIAL or HOST:PORT[,console=PORT]).
    `find_snapshot` finds the built snapshot to boot into (`mgfarm.snapshots.farm.up` passes it);
    without it, or when none was built, a fresh device saves the golden snapshot. `owner_pid`: the
    process a private farm belongs to; the watchdog stops the farm once that process is gone.
    `grpc`: every device serves the emulator gRPC API on a port of its own (where the backend can).
    `profile`: the device profile (mgfarm.farm.profiles) the devices run. `storage`: each simulated
    device's data partition (e.g. 2g; a write beyond it fails with "No space left on device").
    """
    check_name(name)
    check_profile(profile)
    if storage is not None:
        storage = check_storage(storage)
    if replicas <= 0:
        raise MgfarmError(f"--replicas must be at least 1 (got {replicas}); pass --replicas N with N >= 1.")
    entry = backend_class(backend)
    if storage is not None and not entry.owns_devices:
        raise MgfarmError(
            "--storage sizes the devices mgfarm starts; adopted devices keep their own: leave it out."
        )
    if devices and entry.owns_devices:
        raise MgfarmError(
            f"--device names devices to adopt, which the {backend} backend does not do; "
            "use --backend existing or leave --device out."
        )
    if farm_exists(name):
        _refuse_existing(name)
    flags = UpFlags(
        image=image,
        workers=workers,
        cpus=cpus,
        memory=memory,
        devices=list(devices or []),
        grpc=grpc,
        profile=profile,
        storage=storage,
    )
    options = entry.options(flags)
    runner = get_backend(backend, **options)  # checks the engine and image before anything starts
    runner.check_profile(profile)
    snapshot = "" if snapshot == NO_SNAPSHOT else snapshot
    if not snapshot and runner.owns_devices:
        raise MgfarmError(
            f"--snapshot {NO_SNAPSHOT} is for adopted devices (--backend existing); the {backend} "
            f"backend resets to a snapshot, leave --snapshot at {DEFAULT_SNAPSHOT} or name a built one."
        )
    # A built snapshot (`mgfarm snapshot build`) must fit this farm; it is put where devices load it.
    built = find_snapshot(runner, snapshot) if find_snapshot is not None and snapshot else None
    if built is not None:
        runner.check_snapshot(built.ram_mb, snapshot)
    elif snapshot not in ("", DEFAULT_SNAPSHOT) and runner.snapshot_store != "device":
        raise MgfarmError(
            f"No snapshot {snapshot!r} was built for the {backend} backend; build it with "
            f"`mgfarm snapshot build {snapshot}` or leave --snapshot at {DEFAULT_SNAPSHOT}."
        )
    adb_port = adb_port or runner.default_adb_port()
    token = secrets.token_urlsafe(12)
    folder = farm_dir(name)
    # Under the home lock until the state file is written: two `up`s at once never plan the same
    # ports, nor adopt the same device.
    with home_locked():
        others = other_farms(name)  # read once: for their ports and the devices they hold
        reserved = ports_of_other_farms(name, others) | {adb_port}
        planned = runner.plan(replicas, first_port, reserved, token, snapshot)
        if not runner.owns_devices:
            _refuse_adopted_elsewhere(others, planned)
        remove_folder(folder)  # no state file: leftovers of an earlier farm only
        frames.remove_dirs(name)
        folder.mkdir(parents=True)
        write_private(folder / "console_token", token)  # no newline: adb reads the token file untrimmed
        try:
            if built is not None:
                built.place(folder)
            server_pid = adbserver.ensure_server(adb_port, private=runner.owns_devices)
        except BaseException:
            remove_folder(folder)
            raise
        farm = FarmState(
            name=name,
            backend=backend,
            adb_server_port=adb_port,
            snapshot=snapshot,
            image=runner.image,
            created_at=time.time(),
            adb_server_pid=server_pid,
            options=options,
            boot_timeout=boot_timeout,
            first_port=first_port,
            replicas=planned,
            owner_pid=owner_pid,
            profile=profile,
        )
        save_farm(farm)  # first, so that `down` can clean up even if this process dies mid-way
    try:
        runner.start(farm, farm.replicas, folder)
        save_farm(farm)
        errors = _boot_all(farm, runner, retries, on_progress, _ScreenCheck(farm, built))
        if errors and not keep_partial:
            first = min(errors)
            raise MgfarmError(
                f"{len(errors)} of {replicas} replicas failed to boot (replica {first}: {errors[first]}); "
                f"everything was stopped; see `mgfarm doctor`, or pass --keep-partial to keep the rest."
            )
        watchdog_log = folder / "logs" / "watchdog.log"
        farm.watchdog_pid = procs.spawn_daemon(
            [sys.executable, "-m", "mgfarm.farm.health", name], watchdog_log
        )
        with edit(name) as saved:  # only the pid: whatever a watchdog already wrote stays
            saved.watchdog_pid = farm.watchdog_pid
    except BaseException:
        _teardown(farm, runner)
        raise
    return farm


def _teardown(farm: FarmState, backend: Backend | None) -> list[str]:
    """Stop the watchdog, the devices and (when ours and unused) the adb server; remove the farm folder."""
    # Under the state lock the watchdog is never between starting a device and recording it.
    with locked(farm.name):
        left = [f"watchdog {pid}" for pid in procs.stop_pids([farm.watchdog_pid])]
        with contextlib.suppress(MgfarmError):
            farm = load_farm(farm.name)  # what the watchdog restored since
    if backend is not None:
        left += backend.stop_all(farm)
    # A worker no state lists any more (a restore that raced an earlier stop) is stopped all the same.
    strays = procs.stop_pids(procs.sim_workers_under(farm_dir(farm.name)))
    left += [f"worker process {pid}" for pid in strays]
    # Adopted devices stay on the adb server: only the farm's own must go away.
    owned = backend is None or backend.owns_devices
    serials = {r.serial for r in farm.replicas} if owned else set()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and serials & set(adbserver.devices(farm.adb_server_port)):
        time.sleep(0.1)  # transports go when the device sockets close
    # Farms of one home may share the adb server; under the home lock, the last one to leave stops it.
    with home_locked():
        others = [n for n in list_farms() if n != farm.name]
        users = [n for n in others if load_farm(n).adb_server_port == farm.adb_server_port]
        if farm.adb_server_pid and not users:
            adbserver.kill_server(farm.adb_server_port)
            left += [f"adb server {pid}" for pid in procs.stop_pids([farm.adb_server_pid], marker="adb")]
        else:
            if farm.adb_server_pid:
                with edit(users[0]) as heir:
                    heir.adb_server_pid = farm.adb_server_pid
            lingering = serials & set(adbserver.devices(farm.adb_server_port))
            left += [f"adb transport {s}" for s in sorted(lingering)]
        remove_folder(farm_dir(farm.name))
        frames.remove_dirs(farm.name, farm.frames_dir)
    return left


def _remove_orphan_containers(name: str) -> int:
    """Containers labelled with this farm but no state file (a crash before the first save)."""
    if not os.environ.get("DOCKER_HOST") and not os.path.exists("/var/run/docker.sock"):
        return 0
    from mgfarm.farm.backends.docker import farm_filters, remove_farm_network
    from mgfarm.farm.images import docker_client

    try:
        client = docker_client()
    except MgfarmError:
        return 0
    found = client.containers.list(all=True, filters=farm_filters(name))
    for container in found:
        container.remove(force=True)
    remove_farm_network(client, name)
    return len(found)


def down(name: str = "default") -> FarmState:
    """Stop everything of the farm and verify nothing is left; returns the state it had."""
    check_name(name)
    folder = farm_dir(name)
    try:
        farm = load_farm(name)
    except MgfarmError:
        if (folder / "state.json").exists():  # unreadable: nothing we can stop by id, clear it
            remove_folder(folder)
            frames.remove_dirs(name)
            raise MgfarmError(
                f"The state file of farm {name!r} was unreadable and has been removed; check "
                "`ps` / `docker ps` for leftovers."
            ) from None
        removed = _remove_orphan_containers(name)
        if removed:
            raise MgfarmError(
                f"Farm {name!r} had no state file; removed {removed} container(s) labelled with its name."
            ) from None
        raise MgfarmError(
            f"No farm named {name!r} is up (it may already be down); see `mgfarm ps`."
        ) from None
    try:
        backend: Backend | None = backend_of(farm)
    except MgfarmError:
        backend = None
    left = _teardown(farm, backend)
    if left:
        raise MgfarmError(
            f"Farm {name!r} is down but these are still there: {', '.join(left)}; stop them by hand."
        )
    return farm


def status(name: str = "default") -> FarmState:
    """The farm's state, with replicas whose device is gone shown as failed when no watchdog runs."""
    farm = load_farm(name)
    if procs.is_ours(farm.watchdog_pid):
        return farm
    backend = backend_of(farm)
    for rep in farm.replicas:
        if rep.state == READY and not backend.alive(farm, rep):
            rep.state, rep.reason = (
                FAILED,
                "device gone and no watchdog runs; restart it or run `mgfarm down`",
            )
    return farm


def restart(name: str, index: int) -> FarmState:
    """Restart one replica from the snapshot; returns the new state."""
    load_farm(name).replica(index)  # clear error for a bad index
    errors = restore(name, [index], "restart requested")
    if index in errors:
        raise MgfarmError(f"Replica {index} did not come back: {errors[index]}")
    return load_farm(name)


def logs(name: str, index: int, tail: int = 200) -> str:
    """Recent log lines of one replica's process or container."""
    if tail < 1:
        # A negative or zero slice would print the whole log (process) or nothing (docker).
        raise MgfarmError(f"--tail must be at least 1 (got {tail}); pass --tail N with N >= 1.")
    farm = load_farm(name)
    return backend_of(farm).logs(farm, farm.replica(index), farm_dir(name), tail)


def exec_shell(name: str, index: int, command: list[str], timeout: float = 120.0) -> ExecResult:
    """Run a shell command on a replica through the managed adb server."""
    farm = load_farm(name)
    rep = farm.replica(index)
    if not command:
        raise MgfarmError("No command given; put it after `--`, e.g. `mgfarm exec 0 -- getprop`.")
    argv = [*adb_args(farm.adb_server_port, rep.serial), "shell", *command]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise MgfarmError(
            f"`{' '.join(command)}` on replica {index} did not finish in {timeout:.0f} s."
        ) from None
    return ExecResult(proc.returncode, proc.stdout + proc.stderr)


def mark(name: str, index: int, **changes: object) -> None:
    """Change fields of one replica (used by the env to record a lease failure reason)."""
    with edit(name) as farm:
        rep = farm.replica(index)
        for key, value in changes.items():
            setattr(rep, key, value)
