"""One benchmark run: for each replica count, start a farm, measure, stop it; then summarise."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mgfarm
from mgfarm.adb import server as adbserver
from mgfarm.bench.measure import PACED, FarmRun, UpSample, WindowSample, measure_farm, measure_up
from mgfarm.bench.stats import summarize
from mgfarm.bench.workloads import WORKLOADS
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.backends import DEFAULT_BACKEND
from mgfarm.farm.ports import free_port
from mgfarm.farm.state import farm_exists

Progress = Callable[[str], None]  # called once per finished phase with what comes next


@dataclass
class BenchConfig:
    """What to measure; `quick` picks small counts that finish in minutes on a 2-core machine."""

    backend: str = DEFAULT_BACKEND
    replicas: list[int] = field(default_factory=lambda: [1, 8, 64])
    image: str = ""
    task: str = ""
    cold_starts: int = 3  # extra up/down cycles of one replica for the cold-start distribution
    episodes: int = 3  # reset/judge episodes per replica
    steps: int = 10  # mixed steps in each of those episodes
    # Each workload's window: its first `warmup` steps per env are not counted (a fresh device's
    # first renders), then at least `window` steps per env are.
    warmup: int = 10
    window: int = 100
    boot_timeout: float = 300.0
    # Observations 1/screen_scale of the screen a side, resized in the device (the env's screen_scale).
    screen_scale: int = 1

    @classmethod
    def quick(
        cls, backend: str = DEFAULT_BACKEND, replicas: list[int] | None = None, image: str = ""
    ) -> BenchConfig:
        return cls(
            backend, replicas or [1, 4, 16], image, cold_starts=3, episodes=3, steps=5, warmup=10, window=50
        )

    def phases(self) -> int:
        """Progress steps: each cold start, and up + env for each replica count."""
        return self.cold_starts + 2 * len(self.replicas)


def parse_replicas(text: str) -> list[int]:
    """'1,8,64' -> [1, 8, 64]; a clear error for anything else."""
    try:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise MgfarmError(
            f"--replicas {text!r} is not a list of numbers; use e.g. --replicas 1,8,64."
        ) from None
    if not counts or counts[0] < 1:
        raise MgfarmError(f"--replicas {text!r} needs counts of at least 1; use e.g. --replicas 1,8,64.")
    return counts


def pick_task(requested: str) -> str:
    """The task episodes run: the requested one, else the first of the smoke suite."""
    from mgfarm.catalog import load_catalog

    catalog = load_catalog()
    if requested:
        return catalog.get(requested).id
    return catalog.suite("smoke")[0].id


def machine() -> dict[str, Any]:
    """What produced the numbers."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "load_average": [round(v, 1) for v in os.getloadavg()],
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_gib, 1),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "mgfarm": mgfarm.__version__,
        "commit": _git_commit(),
    }


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except OSError:
        return ""
    return out.stdout.strip()


def _farm_name(replicas: int) -> str:
    return f"bench-{replicas}"


def _stop(name: str) -> None:
    if farm_exists(name):
        api.down(name)


def run(config: BenchConfig, progress: Progress | None = None) -> dict[str, Any]:
    """Measure everything in `config`; farms are named bench-N and always stopped afterwards."""
    say = progress or (lambda _msg: None)
    task = pick_task(config.task)
    adb_port = free_port()
    # One adb server for the whole run, as a user's managed server outlives their farms.
    load = machine()["load_average"]  # before the bench adds its own load
    server_pid = adbserver.ensure_server(adb_port)
    try:
        cold, ups, runs = _measure_all(config, task, adb_port, server_pid, say)
    finally:
        if server_pid:
            adbserver.kill_server(adb_port)
    return summarise(config, task, cold, ups, runs, load)


def _measure_all(
    config: BenchConfig, task: str, adb_port: int, server_pid: int, say: Progress
) -> tuple[list[float], list[UpSample], list[FarmRun]]:
    cold: list[float] = []
    ups: list[UpSample] = []
    runs: list[FarmRun] = []
    for i in range(config.cold_starts):
        say(f"cold start {i + 1}/{config.cold_starts}")
        try:
            cold.append(
                measure_up(1, config.backend, "bench-cold", adb_port, config.image, settle=False).all_ready_s
            )
        finally:
            _stop("bench-cold")
    for count in config.replicas:
        name = _farm_name(count)
        try:
            say(f"up --replicas {count}")
            up = measure_up(
                count, config.backend, name, adb_port, config.image, config.boot_timeout, server_pid
            )
            ups.append(up)
            say(f"apps, episodes and workloads on {count} replicas")
            runs.append(
                measure_farm(
                    name,
                    up,
                    task,
                    config.episodes,
                    config.steps,
                    config.warmup,
                    config.window,
                    server_pid,
                    config.screen_scale,
                )
            )
        finally:
            _stop(name)
    return cold, ups, runs


