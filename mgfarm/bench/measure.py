"""The measurements themselves, each against a farm started through `mgfarm.farm.api` like a user's."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from mgfarm.farm import api
from mgfarm.farm.health import backend_of
from mgfarm.farm.ports import quiet_range_start
from mgfarm.farm.state import Replica, load_farm


@dataclass
class UpSample:
    """One `up --replicas N` run: when each replica became ready, and the farm's memory then."""

    replicas: int
    all_ready_s: float
    replica_ready_s: list[float]
    memory_mib_per_replica: float  # right after boot
    working_mib_per_replica: float = 0.0  # after the episodes: screens rendered, UI servers up


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


def measure_up(
    replicas: int, backend: str, name: str, adb_port: int, image: str = "", boot_timeout: float = 300.0
) -> UpSample:
    """Time `up` to all-ready (and each replica's own ready time); leaves the farm running."""
    ready: list[float] = []
    start = time.perf_counter()

    def on_progress(_rep: Replica, _done: int, _total: int) -> None:
        ready.append(time.perf_counter() - start)

    api.up(
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
    return UpSample(
        replicas=replicas,
        all_ready_s=all_ready,
        replica_ready_s=ready,
        memory_mib_per_replica=memory_mib_per_replica(name),
    )


def memory_mib_per_replica(name: str) -> float:
    """The farm's device memory (worker PSS, or container memory) divided by its replicas."""
    farm = load_farm(name)
    return backend_of(farm).memory_kib(farm) / 1024 / max(1, len(farm.replicas))


def scripted_action(step: int, obs: dict[str, Any] | None, env: int = 0) -> dict[str, Any]:
    """Cheap actions that change the screen but never end the episode.

    Envs click different elements (`env` shifts the choice), so their trajectories part ways as
    an RL policy's would, rather than all showing the same screen at every step.
    """
    elements = obs["ui_elements"] if obs else ()
    choice = step % 3
    if choice == 0 and elements:
        return {"action_type": "click", "index": (step + env) % len(elements)}
    if choice == 1:
        return {"action_type": "scroll", "direction": "down"}
    return {"action_type": "navigate_back"}


DONE_ACTION = {"action_type": "status", "goal_status": "complete"}


def _timings(pool: Any) -> list[dict[str, float]]:
    """Each env's timings of its last reset or step (the env keeps them out of `info`)."""
    return [dict(env.last_timings) for env in pool.envs]


def measure_env(farm: str, size: int, task: str, episodes: int, steps: int) -> EnvSample:
    """Reset, `steps` scripted steps and a final `status` (which runs the judge), `episodes` times."""
    from mgfarm.env.pool import EnvPool

    sample = EnvSample(size=size)
    with EnvPool(farm=farm, size=size, tasks=[task], seed=size, max_steps=steps + 2) as pool:
        for _ in range(episodes):
            obs, _ = pool.reset_all()
            sample.reset_ms += [t["total_ms"] for t in _timings(pool) if "total_ms" in t]
            for step in range(steps):
                actions = [scripted_action(step, o, i) for i, o in enumerate(obs)]
                start = time.perf_counter()
                obs, _, _, _, _ = pool.step_all(actions)
                sample.step_wall_s += time.perf_counter() - start
                sample.steps += size
                sample.step_ms += [t["total_ms"] for t in _timings(pool) if "total_ms" in t]
            pool.step_all([DONE_ACTION] * size)
            sample.judge_ms += [t["judge_ms"] for t in _timings(pool) if "judge_ms" in t]
        sample.failed_episodes = pool.stats.failed_episodes
    return sample
