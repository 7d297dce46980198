"""The measurements themselves, each against a farm started through `mgfarm.farm.api` like a user's."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mgfarm.bench import usage
from mgfarm.bench.workloads import (
    MIXED,
    NEW_FRAME,
    counted,
    mixed_action,
    new_frame_action,
    new_frame_counted,
    steps_for,
)
from mgfarm.farm.ports import quiet_range_start
from mgfarm.farm.state import Replica, load_farm
from mgfarm.snapshots.farm import up as farm_up

scripted_action = mixed_action  # the name benchmarks/bench_env.py imports


@dataclass
class UpSample:
    """One `up --replicas N` run: when each replica became ready, and the farm's memory then."""

    replicas: int
    all_ready_s: float
    replica_ready_s: list[float]
    memory_mib_per_replica: float  # right after boot
    working_mib_per_replica: float = 0.0  # after the episodes: apps opened, both workloads run
    apps_mib_per_replica: float = 0.0  # after every app was opened on every replica
    paced_mib_per_replica: float = 0.0  # while envs step at an agent's pace (`run_paced`)
    idle_mib_per_replica: float = 0.0  # after the episodes, once the devices idled (kept heap trimmed)
    memory_kib: dict[str, dict[str, int]] = field(default_factory=dict)  # moment -> group -> KiB


@dataclass
class EnvSample:
    """Episodes run on every replica of a farm through EnvPool."""

    size: int
    reset_ms: list[float] = field(default_factory=list)
    step_ms: list[float] = field(default_factory=list)
    judge_ms: list[float] = field(default_factory=list)
    steps: int = 0
    step_wall_s: float = 0.0
    failed_episodes: int = 0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.step_wall_s if self.step_wall_s else 0.0


@dataclass
class WindowSample:
    """The steady window of one workload on a farm: only its counted steps, their time and CPU."""

    workload: str
    size: int
    step_ms: list[float] = field(default_factory=list)
    steps: int = 0  # counted steps, all envs together
    wall_s: float = 0.0  # wall time of the counted `step_all` calls
    cpu_s: dict[str, float] = field(default_factory=dict)  # group -> CPU seconds in those calls
    uncounted: int = 0  # steps run but not counted (warm-up, navigation, off plan), all envs
    off_plan: int = 0  # steps where an env was not where the plan expected it

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.wall_s if self.wall_s else 0.0

    @property
    def cpu_ms_per_step(self) -> float:
        return usage.cpu_ms_per_step(self.cpu_s, self.steps)


def measure_up(
    replicas: int,
    backend: str,
    name: str,
    adb_port: int,
    image: str = "",
    boot_timeout: float = 300.0,
    adb_server_pid: int = 0,
    settle: bool = True,
) -> UpSample:
    """Time `up` to all-ready (and each replica's own ready time); leaves the farm running.

    `settle`: let the watchdog finish starting before the boot memory is read (not for cold starts,
    whose memory nobody reads)."""
    ready: list[float] = []
    start = time.perf_counter()

    def on_progress(_rep: Replica, _done: int, _total: int) -> None:
        ready.append(time.perf_counter() - start)

    farm_up(
        replicas,
        backend=backend,
        name=name,
        image=image,
        adb_port=adb_port,
        first_port=quiet_range_start(replicas),
        boot_timeout=boot_timeout,
        on_progress=on_progress,
    )
    all_ready = time.perf_counter() - start
    if settle:
        usage.wait_settled(usage.farm_processes(load_farm(name), adb_server_pid).watchdog)
    kib = farm_memory_kib(name, adb_server_pid)
    return UpSample(
        replicas=replicas,
        all_ready_s=all_ready,
        replica_ready_s=ready,
        memory_mib_per_replica=per_replica_mib(kib, replicas),
        memory_kib={"boot": kib},
    )


def farm_memory_kib(name: str, adb_server_pid: int = 0) -> dict[str, int]:
    """The farm's memory by group: devices (worker PSS or containers), adb server and watchdog."""
    farm = load_farm(name)
    return usage.memory_kib(farm, usage.farm_processes(farm, adb_server_pid))


def per_replica_mib(kib: dict[str, int], replicas: int) -> float:
    """Every process of the farm together, divided by its replicas."""
    return sum(kib.values()) / 1024 / max(1, replicas)


