"""What an eval, run-task or `tasks check` episode is (`Job`) and what it came to (`EpisodeResult`).

The episodes themselves run on `MobileEnv`s over leased replicas: `mgfarm.env.runner`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from mgfarm.tasks.adversaries import AgentFactory, Tamper
from mgfarm.tasks.judge import JudgeResult
from mgfarm.tasks.schema import TaskTemplate


class ExternalTask(Protocol):
    """A task from outside the catalog (an AndroidWorld task class) that sets itself up and judges itself.

    `instantiate(seed)` gives the episode's instance, which has `goal`, `max_steps`, `params`,
    `answer_fields` and `model_copy(update=...)` as a catalog `TaskInstance` has; the env calls
    `prepare` after the snapshot load and `judge` when the episode ends.
    """

    id: str
    app: str
    difficulty: str
    answer: dict[str, Any]

    def instantiate(self, seed: int) -> Any: ...

    def prepare(self, instance: Any, device: Any) -> Any: ...

    def judge(self, instance: Any, device: Any, baseline: Any, answer: Any) -> JudgeResult: ...


@dataclass
class Job:
    """One episode to run: a template, a seed, an agent (a --agent spec or a factory)."""

    task: TaskTemplate | ExternalTask
    seed: int
    agent: str | AgentFactory
    key: str = ""  # label used by `tasks check` (oracle / nothing / near_miss / ...)
    timezone: str | None = None  # set on the device before the setup
    # Runs over ADB after the agent stops and before the judge (the adversary matrix's damage);
    # returns False when it found nothing to do, and the episode is then marked n/a.
    after: Tamper | None = None
    expect: str = ""  # `tasks check`: accept or reject
    budget: float = 1.0  # times the template's step budget


@dataclass
class EpisodeResult:
    """Everything results.json, the report and the check matrix need about one episode."""

    task_id: str
    app: str
    difficulty: str
    seed: int
    agent: str
    key: str
    goal: str
    success: bool = False
    progress: float = 0.0
    clean: bool = False
    side_effects: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    status: str = ""
    answer: str | None = None
    error: str = ""
    serial: str = ""
    timezone: str = ""
    seconds: float = 0.0
    judge_seconds: float = 0.0
    # One entry per action (`mgfarm.env.recorder.trajectory`): step, action, error, and `screen`,
    # the recorded screenshot relative to the run folder when the run records.
    trajectory: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
