"""The env worker: one gymnasium env on one replica of the farm of the node Ray placed it on."""

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

    def __init__(self, env_options: dict[str, Any]) -> None:
        self.node_id = current_node_id()
        self.farm = farm_name(self.node_id)
        self.env_options = env_options
        self.env: Any = None

    def where(self) -> dict[str, str]:
        return {"node_id": self.node_id, "farm": self.farm}

    def _tag(self, info: dict[str, Any]) -> dict[str, Any]:
        info = dict(info)
        info["node_id"] = self.node_id
        info["farm"] = self.farm
        return info

    def _failed(self, reason: str) -> dict[str, Any]:
        # The key the local env uses for an episode its replica broke under.
        return self._tag({"failed": reason})

    def reset(self, task_id: str, seed: int) -> tuple[Any, dict[str, Any]]:
        """Start an episode of `task_id`; the env (and its replica lease) is kept across episodes."""
        from mgfarm.env.env import make

        try:
            if self.env is None:
                self.env = make(task_id, seed=seed, farm=self.farm, **self.env_options)
            obs, info = self.env.reset(seed=seed, options={"task_id": task_id})
        except Exception as exc:  # a lost replica or farm must fail the episode, not the pool
            self.close()
            return None, self._failed(failure_reason(exc))
        return obs, self._tag(info)

    def step(self, action: dict[str, Any]) -> StepResult:
        """One action; an env that broke underneath ends the episode as failed (truncated)."""
        if self.env is None:
            return None, 0.0, False, True, self._failed("no episode is running; reset first")
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except Exception as exc:
            self.close()
            return None, 0.0, False, True, self._failed(failure_reason(exc))
        return obs, float(reward), bool(terminated), bool(truncated), self._tag(info)

    def close(self) -> None:
        if self.env is not None:
            env, self.env = self.env, None
            with contextlib.suppress(Exception):  # closing a broken env must not hide why it broke
                env.close()
