"""AndroidWorld's task classes and agents on mgfarm's episode loop (`mgfarm.env.runner`).

`AwTask` is an `ExternalTask`: the env loads the snapshot, then the task's own `initialize_task` runs
on AndroidWorld's `AsyncAndroidEnv` for the leased replica; at the end its `is_successful` judges
and `tear_down` runs. mgfarm agents act through the mgfarm env as on catalog tasks; an AndroidWorld
`EnvironmentInteractingAgent` acts through `AwAgentAdapter`, one `agent.step(goal)` per turn.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

from mgfarm.tasks.agents import DONE, Action, Observation, failure
from mgfarm.tasks.judge import CheckOutcome, JudgeResult

STEPS_PER_COMPLEXITY = 10  # AndroidWorld's step budget: int(10 * task.complexity)
WAIT: Action = {"action_type": "wait"}


class AwEnvs:
    """One AndroidWorld `AsyncAndroidEnv` per replica (by adb port and serial), made on first use."""

    def __init__(self, adb_path: str, home_dir: Path | None) -> None:
        self.adb_path = adb_path
        self.home_dir = home_dir
        self._envs: dict[tuple[int, str], Any] = {}
        self._lock = threading.Lock()

    def get(self, adb_port: int, serial: str) -> Any:
        from mgfarm.suites.androidworld import async_env

        with self._lock:
            key = (adb_port, serial)
            if key not in self._envs:
                self._envs[key] = async_env(self.adb_path, adb_port, serial, self.home_dir)
            return self._envs[key]


# AndroidWorld's set-ups write fixed names into this process's temp folder and delete them after the
# push (Retro Music's /tmp/<song>.mp3, Markor's receipt.png, ...): two set-ups of one app's tasks at
# once, on two replicas, would delete each other's files. Those of one task module take turns.
_SETUP_LOCKS: dict[str, threading.Lock] = {}
_SETUP_LOCKS_GUARD = threading.Lock()


def setup_lock(task: Any) -> threading.Lock:
    """The lock the set-ups of a task's AndroidWorld module share."""
    with _SETUP_LOCKS_GUARD:
        return _SETUP_LOCKS.setdefault(type(task).__module__, threading.Lock())


def instance_seed(seed: int, name: str) -> int:
    """The seed AndroidWorld's `create_suite` draws a task's parameters with (its first instance)."""
    return int(hashlib.sha256(f"{seed}_{name}_0".encode()).hexdigest(), 16) % (2**32)


def json_safe(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters as JSON (objects by their text), for `info` and the recorded trajectory."""
    return dict(json.loads(json.dumps(params, default=str)))


@dataclasses.dataclass
class AwInstance:
    """One episode of an AndroidWorld task, shaped as the env keeps a catalog `TaskInstance`.

    `raw` is the parameters as AndroidWorld drew them (before the task class saw them); `env`,
    `serial` and `adb_port` name the replica once `AwTask.prepare` ran.
    """

    goal: str
    max_steps: int
    params: dict[str, Any]
    raw: dict[str, Any]
    task: Any  # AndroidWorld's TaskEval
    answer_fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    env: Any = None
    serial: str = ""
    adb_port: int = 0

    def model_copy(self, update: dict[str, Any]) -> AwInstance:
        """What the env calls to change the step budget (as on a pydantic `TaskInstance`)."""
        return dataclasses.replace(self, **update)


@dataclasses.dataclass
class AwTask:
    """An AndroidWorld task class with parameters drawn for one seed, as an `ExternalTask`."""

    id: str  # the class name, e.g. ClockTimerEntry
    app: str
    difficulty: str
    seed: int
    raw: dict[str, Any]  # the parameters as drawn (the task class may change its own copy)
    task: Any  # AndroidWorld's TaskEval, made with the parameters
    envs: AwEnvs
    answer: dict[str, Any] = dataclasses.field(default_factory=dict)

    def instantiate(self, seed: int) -> AwInstance:
        budget = max(1, int(STEPS_PER_COMPLEXITY * self.task.complexity))
        return AwInstance(self.task.goal, budget, json_safe(self.raw), dict(self.raw), self.task)

    def prepare(self, instance: AwInstance, device: Any) -> None:
        instance.serial, instance.adb_port = str(device.serial), int(device.adb_port)
        instance.env = self.envs.get(instance.adb_port, instance.serial)
        with setup_lock(instance.task):
            instance.task.initialize_task(instance.env)

    def judge(self, instance: AwInstance, device: Any, baseline: Any, answer: Any) -> JudgeResult:
        """`is_successful` (1.0 is success, its value is the progress), then `tear_down`."""
        env = instance.env
        if answer is not None:  # an mgfarm agent's answer; an AndroidWorld agent's is in the cache
            env.interaction_cache = str(answer)
        start = time.perf_counter()
        score = float(instance.task.is_successful(env))
        checks = [
            CheckOutcome(
                "androidworld.is_successful", {}, score >= 1.0, f"{score:g}", 1.0, time.perf_counter() - start
            )
        ]
        try:
            instance.task.tear_down(env)
        except Exception as exc:  # the next episode loads the snapshot anyway; say it, do not fail
            checks.append(CheckOutcome("androidworld.tear_down", {}, False, failure(exc), 0.0, 0.0))
        # AndroidWorld judges the goal only, not collateral damage: clean follows success.
        return JudgeResult(score >= 1.0, score, score >= 1.0, [], checks, time.perf_counter() - start)


def draw_task(name: str, cls: Any, seed: int, envs: AwEnvs) -> AwTask:
    """A task with parameters drawn as AndroidWorld's `create_suite(seed=...)` draws them (call it
    from one thread: it seeds the global `random`)."""
    drawn = instance_seed(seed, name)
    cls.set_device_time(None)
    random.seed(drawn)
    params = cls.generate_random_params()
    params["seed"] = drawn
    raw = dict(params)
    task = cls(params)
    app = ", ".join(getattr(task, "app_names", ()) or ()) or "-"  # some name theirs per instance
    return AwTask(name, app, f"complexity {task.complexity:g}", seed, raw, task, envs)


class AwAgentAdapter:
    """An AndroidWorld `EnvironmentInteractingAgent` as an mgfarm agent.

    Each turn is one `agent.step(goal)` on the replica's `AsyncAndroidEnv` (the agent observes and
    acts itself); the mgfarm env then only waits and observes, and `status complete` ends the
    episode when the agent says it is done. Its answers reach the task through the env's cache.
    """

    def __init__(self, agent: Any, max_steps: int) -> None:
        self.agent = agent
        self.max_steps = max_steps

    def reset(self, goal: str, info: dict[str, Any]) -> None:
        self.agent.reset(False)  # AndroidWorld's default: start on the screen the task left
        self.agent.set_max_steps(self.max_steps)

    def act(self, observation: Observation) -> Action:
        result = self.agent.step(str(observation["goal"]))
        return DONE if result.done else WAIT