def memory_mib_per_replica(name: str) -> float:
    """The farm's memory (devices, adb server it started, watchdog) divided by its replicas."""
    return per_replica_mib(farm_memory_kib(name), len(load_farm(name).replicas))


DONE_ACTION = {"action_type": "status", "goal_status": "complete"}


def _timings(pool: Any) -> list[dict[str, float]]:
    """Each env's timings of its last reset or step (the env keeps them out of `info`)."""
    return [dict(env.unwrapped.last_timings) for env in pool.envs]


def run_episodes(pool: Any, sample: EnvSample, episodes: int, steps: int) -> None:
    """Reset, `steps` mixed steps and a final `status` (which runs the judge), `episodes` times."""
    size = len(pool)
    for _ in range(episodes):
        obs, _ = pool.reset_all()
        sample.reset_ms += [t["total_ms"] for t in _timings(pool) if "total_ms" in t]
        for step in range(steps):
            actions = [mixed_action(step, o, i) for i, o in enumerate(obs)]
            start = time.perf_counter()
            obs, _, _, _, _ = pool.step_all(actions)
            sample.step_wall_s += time.perf_counter() - start
            sample.steps += size
            sample.step_ms += [t["total_ms"] for t in _timings(pool) if "total_ms" in t]
        pool.step_all([DONE_ACTION] * size)
        sample.judge_ms += [t["judge_ms"] for t in _timings(pool) if "judge_ms" in t]
    sample.failed_episodes = pool.stats.failed_episodes


def measure_env(farm: str, size: int, task: str, episodes: int, steps: int) -> EnvSample:
    """Reset, `steps` scripted steps and a final `status` (which runs the judge), `episodes` times."""
    from mgfarm.env.pool import EnvPool

    sample = EnvSample(size=size)
    with EnvPool(farm=farm, size=size, tasks=[task], seed=size, max_steps=steps + 2) as pool:
        run_episodes(pool, sample, episodes, steps)
    return sample


def open_every_app(pool: Any) -> int:
    """A fresh episode on every env, then every installed package opened in turn (each step takes a
    screenshot and the UI tree). Packages without a launcher activity fail at once and cost little;
    returns how many opened."""
    pool.reset_all()
    packages = pool.envs[0].unwrapped.device.packages()
    opened = 0
    for package in packages:
        _, _, _, _, infos = pool.step_all([{"action_type": "open_app", "app_name": package}] * len(pool))
        opened += not infos[0].get("error")
    return opened


def measure_window(pool: Any, workload: str, warmup: int, window: int, cpu: Any) -> WindowSample:
    """One fresh episode per env running `workload`; only steps past warm-up (and, for new-frame,
    taps that bring a new number on screen) are timed and charged with CPU.

    `cpu()` reads the CPU seconds of every group so far. Consecutive counted steps form one
    segment read at its ends, so reading /proc costs nothing inside the timed calls.
    """
    size = len(pool)
    sample = WindowSample(workload=workload, size=size)
    obs, _ = pool.reset_all()
    is_counted = new_frame_counted if workload == NEW_FRAME else counted
    opened: dict[str, float] | None = None  # CPU reading at the start of the open segment
    for step in range(steps_for(workload, warmup, window)):
        if workload == NEW_FRAME:
            planned = [new_frame_action(step, o, i, size) for i, o in enumerate(obs)]
            actions = [a for a, _ in planned]
            on_plan = all(ok for _, ok in planned)
            sample.off_plan += sum(not ok for _, ok in planned)
        else:
            actions, on_plan = [mixed_action(step, o, i) for i, o in enumerate(obs)], True
        take = on_plan and is_counted(step, warmup)
        if not take:
            if opened is not None:
                sample.cpu_s = usage.add_cpu(sample.cpu_s, usage.cpu_delta(opened, cpu()))
                opened = None
            obs, _, _, _, _ = pool.step_all(actions)
            sample.uncounted += size
            continue
        if opened is None:
            opened = cpu()
        start = time.perf_counter()
        obs, _, _, _, _ = pool.step_all(actions)
        sample.wall_s += time.perf_counter() - start
        sample.steps += size
        sample.step_ms += [t["total_ms"] for t in _timings(pool) if "total_ms" in t]
    if opened is not None:
        sample.cpu_s = usage.add_cpu(sample.cpu_s, usage.cpu_delta(opened, cpu()))
    return sample


