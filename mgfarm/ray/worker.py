"""The env worker: one `MobileEnv` on one replica of the farm of the node Ray placed it on."""

from __future__ import annotations

import contextlib
from typing import Any

from mgfarm.ray.farm_actor import current_node_id
from mgfarm.ray.resources import farm_name

StepResult = tuple[Any, float, bool, bool, dict[str, Any]]


def failure_reason(exc: BaseException) -> str:
    """One line naming what went wrong, for the episode's info."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}".rstrip(": ")


class EnvWorker:
    """Runs episodes on the local farm; a failure becomes a failed episode, never a crash."""

    def __init__(self, task_ids: list[str], env_kwargs: dict[str, Any]) -> None:
        self.node_id = current_node_id()
        self.farm = farm_name(self.node_id)
        self.task_ids = task_ids
        self.env_kwargs = env_kwargs
        self.env: Any = None

    def where(self) -> dict[str, str]:
        return {"node_id": self.node_id, "farm": self.farm}

    def _tag(self, info: dict[str, Any]) -> dict[str, Any]:
        return {**info, "node_id": self.node_id, "farm": self.farm}

    def reset(self, seed: int) -> tuple[Any, dict[str, Any]]:
        """Start an episode; the env (and its replica lease) is made on first use and then kept."""
        from mgfarm.wrappers import make

        try:
            if self.env is None:
                # Built like the local pool's envs, on this node's farm.
                self.env = make(None, None, self.farm, tasks=self.task_ids, **self.env_kwargs)
            obs, info = self.env.reset(seed=seed)
        except Exception as exc:  # a lost replica or farm must fail the episode, not the pool
            self.close()
            return None, self._tag({"failed": failure_reason(exc)})
        return obs, self._tag(info)

    def spaces(self) -> tuple[Any, Any]:
        """The env's observation and action spaces; the env is made here when no reset made it yet."""
        from mgfarm.wrappers import make

        if self.env is None:
            self.env = make(None, None, self.farm, tasks=self.task_ids, **self.env_kwargs)
        return self.env.observation_space, self.env.action_space

    def step(self, action: Any) -> StepResult:
        """One action; an env that broke underneath ends the episode as failed (truncated)."""
        if self.env is None:
            return None, 0.0, False, True, self._tag({"failed": "no episode is running; reset first"})
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except Exception as exc:
            self.close()
            return None, 0.0, False, True, self._tag({"failed": failure_reason(exc)})
        return obs, float(reward), bool(terminated), bool(truncated), self._tag(info)

    def close(self) -> None:
        if self.env is not None:
            env, self.env = self.env, None
            with contextlib.suppress(Exception):  # closing a broken env must not hide why it broke
                env.close()
