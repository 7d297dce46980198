"""`MobileVectorEnv`: a Gymnasium `VectorEnv` over an env pool (threads: `EnvPool`, worker processes:
`ProcessEnvPool`, Ray: `RayEnvPool`).

Both pools run next-step autoreset: the step after an episode ended resets that env, ignores its
action and returns the reset observation with reward 0, not terminated, not truncated. This class
batches what a pool returns the way Gymnasium's vector API promises: observations stacked into
`observation_space` (screenshots as one (N, H, W, 3) array), rewards and flags as arrays, infos as one
dict of arrays with a `_key` mask per key, and never a `None` observation.
"""

from __future__ import annotations

import copy as copying
from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mgfarm.env.spaces import shaped_box
from mgfarm.errors import MgfarmError

Observation = dict[str, Any]
Batch = tuple[list[Any], list[float], list[bool], list[bool], list[dict[str, Any]]]


class EnvBatch(Protocol):
    """What `MobileVectorEnv` drives; `EnvPool` and `RayEnvPool` both are one."""

    def __len__(self) -> int: ...

    def spaces(self) -> tuple[gymnasium.Space[Any], gymnasium.Space[Any]]:
        """The observation and action space of one env."""
        ...

    def reset_all(self, seed: int | None = None) -> tuple[list[Any], list[dict[str, Any]]]:
        """A new episode in every env; a seed restarts the pool's per-episode seeds from it."""
        ...

    def step_async(self, actions: Sequence[Any]) -> None: ...

    def step_wait(self) -> Batch: ...

    def close(self) -> None: ...


class SharedBatch(EnvBatch, Protocol):
    """A pool that keeps every env's latest array observations in one batch (`ProcessEnvPool`)."""

    def shared_arrays(self) -> dict[str, np.ndarray]:
        """(num_envs, *shape) per array key, read-only; overwritten by the next step."""
        ...


def blank_observation(space: gymnasium.spaces.Dict) -> Observation:
    """An observation of `space` that shows nothing: a black screen, no elements, no goal.

    Stands in for an env that has not had a single episode yet (its replica could not start one), so
    a batch never holds `None`.
    """
    obs: Observation = {"ui_elements": (), "goal": ""}
    shot = space.spaces.get("screenshot")
    if isinstance(shot, gymnasium.spaces.Box):
        obs["screenshot"] = np.zeros(shot.shape, dtype=shot.dtype)
    return obs


def batched_space(single: gymnasium.spaces.Dict, n: int) -> gymnasium.spaces.Dict:
    """`batch_space(single, n)`, with each Box's bounds a view of the single space's.

    Gymnasium's `batch_space` tiles a Box's bounds n times and checks them element by element: for
    64 full-size screenshots that is two 500 MB arrays and ~15 s of CPU, the bulk of `make_vec`.
    """
    batched = {
        key: _batched_box(sub, n) if isinstance(sub, gymnasium.spaces.Box) else batch_space(sub, n)
        for key, sub in single.spaces.items()
    }
    return gymnasium.spaces.Dict(batched, seed=copying.deepcopy(single.np_random))


def _batched_box(single: gymnasium.spaces.Box, n: int) -> gymnasium.spaces.Box:
    """A Box equal to `batch_space(single, n)` whose bounds are read-only broadcasts of `single`'s
    (checked when `single` was made), so it costs neither memory nor a pass over n copies."""
    return shaped_box(single, (n, *single.shape))