# An agent that thinks between steps (a model call): each env steps once in this many seconds.
PACED = "paced"
PACED_PERIOD_S = 2.0
PACED_ROUNDS = 3


def run_paced(
    pool: Any,
    cpu: Callable[[], dict[str, float]] = dict,
    period: float = PACED_PERIOD_S,
    rounds: int = PACED_ROUNDS,
) -> WindowSample:
    """A fresh episode per env, then mixed steps at an agent's pace: each env steps once every
    `period` seconds, the envs' turns spread evenly over the period, for `rounds` periods.

    `cpu()` reads the CPU seconds of every group so far (as for `measure_window`): the sample holds
    the CPU of the whole paced phase, waits included, and the steps' own times."""
    obs, _ = pool.reset_all()
    size = len(pool)
    sample = WindowSample(workload=PACED, size=size)
    before = cpu()
    start = time.perf_counter()
    for turn in range(size * rounds):
        index, step = turn % size, turn // size
        delay = start + turn * period / size - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        env = pool.envs[index]
        obs[index] = env.step(mixed_action(step, obs[index], index))[0]
        sample.steps += 1
        if "total_ms" in env.unwrapped.last_timings:
            sample.step_ms.append(env.unwrapped.last_timings["total_ms"])
    sample.wall_s = time.perf_counter() - start
    sample.cpu_s = usage.cpu_delta(before, cpu())
    return sample


@dataclass
class FarmRun:
    """Everything measured on one running farm after `up`."""

    env: EnvSample
    windows: dict[str, WindowSample]
    apps_opened: int
    paced: WindowSample | None = None


def measure_farm(
    name: str,
    up: UpSample,
    task: str,
    episodes: int,
    steps: int,
    warmup: int,
    window: int,
    adb_server_pid: int = 0,
    screen_scale: int = 1,
) -> FarmRun:
    """On a running farm: open every app on every replica, run the reset/judge episodes and both
    workloads' windows; `up` gains the memory after the apps, at the end ("working"), while the
    envs step at an agent's pace ("paced", `run_paced`) and once the envs stopped stepping and the
    workers settled ("idle": a worker hands its kept heap back).
    `screen_scale`: the envs' observation size (2: half the screen a side, resized in the device)."""
    from mgfarm.env.pool import EnvPool

    size = up.replicas
    farm = load_farm(name)
    found = usage.farm_processes(farm, adb_server_pid)
    sample = EnvSample(size=size)
    windows: dict[str, WindowSample] = {}
    # One episode must hold a whole workload window; the reset/judge episodes end themselves.
    longest = max(steps_for(w, warmup, window) for w in (MIXED, NEW_FRAME))
    with EnvPool(
        farm=name,
        size=size,
        tasks=[task],
        seed=size,
        max_steps=longest + steps + 2,
        screen_scale=screen_scale,
    ) as pool:
        opened = open_every_app(pool)
        up.memory_kib["apps"] = farm_memory_kib(name, adb_server_pid)
        up.apps_mib_per_replica = per_replica_mib(up.memory_kib["apps"], size)
        run_episodes(pool, sample, episodes, steps)
        for workload in (MIXED, NEW_FRAME):
            windows[workload] = measure_window(
                pool, workload, warmup, window, lambda: usage.cpu_s(farm, found)
            )
        up.memory_kib["working"] = farm_memory_kib(name, adb_server_pid)
        up.working_mib_per_replica = per_replica_mib(up.memory_kib["working"], size)
        paced = run_paced(pool, lambda: usage.cpu_s(farm, found))
        up.memory_kib["paced"] = farm_memory_kib(name, adb_server_pid)
        up.paced_mib_per_replica = per_replica_mib(up.memory_kib["paced"], size)
        # Windows of 2 s: a worker trims after an idle quarter second (mgfarm/sim/heap.py).
        usage.wait_settled(found.sim, timeout=20.0, every=2.0)
        up.memory_kib["idle"] = farm_memory_kib(name, adb_server_pid)
        up.idle_mib_per_replica = per_replica_mib(up.memory_kib["idle"], size)
    return FarmRun(sample, windows, opened, paced)
