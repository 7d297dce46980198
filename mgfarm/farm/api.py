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
from dataclasses import dataclass, replace
from functools import partial

from mgfarm.adb import server as adbserver
from mgfarm.adb.binary import adb_args
from mgfarm.errors import MgfarmError
from mgfarm.farm import procs
from mgfarm.farm.backends import BACKENDS, Backend, get_backend, relocate_if_taken
from mgfarm.farm.boot import DEFAULT_SNAPSHOT, bring_up
from mgfarm.farm.health import backend_of, restore
from mgfarm.farm.ports import FIRST_CONSOLE_PORT, allocate_pairs, quiet_range_start
from mgfarm.farm.state import (
    BOOTING,
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
    ports_of_other_farms,
    remove_folder,
    save_farm,
    write_private,
)

Progress = Callable[[Replica, int, int], None]  # (replica that finished, done, total)


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


class _ScreenCheck:
    """Runs the built snapshot's screen check once, on the first booted replica, before any load."""

    def __init__(self, farm: FarmState, manifest: object | None) -> None:
        self.farm, self.manifest = farm, manifest
        self.lock = threading.Lock()
        self.passed = False

    def __call__(self, rep: Replica) -> None:
        """Raises (for this replica's attempt) until one check passes; a flaky device gets retried."""
        if self.manifest is None:
            return
        from mgfarm.snapshots.farm import check_screen

        with self.lock:
            if not self.passed:
                # check_screen asks the farm's first replica; hand it the one that has booted.
                check_screen(self.manifest, replace(self.farm, replicas=[rep]))  # type: ignore[arg-type]
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
                        relocate_if_taken(farm, rep)
                        backend.start(farm, [rep], farm_dir(farm.name))
                        save_farm(farm)
                alive = partial(backend.alive, farm, rep)
                bring_up(
                    rep,
                    farm.adb_server_port,
                    farm.snapshot,
                    farm.boot_timeout,
                    before_load,
                    alive,
                    backend.shared_snapshots,
                    partial(_publish, farm, backend, lock),
                )
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
    backend: str = "process",
    name: str = "default",
    image: str = "",
    snapshot: str = "golden",
    adb_port: int = 0,
    first_port: int = FIRST_CONSOLE_PORT,
    keep_partial: bool = False,
    retries: int = 2,
    boot_timeout: float = 120.0,
    workers: int = 0,
    cpus: float | None = None,
    memory: str | None = None,
    on_progress: Progress | None = None,
) -> FarmState:
    """Start `replicas` devices, wait until each is booted on its snapshot, write the state file.

    `adb_port` 0 gives the farm an adb server of its own on a free port, so no other farm or user
    sees its devices; name a port to share a server on purpose.
    """
    check_name(name)
    if replicas <= 0:
        raise MgfarmError(f"--replicas must be at least 1 (got {replicas}); pass --replicas N with N >= 1.")
    if backend not in BACKENDS:
        raise MgfarmError(f"Unknown backend {backend!r}; use one of: {', '.join(BACKENDS)}.")
    if farm_exists(name):
        _refuse_existing(name)
    options: dict[str, object] = {"workers": workers} if backend == "process" else {}
    if backend == "docker":
        from mgfarm.farm.backends.docker import resolve_image
        from mgfarm.snapshots.manifest import built_image

        # No --image: the image `mgfarm snapshot build --backend docker` committed for this snapshot.
        image = resolve_image(image or built_image(snapshot))
        options = {"image": image, "cpus": cpus, "memory": memory}
    runner = get_backend(backend, **options)  # checks the engine and image before anything starts
    adb_port = adb_port or quiet_range_start(1)
    reserved = ports_of_other_farms(name) | {adb_port}
    pairs = allocate_pairs(replicas, first_port, reserved)

    folder = farm_dir(name)
    remove_folder(folder)  # no state file: leftovers of an earlier farm only
    folder.mkdir(parents=True)
    token = secrets.token_urlsafe(12)
    write_private(folder / "console_token", token)  # no newline: adb reads the token file untrimmed
    # A built snapshot (`mgfarm snapshot build`) must fit this farm; it is put where devices load it.
    from mgfarm.snapshots.farm import prepare

    try:
        manifest = prepare(folder, backend, image, snapshot)
    except BaseException:
        remove_folder(folder)
        raise
    limit = str(getattr(runner, "memory", "") or "")  # docker: each container's memory limit
    if manifest is not None and manifest.ram_mb and limit:
        from mgfarm.farm.backends.docker import check_guest_memory

        try:
            check_guest_memory(limit, manifest.ram_mb, snapshot)
        except BaseException:
            remove_folder(folder)
            raise
    if manifest is None and snapshot != DEFAULT_SNAPSHOT:
        remove_folder(folder)
        raise MgfarmError(
            f"No snapshot {snapshot!r} was built for the {backend} backend; build it with "
            f"`mgfarm snapshot build {snapshot}` or leave --snapshot at {DEFAULT_SNAPSHOT}."
        )
    try:
        server_pid = adbserver.ensure_server(adb_port)
    except BaseException:
        remove_folder(folder)
        raise
    farm = FarmState(
        name=name,
        backend=backend,
        adb_server_port=adb_port,
        snapshot=snapshot,
        image=image,
        created_at=time.time(),
        adb_server_pid=server_pid,
        options=options,
        boot_timeout=boot_timeout,
        first_port=first_port,
        replicas=[
            Replica(
                index=i,
                serial=f"emulator-{console}",
                adb_port=adb,
                console_port=console,
                console_token=token,
                state=BOOTING,
            )
            for i, (console, adb) in enumerate(pairs)
        ],
    )
    save_farm(farm)  # first, so that `down` can clean up even if this process dies mid-way
    try:
        runner.start(farm, farm.replicas, folder)
        save_farm(farm)
        errors = _boot_all(farm, runner, retries, on_progress, _ScreenCheck(farm, manifest))
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
        save_farm(farm)
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
    serials = {r.serial for r in farm.replicas}
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