def window_summary(window: WindowSample) -> dict[str, Any]:
    """One workload's steady window at one replica count, for bench.json."""
    return {
        "step_ms": summarize(window.step_ms),
        "steps_per_s": round(window.steps_per_s, 1),
        "cpu_ms_per_step": round(window.cpu_ms_per_step, 1),
        "cpu_ms_per_step_by_group": {
            group: round(1000 * seconds / window.steps, 2) if window.steps else 0.0
            for group, seconds in sorted(window.cpu_s.items())
        },
        "steps": window.steps,
        "wall_s": round(window.wall_s, 2),
        "uncounted_steps": window.uncounted,
        "off_plan_steps": window.off_plan,
    }


def summarise(
    config: BenchConfig,
    task: str,
    cold: list[float],
    ups: list[UpSample],
    runs: list[FarmRun],
    load_average: list[float] | None = None,
) -> dict[str, Any]:
    """The bench.json document: settings, machine, and per replica count medians and p99s.

    `load_average`: the host's load when the run started (the end's is in `machine`).
    """
    rows = []
    for up, run_ in zip(ups, runs, strict=True):
        env = run_.env
        working = up.working_mib_per_replica or up.memory_mib_per_replica
        rows.append(
            {
                "replicas": up.replicas,
                "up_all_ready_s": round(up.all_ready_s, 2),
                "replica_ready_s": summarize(up.replica_ready_s),
                "memory_mib_per_replica": round(working, 1),
                "memory_mib_per_replica_at_boot": round(up.memory_mib_per_replica, 1),
                "memory_mib_per_replica_apps_opened": round(up.apps_mib_per_replica, 1),
                "memory_mib_per_replica_idle": round(up.idle_mib_per_replica, 1),
                "memory_mib_total": round(working * up.replicas, 1),
                **(
                    {"memory_mib_per_replica_paced": round(up.paced_mib_per_replica, 1)}
                    if run_.paced is not None
                    else {}
                ),
                "memory_kib_by_group": up.memory_kib,
                "apps_opened": run_.apps_opened,
                "reset_ms": summarize(env.reset_ms),
                "judge_ms": summarize(env.judge_ms),
                "failed_episodes": env.failed_episodes,
                "workloads": {
                    **{w: window_summary(run_.windows[w]) for w in WORKLOADS if w in run_.windows},
                    **({PACED: window_summary(run_.paced)} if run_.paced is not None else {}),
                },
                "samples": {
                    "reset_ms": env.reset_ms,
                    "judge_ms": env.judge_ms,
                    **{f"{w}_step_ms": run_.windows[w].step_ms for w in WORKLOADS if w in run_.windows},
                },
            }
        )
    now = machine()
    start = load_average if load_average is not None else now["load_average"]
    return {
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": command_line(config),
        "machine": {**now, "load_average": start, "load_average_at_end": now["load_average"]},
        "settings": {
            "backend": config.backend,
            "image": config.image,
            "task": task,
            "replicas": config.replicas,
            "episodes_per_env": config.episodes,
            "steps_per_episode": config.steps,
            "warmup_steps": config.warmup,
            "window_steps": config.window,
            "screen_scale": config.screen_scale,
        },
        "cold_start_s": {**summarize(cold), "samples": [round(c, 3) for c in cold]},
        "rows": rows,
    }


def command_line(config: BenchConfig) -> str:
    parts = [
        "mgfarm bench",
        f"--backend {config.backend}",
        "--replicas " + ",".join(map(str, config.replicas)),
    ]
    if config.image:
        parts.append(f"--image {config.image}")
    if config.screen_scale != 1:
        parts.append(f"--screen-scale {config.screen_scale}")
    if config.steps == BenchConfig.quick().steps and config.episodes == BenchConfig.quick().episodes:
        parts.append("--quick")
    return " ".join(parts)
