"""`EnvPool`: many `MobileEnv`s on leased replicas, reset and stepped in parallel threads.

The work is I/O (adb round trips to device processes), so threads overlap it well. Episodes that
ended are reset on the next `step_all` (gymnasium's next-step autoreset): the action given for
such an env is ignored and its reset observation is returned with `info["autoreset"] = True`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np

from mgfarm.catalog import load_catalog
from mgfarm.env.batching import check_step_async, outstanding
from mgfarm.env.recorder import Recorder
from mgfarm.errors import MgfarmError
from mgfarm.tasks.catalog import Catalog
from mgfarm.wrappers import make

StepResult = tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]


def _timings(env: gymnasium.Env[Any, Any]) -> dict[str, float]:
    """The last reset's or step's timings of an env (under its wrappers); none for other envs."""
    timings: dict[str, float] = getattr(env.unwrapped, "last_timings", {})
    return timings


def resolve_tasks(tasks: str | Sequence[str], catalog: Catalog) -> list[str]:
    """Task ids of `catalog` from a suite name (`train`, `test`, `smoke`, an app) or ids / glob patterns."""
    if isinstance(tasks, str):
        return [t.id for t in catalog.suite(tasks)]
    return [t.id for t in catalog.select(list(tasks))]


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else 0.0


@dataclass
class PoolStats:
    """Timings of every reset and step the pool ran (milliseconds), and its throughput."""

    reset_ms: list[float] = field(default_factory=list)
    step_ms: list[float] = field(default_factory=list)
    parts_ms: dict[str, list[float]] = field(default_factory=dict)
    steps: int = 0
    step_wall_s: float = 0.0
    failed_episodes: int = 0
    episodes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record_reset(self, ms: float | None, timings: dict[str, float] | None = None) -> None:
        """A reset that took `ms` (with its parts), or a failed one (None)."""
        with self._lock:
            if ms is None:
                self.failed_episodes += 1
                return
            self.reset_ms.append(ms)
            self.episodes += 1
            for key, value in (timings or {}).items():
                if key != "total_ms":
                    self.parts_ms.setdefault(f"reset.{key}", []).append(value)

    def record_step(self, info: dict[str, Any], timings: dict[str, float]) -> None:
        with self._lock:
            self.steps += 1
            if "total_ms" in timings:
                self.step_ms.append(timings["total_ms"])
            for key, value in timings.items():
                if key != "total_ms":
                    self.parts_ms.setdefault(f"step.{key}", []).append(value)
            if info.get("failed"):
                self.failed_episodes += 1

    def summary(self) -> dict[str, Any]:
        return {
            "resets": len(self.reset_ms),
            "reset_p50_ms": round(percentile(self.reset_ms, 50), 2),
            "reset_p99_ms": round(percentile(self.reset_ms, 99), 2),
            "steps": self.steps,
            "step_p50_ms": round(percentile(self.step_ms, 50), 2),
            "step_p99_ms": round(percentile(self.step_ms, 99), 2),
            "steps_per_s": round(self.steps / self.step_wall_s, 2) if self.step_wall_s else 0.0,
            "episodes": self.episodes,
            "failed_episodes": self.failed_episodes,
            "mean_parts_ms": {k: round(float(np.mean(v)), 2) for k, v in sorted(self.parts_ms.items())},
        }


class EnvPool:
    """`size` envs on `size` leased replicas of a farm, each drawing tasks from `tasks`."""

    def __init__(
        self,
        farm: str | None = None,
        size: int = 8,
        tasks: str | Sequence[str] = "train",
        seed: int = 0,
        record: str | None = None,
        first_index: int = 0,
        **env_kwargs: Any,
    ) -> None:
        """`first_index`: the index of this pool's first env in a larger batch (a `ProcessEnvPool`
        worker holds envs `first_index..`), so episode seeds do not depend on how envs are split."""
        if size < 1:
            raise MgfarmError(f"size={size} is too small; an EnvPool needs at least 1 env.")
        # One catalog for every env of the pool (`catalog=` in env_kwargs, else the bundled one).
        catalog = env_kwargs["catalog"] = env_kwargs.get("catalog") or load_catalog()
        task_ids = resolve_tasks(tasks, catalog)
        recorder = Recorder(record) if record else None
        threads = ThreadPoolExecutor(max_workers=size, thread_name_prefix="mgfarm-pool")
        futures = [
            threads.submit(make, None, None, farm, tasks=task_ids, record=recorder, **env_kwargs)
            for _ in range(size)
        ]
        envs: list[gymnasium.Env[Any, Any]] = []
        errors: list[BaseException] = []
        for fut in futures:
            try:
                envs.append(fut.result())
            except BaseException as exc:  # keep going so every leased replica is released below
                errors.append(exc)
        if errors:
            for env in envs:
                env.close()
            threads.shutdown(wait=True)
            raise errors[0]
        self._start(envs, task_ids, seed, threads, first_index)

    @classmethod
    def of(cls, envs: Sequence[gymnasium.Env[Any, Any]], seed: int = 0) -> EnvPool:
        """A pool over envs made elsewhere: any envs with `MobileEnv`'s spaces and step results."""
        if not envs:
            raise MgfarmError("EnvPool.of needs at least 1 env.")
        pool = cls.__new__(cls)
        threads = ThreadPoolExecutor(max_workers=len(envs), thread_name_prefix="mgfarm-pool")
        pool._start(list(envs), [], seed, threads)
        return pool

    def _start(
        self,
        envs: list[Any],
        task_ids: list[str],
        seed: int,
        threads: ThreadPoolExecutor,
        first_index: int = 0,
    ) -> None:
        self.envs = envs
        self.first_index = first_index
        self.task_ids = task_ids
        self.seed = seed
        self.size = len(envs)
        self.stats = PoolStats()
        self._threads = threads
        self._episode_counts = [0] * self.size
        self._needs_reset = [True] * self.size
        self._last_obs: list[dict[str, Any] | None] = [None] * self.size
        self._pending: list[Future[StepResult]] | None = None
        self._pending_start = 0.0

    def __len__(self) -> int:
        return self.size

    def spaces(self) -> tuple[gymnasium.Space[Any], gymnasium.Space[Any]]:
        """The observation and action space of one env (all envs of a pool share them)."""
        return self.envs[0].observation_space, self.envs[0].action_space

    def _episode_seed(self, index: int) -> int:
        """Reproducible per-episode seeds: a function of (pool seed, env index, episode number)."""
        seq = np.random.SeedSequence([self.seed, self.first_index + index, self._episode_counts[index]])
        return int(seq.generate_state(1)[0] % (2**31))

    def _reset_one(self, index: int) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        env = self.envs[index]
        seed = self._episode_seed(index)
        self._episode_counts[index] += 1
        start = time.perf_counter()
        try:
            obs, info = env.reset(seed=seed)
        except MgfarmError as exc:
            # No replica to continue on right now: report it and retry at the next call.
            self._needs_reset[index] = True
            self.stats.record_reset(None)
            return self._last_obs[index], {"failed": str(exc), "autoreset": True}
        self.stats.record_reset((time.perf_counter() - start) * 1000, _timings(env))
        self._needs_reset[index] = False
        self._last_obs[index] = obs
        return obs, info

    def _step_one(self, index: int, action: Any) -> StepResult:
        if self._needs_reset[index]:
            obs, info = self._reset_one(index)
            info["autoreset"] = True
            return obs, 0.0, False, False, info
        obs, reward, terminated, truncated, info = self.envs[index].step(action)
        self.stats.record_step(info, _timings(self.envs[index]))
        if terminated or truncated:
            self._needs_reset[index] = True
        self._last_obs[index] = obs
        return obs, reward, terminated, truncated, info

    def reset_all(self, seed: int | None = None) -> tuple[list[dict[str, Any] | None], list[dict[str, Any]]]:
        """Start a new episode in every env (in parallel); `seed` restarts the episode seeds from it."""
        if seed is not None:
            self.seed, self._episode_counts = seed, [0] * self.size
        results = list(self._threads.map(self._reset_one, range(self.size)))
        return [r[0] for r in results], [r[1] for r in results]

    def step_async(self, actions: Sequence[Any]) -> None:
        check_step_async(self.size, actions, self._pending)
        self._pending_start = time.perf_counter()
        self._pending = [self._threads.submit(self._step_one, i, a) for i, a in enumerate(actions)]

    def step_wait(
        self,
    ) -> tuple[list[dict[str, Any] | None], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        results = [f.result() for f in outstanding(self._pending)]
        self._pending = None
        self.stats.step_wall_s += time.perf_counter() - self._pending_start
        return (
            [r[0] for r in results],
            [r[1] for r in results],
            [r[2] for r in results],
            [r[3] for r in results],
            [r[4] for r in results],
        )

    def step_all(
        self, actions: Sequence[Any]
    ) -> tuple[list[dict[str, Any] | None], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """One step in every env (in parallel); ended episodes are reset instead."""
        self.step_async(actions)
        return self.step_wait()

    def map(self, fn: Callable[[Any], Any]) -> list[Any]:
        """Run `fn(env)` on every env in parallel (e.g. a scripted agent)."""
        return list(self._threads.map(fn, self.envs))

    def close(self) -> None:
        for env in self.envs:
            env.close()
        self.envs = []
        self._threads.shutdown(wait=True)

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