class MobileVectorEnv(VectorEnv[dict[str, Any], Any, np.ndarray]):
    """`num_envs` mobile envs as one Gymnasium `VectorEnv` (next-step autoreset).

    Actions are a sequence of `num_envs` AndroidWorld actions (dicts or JSON text), one per env; the
    action of an env whose episode ended is ignored (it is reset). An episode that could not start
    (no replica free) comes back truncated with the reason in `infos["failed"]`, so the next step
    tries again. Build one with `make_vec(...)` or `gymnasium.make_vec("mgfarm/<task_id>", num_envs)`.

    `copy=False` (worker-process pools only) hands out the screenshots as a read-only view of the
    shared batch instead of a fresh array: no copy of N frames a step, but the next step overwrites
    it, so copy what must outlive a step.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, pool: EnvBatch, copy: bool = True) -> None:
        self.pool = pool
        self.copy = copy
        self.num_envs = len(pool)
        single_obs, single_action = pool.spaces()
        if not isinstance(single_obs, gymnasium.spaces.Dict):
            raise MgfarmError(f"A pool's observation space must be a Dict space, not {single_obs}.")
        self.single_observation_space: gymnasium.spaces.Dict = single_obs
        self.single_action_space = single_action
        self.observation_space = batched_space(single_obs, self.num_envs)
        self.action_space = batch_space(single_action, self.num_envs)
        self.render_mode = "rgb_array" if "screenshot" in single_obs.spaces else None
        self._last: list[Observation] = [blank_observation(single_obs)] * self.num_envs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new episode in every env; `seed` makes the whole run's episode seeds reproducible."""
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise MgfarmError(
                f"seed={seed!r} must be one int: each env's episodes get seeds derived from it."
            )
        if options:
            raise MgfarmError(
                f"reset(options={options!r}) is not supported: the pool draws each episode's task from "
                "its tasks; build the env with the task ids instead."
            )
        super().reset(seed=None if seed is None else int(seed))
        obs, infos = self.pool.reset_all(seed=None if seed is None else int(seed))
        return self._observations(obs), self._infos(infos)

    def step(self, actions: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per env, run in parallel; ended episodes are reset instead (action ignored)."""
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions: Any) -> None:
        """Send one action per env; collect the results with `step_wait`."""
        batch = list(actions) if not isinstance(actions, (str, dict)) else None
        if batch is None or len(batch) != self.num_envs:
            raise MgfarmError(
                f"step needs a sequence of {self.num_envs} actions (one per env), got {actions!r:.80}."
            )
        self.pool.step_async(batch)

    def step_wait(self) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self.pool.step_wait()
        truncations = np.array(truncated, dtype=np.bool_)
        for i, info in enumerate(infos):
            if info.get("autoreset") and info.get("failed"):
                # No episode started: report it ended, so the next step (an autoreset) tries again.
                truncations[i] = True
        return (
            self._observations(obs),
            np.array(rewards, dtype=np.float64),
            np.array(terminated, dtype=np.bool_),
            truncations,
            self._infos(infos),
        )

    def render(self) -> tuple[np.ndarray, ...] | None:
        """The latest screenshot of every env (rgb_array), or None for text-only envs."""
        if self.render_mode != "rgb_array":
            return None
        return tuple(np.asarray(o["screenshot"]) for o in self._last)

    def close_extras(self, **kwargs: Any) -> None:
        self.pool.close()

    def __enter__(self) -> MobileVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _observations(self, observations: Sequence[Observation | None]) -> dict[str, Any]:
        """One batched observation; an env without a new one repeats its last (or a blank) one.

        Arrays (the screenshots) are stacked into one array, everything else becomes a tuple: what
        `batch_space` declares; Gymnasium's `concatenate` would first fill a zeroed array, which
        costs about as much again as the stacking (4 screens: ~45 -> ~17 ms).
        """
        for i, obs in enumerate(observations):
            if obs is not None:
                self._last[i] = obs
        batch: dict[str, Any] = {}
        shared = self.pool.shared_arrays() if hasattr(self.pool, "shared_arrays") else {}
        for key, space in self.single_observation_space.spaces.items():
            if key in shared:  # the pool keeps the batch itself: each env's latest in its slot
                batch[key] = shared[key].copy() if self.copy else shared[key]
                continue
            values = [obs[key] for obs in self._last]
            if isinstance(space, gymnasium.spaces.Box):
                batch[key] = np.stack(values).astype(space.dtype, copy=False)
            else:
                batch[key] = tuple(values)
        return batch

    def _infos(self, infos: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Per-env info dicts as one dict of arrays, each with its `_key` mask (Gymnasium's layout)."""
        vector_infos: dict[str, Any] = {}
        for i, info in enumerate(infos):
            vector_infos = self._add_info(vector_infos, info, i)
        return vector_infos


def make_vec(
    num_envs: int = 1,
    task_id: str | None = None,
    *,
    tasks: str | Sequence[str] = "train",
    farm: str | None = None,
    seed: int = 0,
    ray_address: str | None = None,
    processes: int = 0,
    copy: bool = True,
    **env_kwargs: Any,
) -> MobileVectorEnv:
    """`num_envs` envs on leased replicas of `farm` (threads), or across a Ray cluster with `ray_address`.

    Each episode draws its task from `task_id` when given, else from `tasks` (a suite name, ids or glob
    patterns); `env_kwargs` go to every env (see `mgfarm.make`). `processes=K` (K > 1) runs the envs
    in K worker processes (`ProcessEnvPool`: adb I/O, PNG decoding and UI parsing leave the trainer's
    process and its GIL); 0 or 1 keeps them in this process. `copy`: see `MobileVectorEnv`.
    """
    selected: str | Sequence[str] = [task_id] if task_id else tasks
    if processes < 0:
        raise MgfarmError(f"processes={processes} must be 0 or 1 (in this process) or the number of workers.")
    pool: EnvBatch
    if ray_address is not None:
        if farm is not None:
            raise MgfarmError("Pass either farm= (local threads) or ray_address= (a Ray cluster), not both.")
        if processes > 1:
            raise MgfarmError("processes= is for a local farm; a Ray pool already runs envs in Ray actors.")
        from mgfarm.ray.pool import RayEnvPool

        pool = RayEnvPool(size=num_envs, tasks=selected, seed=seed, address=ray_address, **env_kwargs)
    elif processes > 1:
        from mgfarm.env.process_pool import ProcessEnvPool

        pool = ProcessEnvPool(
            farm=farm, size=num_envs, tasks=selected, seed=seed, processes=processes, **env_kwargs
        )
    else:
        from mgfarm.env.pool import EnvPool

        pool = EnvPool(farm=farm, size=num_envs, tasks=selected, seed=seed, **env_kwargs)
    return MobileVectorEnv(pool, copy=copy)
