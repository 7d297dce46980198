"""What the env calls around an episode: `prepare` before the first observation, `judge` at the end."""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any

from mgfarm.tasks.device import TaskDevice
from mgfarm.tasks.judge import JudgeResult, judge_instance
from mgfarm.tasks.schema import TaskInstance
from mgfarm.tasks.state import StateSnapshot, capture
from mgfarm.tasks.steps import queue_steps

if TYPE_CHECKING:
    from mgfarm.tasks.catalog import Catalog

Baseline = StateSnapshot


def prepare(
    catalog: Catalog, instance: TaskInstance, device: TaskDevice, timezone: str | None = None
) -> Baseline:
    """Run the setup steps (the env has restored the snapshot), then record the start state; the
    setup's last shell commands go in the capture's round trip, ahead of its reads. `timezone` is
    set first (the setup may write local times), in the same round trip."""
    setup = queue_steps(device, instance.task.setup, catalog, instance.params, timezone)
    return capture(device, catalog.state, before=setup)


def judge(
    catalog: Catalog,
    instance: TaskInstance,
    device: TaskDevice,
    baseline: Baseline | None,
    answer: Any = None,
    goal_status: str = "",
) -> JudgeResult:
    """Success, progress, side effects and per-check outcomes; `answer` is the agent's typed answer and
    `goal_status` how it ended (complete, infeasible, or "" when the budget ran out)."""
    return judge_instance(catalog, instance, device, baseline, answer_sheet(instance, answer), goal_status)


def answer_sheet(instance: TaskInstance, answer: Any) -> dict[str, Any]:
    """The agent's answer as {field: value}: a dict is taken as is; plain text fills the only field."""
    if answer is None:
        return {}
    if isinstance(answer, str) and answer.strip().startswith("{"):
        # Not JSON, or nested past the decoder's depth (a policy may write anything): plain text.
        with contextlib.suppress(json.JSONDecodeError, RecursionError):
            answer = json.loads(answer)
    if isinstance(answer, dict):
        return dict(answer)
    fields = list(instance.answer_fields)
    if len(fields) == 1:
        return {fields[0]: answer}
    return {"text": answer}
