"""What a farm costs the host: memory and CPU of every process it runs, not just its device workers.

A farm is its sim workers (or containers), its watchdog, the adb server its devices announce
themselves to and the process backend's frame files (on a tmpfs their pages are memory whether or
not a process maps them); the client (the process stepping the envs) is counted in CPU but not in memory,
because a trainer pays for it whichever farm it talks to.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mgfarm.farm import procs
from mgfarm.farm.state import FarmState

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
GROUPS = ("sim", "adb", "watchdog", "client")  # CPU is reported by these groups of processes


@dataclass
class FarmProcesses:
    """The host pids of a farm, by group; `containers` is set for the docker backend instead of `sim`."""

    sim: list[int] = field(default_factory=list)
    adb: list[int] = field(default_factory=list)
    watchdog: list[int] = field(default_factory=list)
    containers: bool = False


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (its children's children too), from /proc/PID/task/*/children."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            found += kids
            todo += kids
    return found


def farm_processes(farm: FarmState, adb_server_pid: int = 0) -> FarmProcesses:
    """The farm's processes now; `adb_server_pid` names a server the caller started for the farm."""
    server = adb_server_pid or farm.adb_server_pid
    found = FarmProcesses(
        adb=[server] if procs.pid_alive(server) else [],
        watchdog=[farm.watchdog_pid] if procs.pid_alive(farm.watchdog_pid) else [],
        containers=not farm.workers,  # no worker processes: the backend measures its devices
    )
    for worker in farm.workers:
        if procs.pid_alive(worker.pid):
            found.sim += [worker.pid, *descendants(worker.pid)]  # a worker's children are its cost too
    return found


def memory_kib(farm: FarmState, found: FarmProcesses) -> dict[str, int]:
    """PSS in KiB of each group (containers: their memory as `docker stats` shows it); `frames` is
    the frame files' allocated pages, which the workers' PSS then leaves out (counted once)."""
    if found.containers:
        from mgfarm.farm.health import backend_of

        sim = backend_of(farm).memory_kib(farm)
    else:
        sim = sum(procs.memory_kib(pid) - mapped_kib(pid, farm.frames_dir) for pid in found.sim)
    return {
        "sim": sim,
        "adb": sum(procs.memory_kib(pid) for pid in found.adb),
        "watchdog": sum(procs.memory_kib(pid) for pid in found.watchdog),
        "frames": frame_files_kib(farm.frames_dir),
    }


def frame_files_kib(folder: str) -> int:
    """KiB the frame files in `folder` hold (allocated blocks: a freed frame's punched pages count 0).

    The workers' PSS sees only the pages they map and touched, and a tmpfs keeps a file's pages
    whoever maps them, so the files themselves are the honest measure."""
    if not folder:
        return 0
    total = 0
    for path in Path(folder).glob("*.frame"):
        try:
            total += path.stat().st_blocks * 512 // 1024
        except OSError:
            continue  # removed meanwhile
    return total


def pss_by_mapping(pid: int) -> dict[str, int]:
    """PSS in KiB of `pid`'s mappings by path (`[heap]`, `[stack]`; `[anon]` for those without a
    name); empty when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except OSError:
        return {}
    sizes: dict[str, int] = {}
    name = "[anon]"
    for line in text.splitlines():
        parts = line.split(maxsplit=5)
        if parts and "-" in parts[0] and not parts[0].endswith(":"):  # a mapping's first line
            name = parts[5] if len(parts) > 5 else "[anon]"
        elif parts and parts[0] == "Pss:":
            sizes[name] = sizes.get(name, 0) + int(parts[1])
    return sizes


def mapped_kib(pid: int, folder: str) -> int:
    """PSS in KiB of the mappings of `pid` whose file lies in `folder` (0 for no folder)."""
    if not folder:
        return 0
    prefix = f"{folder.rstrip('/')}/"
    return sum(kib for path, kib in pss_by_mapping(pid).items() if path.startswith(prefix))


def wait_settled(pids: list[int], timeout: float = 10.0, every: float = 0.5) -> float:
    """Wait until `pids` are idle and stop growing (CPU under a tenth of a core, PSS within 2 %);
    returns the seconds waited.

    `up` returns as soon as the devices are ready, when the watchdog it just spawned is still
    importing: measured then, it weighs nothing and "at boot" reads low.
    """
    start = time.monotonic()
    cpu = sum(process_cpu_s(p) for p in pids)
    pss = sum(procs.memory_kib(p) for p in pids)
    while time.monotonic() - start < timeout:
        time.sleep(every)
        cpu_now = sum(process_cpu_s(p) for p in pids)
        pss_now = sum(procs.memory_kib(p) for p in pids)
        if cpu_now - cpu < 0.1 * every and abs(pss_now - pss) <= 0.02 * max(pss, 1):
            break
        cpu, pss = cpu_now, pss_now
    return time.monotonic() - start


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of all threads of `pid` (0 when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rsplit(")", 1)[-1].split()  # the command name may hold spaces and parentheses
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime: fields 14 and 15


def _containers_cpu_s(farm: FarmState) -> float:
    """CPU seconds the farm's running containers used since they started."""
    from mgfarm.farm.health import backend_of

    total = 0
    for container in backend_of(farm).farm_containers(farm.name):  # type: ignore[attr-defined]
        if container.status == "running":
            stats: dict[str, Any] = container.stats(stream=False, one_shot=True)
            total += int(stats.get("cpu_stats", {}).get("cpu_usage", {}).get("total_usage", 0))
    return total / 1e9


def cpu_s(farm: FarmState, found: FarmProcesses) -> dict[str, float]:
    """CPU seconds used so far by each group in GROUPS; subtract two readings for a window."""
    sim = _containers_cpu_s(farm) if found.containers else sum(process_cpu_s(p) for p in found.sim)
    return {
        "sim": sim,
        "adb": sum(process_cpu_s(p) for p in found.adb),
        "watchdog": sum(process_cpu_s(p) for p in found.watchdog),
        # The client is this process: every thread stepping envs, at nanosecond resolution.
        "client": time.process_time(),
    }


def cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU seconds each group used between two readings (a process that vanished counts 0, not less)."""
    return {group: max(0.0, after.get(group, 0.0) - before.get(group, 0.0)) for group in after}


def add_cpu(total: dict[str, float], more: dict[str, float]) -> dict[str, float]:
    """Two windows' CPU seconds added group by group."""
    return {g: total.get(g, 0.0) + more.get(g, 0.0) for g in {*total, *more}}


def cpu_ms_per_step(cpu: dict[str, float], steps: int) -> float:
    """All groups' CPU over a window in milliseconds per step (0 for an empty window)."""
    return 1000.0 * sum(cpu.values()) / steps if steps else 0.0
