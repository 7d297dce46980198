"""Wrappers over `MobileEnv` for reward shaping, normalised coordinates and recording, and `make`.

They are ordinary `gymnasium.Wrapper`s, so they compose with Gymnasium's own. `make(task_id, ...,
reward="dense", coords="normalized", record="runs/")` is the short way to get them (the pools and
`gymnasium.make("mgfarm/...")` take the same keywords).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal, overload

import gymnasium

from mgfarm.env.env import MobileEnv
from mgfarm.env.recorder import EpisodeWriter, Recorder
from mgfarm.errors import MgfarmError

RewardMode = Literal["final", "dense"]
CoordsMode = Literal["pixel", "normalized"]
StepResult = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]
ABANDONED = "episode abandoned before it ended"


def mobile(env: gymnasium.Env[Any, Any]) -> MobileEnv:
    """The `MobileEnv` under any wrappers; a wrapper over another env is refused in one sentence."""
    base = env.unwrapped
    if not isinstance(base, MobileEnv):
        raise MgfarmError(
            f"This wrapper needs a MobileEnv underneath (from mgfarm.make), not {type(base).__name__}."
        )
    return base


class ProgressReward(gymnasium.Wrapper[dict[str, Any], Any, dict[str, Any], Any]):
    """Dense reward: each step pays the change in the judge's progress, minus `step_cost`.

    Progress is judged after every step (`info["judge"]` on every step); the step that ends an
    episode pays up to 1.0 on success, so an episode's rewards sum to 1.0 for a success and to the
    final progress otherwise (less the step costs). A failed episode (its replica died) pays 0.
    """

    def __init__(self, env: gymnasium.Env[dict[str, Any], Any], step_cost: float = 0.0) -> None:
        super().__init__(env)
        self.base = mobile(env)
        self.step_cost = float(step_cost)
        self._progress = 0.0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self._progress = 0.0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> StepResult:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if info.get("failed"):
            return obs, float(reward), terminated, truncated, info
        verdict = info.get("judge")
        if verdict is None:
            try:
                verdict = info["judge"] = self.base.judge()
            except MgfarmError as exc:  # the replica went away: the next step ends the episode
                info["judge_error"] = str(exc)
                return obs, -self.step_cost, terminated, truncated, info
        final = terminated or truncated
        target = 1.0 if final and verdict["success"] else float(verdict["progress"])
        shaped = target - self._progress - self.step_cost
        self._progress = target
        return obs, float(shaped), terminated, truncated, info


class NormalizedCoords(gymnasium.ActionWrapper[dict[str, Any], Any, Any]):
    """Actions give x/y in 0..1000 of the screen's width/height instead of pixels.

    The conversion is the action executor's own (`"coords": "normalized"` on each action); an action
    that names its coordinate space keeps it.
    """

    def __init__(self, env: gymnasium.Env[dict[str, Any], Any]) -> None:
        super().__init__(env)
        mobile(env)

    def action(self, action: Any) -> Any:
        parsed = action
        if isinstance(action, str):
            try:
                parsed = json.loads(action)
            except (ValueError, RecursionError):  # not JSON, or nested past the decoder's depth
                return action  # the env explains the bad JSON
        if isinstance(parsed, dict) and "coords" not in parsed and ("x" in parsed or "y" in parsed):
            return {**parsed, "coords": "normalized"}
        return action


class RecordEpisodes(gymnasium.Wrapper[dict[str, Any], Any, dict[str, Any], Any]):
    """Writes every episode to `<folder>/<nnnnn>-<task>-s<seed>-r<replica>/episode.jsonl` and PNGs.

    The layout is `mgfarm.env.recorder`'s. Rewards are recorded as this wrapper sees them, so put it
    outside a reward wrapper to keep the shaped reward. Several envs can share one `Recorder`.
    """

    def __init__(self, env: gymnasium.Env[dict[str, Any], Any], record: str | Path | Recorder) -> None:
        super().__init__(env)
        self.base = mobile(env)
        self.recorder = record if isinstance(record, Recorder) else Recorder(record)
        self._episode: EpisodeWriter | None = None
        self.folder: Path | None = None  # the last episode's folder (the eval runner reads it back)
        self._started = 0.0
        self._steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self._abandon()
        obs, info = self.env.reset(seed=seed, options=options)
        self._steps, self._started = 0, time.perf_counter()
        self._episode = self.recorder.episode(info["task_id"], info["seed"], info.get("replica"))
        self.folder = self._episode.folder
        fields = ("task_id", "seed", "goal", "params", "replica", "serial", "max_steps")
        self._episode.event(
            "reset",
            **{k: info.get(k) for k in fields},
            timings=self.base.last_timings,
            screenshot=self._episode.screenshot(0, obs.get("screenshot")),
        )
        return obs, info

    def step(self, action: Any) -> StepResult:
        obs, raw_reward, terminated, truncated, info = self.env.step(action)
        reward = float(raw_reward)
        episode = self._episode
        if episode is None:
            return obs, reward, terminated, truncated, info
        self._steps += 1
        # The env observes the screen after an action unless the episode ended or the action failed.
        observed = not terminated and info.get("error") is None and not info.get("failed")
        episode.event(
            "step",
            step=self._steps,
            action=action,
            reward=reward,
            terminated=terminated,
            truncated=truncated,
            error=info.get("error"),
            failed=info.get("failed"),
            timings=self.base.last_timings,
            screenshot=episode.screenshot(self._steps, obs.get("screenshot")) if observed else None,
        )
        if terminated or truncated:
            self._end(info.get("judge"), reward, info.get("failed"), info.get("answer"))
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        self._abandon()
        super().close()

    def _abandon(self) -> None:
        if self._episode is not None:
            self._end(None, 0.0, ABANDONED, None)

    def _end(self, verdict: dict[str, Any] | None, reward: float, failed: str | None, answer: Any) -> None:
        assert self._episode is not None
        judged = verdict or {"success": False, "progress": 0.0, "clean": False, "side_effects": []}
        judged.setdefault("checks", [])
        end = {
            **judged,  # the recorder's own fields below win over any of the verdict's
            "reward": reward,
            "steps": self._steps,
            "failed": failed,
            "answer": answer,
            "seconds": round(time.perf_counter() - self._started, 3),
        }
        self._episode.event("end", **end)
        self._episode.close()
        self._episode = None


def _check_flags(reward: str, coords: str) -> None:
    if reward not in ("final", "dense"):
        raise MgfarmError(f"reward={reward!r} is unknown; use 'final' or 'dense'.")
    if coords not in ("pixel", "normalized"):
        raise MgfarmError(f"coords={coords!r} is unknown; use 'pixel' or 'normalized'.")


def wrap(
    env: MobileEnv,
    *,
    reward: RewardMode = "final",
    coords: CoordsMode = "pixel",
    record: str | Path | Recorder | None = None,
) -> gymnasium.Env[dict[str, Any], Any]:
    """`env` under the wrappers the flags ask for: coordinates innermost, recording outermost."""
    _check_flags(reward, coords)
    wrapped: gymnasium.Env[dict[str, Any], Any] = env
    if coords == "normalized":
        wrapped = NormalizedCoords(wrapped)
    if reward == "dense":
        wrapped = ProgressReward(wrapped)
    if record is not None:
        wrapped = RecordEpisodes(wrapped, record)
    return wrapped


@overload
def make(
    task_id: str | None = None,
    seed: int | None = None,
    farm: str | None = None,
    *,
    reward: Literal["final"] = "final",
    coords: Literal["pixel"] = "pixel",
    record: None = None,
    **kwargs: Any,
) -> MobileEnv: ...


@overload
def make(
    task_id: str | None = None,
    seed: int | None = None,
    farm: str | None = None,
    *,
    reward: RewardMode = "final",
    coords: CoordsMode = "pixel",
    record: str | Path | Recorder | None = None,
    **kwargs: Any,
) -> gymnasium.Env[dict[str, Any], Any]: ...


def make(
    task_id: str | None = None,
    seed: int | None = None,
    farm: str | None = None,
    *,
    reward: RewardMode = "final",
    coords: CoordsMode = "pixel",
    record: str | Path | Recorder | None = None,
    **kwargs: Any,
) -> gymnasium.Env[dict[str, Any], Any]:
    """A gymnasium Env for `task_id` on a leased replica of `farm` (default: the running farm).

    `reward="dense"` adds `ProgressReward`, `coords="normalized"` adds `NormalizedCoords` and
    `record=DIR` adds `RecordEpisodes`; without them this is the bare `MobileEnv`. Other keywords go
    to `MobileEnv` (`tasks`, `max_steps`, `snapshot`, `screenshot`, `lease_timeout`, ...).
    """
    _check_flags(reward, coords)  # before a replica is leased
    env = MobileEnv(task_id, seed, farm, **kwargs)
    try:
        return wrap(env, reward=reward, coords=coords, record=record)
    except BaseException:
        env.close()
        raise
