"""Running episodes over a farm's replicas in parallel: run-task, eval and `tasks check`.

One worker thread per replica takes jobs from a shared queue. Each episode: load the farm's
snapshot over the console, run the template's setup, let the agent act on observations (UI
elements, and screenshots when recording) until it stops or the budget runs out, then judge.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mgfarm.device.actions import ActionError, ActionExecutor
from mgfarm.device.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm.ports import free_port
from mgfarm.farm.state import FarmState, load_farm
from mgfarm.tasks import runtime
from mgfarm.tasks.agents import failure, make_agent
from mgfarm.tasks.schema import TaskInstance, TaskTemplate
from mgfarm.tasks.state import StateSnapshot

THUMB_WIDTH = 216
# Runs over ADB after the agent stops and before the judge (the adversary matrix's damage);
# returns False when it found nothing to do, and the episode is then marked n/a.
Tamper = Callable[[Device, TaskInstance, StateSnapshot], bool]
AgentFactory = Callable[[TaskInstance], Any]


@dataclass
class Job:
    """One episode to run: a template, a seed, an agent (a --agent spec or a factory)."""

    task: TaskTemplate
    seed: int
    agent: str | AgentFactory
    key: str = ""  # label used by `tasks check` (oracle / nothing / near_miss / ...)
    timezone: str | None = None  # set on the device before the setup
    after: Tamper | None = None
    expect: str = ""  # `tasks check`: accept or reject
    budget: float = 1.0  # times the template's step budget


@dataclass
class EpisodeResult:
    """Everything the report and the check matrix need about one episode."""

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
    trajectory: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_answer(text: str | None) -> Any:
    """A JSON object answers several typed fields; anything else is plain text."""
    if text is None:
        return None
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
            if isinstance(value, dict):
                return value
        except json.JSONDecodeError:
            pass
    return text


def _thumbnail(device: Device, path: Path) -> None:
    image = device.screenshot()
    height = round(image.height * THUMB_WIDTH / image.width)
    image.convert("RGB").resize((THUMB_WIDTH, height)).save(path, "JPEG", quality=70)


def run_episode(
    device: Device,
    instance: TaskInstance,
    agent_spec: str | Any,
    snapshot: str | None,
    record: Path | None = None,
    key: str = "",
    timezone: str | None = None,
    after: Tamper | None = None,
) -> EpisodeResult:
    """Reset, set up, act until done or out of budget, judge. Device errors end the episode as failed.

    `agent_spec` is a --agent value (see `make_agent`) or an agent object; `timezone` is set on
    the device before the setup; `after` runs over ADB between the agent and the judge.
    """
    task = instance.task
    label = agent_spec if isinstance(agent_spec, str) else type(agent_spec).__name__
    result = EpisodeResult(
        task.id, task.app, task.difficulty, instance.seed, label, key or label, instance.goal
    )
    result.serial = device.serial
    result.timezone = timezone or ""
    start = time.perf_counter()
    try:
        if snapshot:
            device.snapshot_load(snapshot)
        if timezone:
            device.shell(f"setprop persist.sys.timezone {timezone}")
        baseline = runtime.prepare(instance, device)
        agent = make_agent(agent_spec, instance, instance.seed) if isinstance(agent_spec, str) else agent_spec
        if callable(getattr(agent, "reset", None)):
            agent.reset(instance.goal, {"task_id": task.id, "seed": instance.seed, "answer": task.answer})
        answer = _act(device, instance, agent, result, record)
        if after is not None and result.status != "infeasible" and not after(device, instance, baseline):
            result.status = "n/a"
        verdict = runtime.judge(instance, device, baseline, parse_answer(answer))
        result.success, result.progress, result.clean = verdict.success, verdict.progress, verdict.clean
        result.side_effects = verdict.side_effects
        result.checks = [vars(c) for c in verdict.checks]
        result.judge_seconds = verdict.seconds
    except MgfarmError as exc:
        result.error = str(exc)
    except Exception as exc:  # a broken agent or device must not stop the other episodes
        result.error = failure(exc)
    result.seconds = time.perf_counter() - start
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
        (record / "episode.json").write_text(json.dumps(result.as_dict(), indent=2, default=str))
    return result


def _act(
    device: Device, instance: TaskInstance, agent: Any, result: EpisodeResult, record: Path | None
) -> str | None:
    """The agent loop; returns the agent's answer text, if any."""
    executor = ActionExecutor(device, wait_seconds=0.3)
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
    for step in range(instance.max_steps):
        elements = device.ui_elements()
        observation: dict[str, Any] = {
            "goal": instance.goal,
            "step": step,
            "ui_elements": [e.to_dict() for e in elements],
        }
        entry: dict[str, Any] = {"step": step}
        if record is not None:
            thumb = record / f"step{step:03d}.jpg"
            _thumbnail(device, thumb)
            entry["screen"] = thumb.name
        action = agent.act(observation)
        entry["action"] = action
        result.trajectory.append(entry)
        result.steps = step + 1
        try:
            outcome = executor.execute(action, elements)
        except ActionError as exc:
            entry["error"] = str(exc)
            continue
        if outcome.terminal:
            result.status = outcome.goal_status or ""
            return outcome.answer
    result.status = "budget"
    return None


def farm_devices(farm: FarmState, replicas: int | None = None) -> list[Device]:
    """Controllers for the ready replicas of a farm (the first `replicas` of them when given)."""
    ready = [r for r in farm.replicas if r.state == "ready"]
    if not ready:
        raise MgfarmError(f"Farm {farm.name!r} has no ready replica; check `mgfarm ps` or restart it.")
    chosen = ready[:replicas] if replicas else ready
    return [
        Device(
            r.serial,
            adb_port=farm.adb_server_port,
            console_port=r.console_port,
            console_token=r.console_token,
        )
        for r in chosen
    ]


def run_jobs(
    jobs: list[Job],
    devices: list[Device],
    snapshot: str | None,
    record: Path | None = None,
    on_done: Callable[[EpisodeResult], None] | None = None,
) -> list[EpisodeResult]:
    """Run jobs over the devices (one thread each); results come back in job order."""
    pending: queue.Queue[tuple[int, Job]] = queue.Queue()
    for item in enumerate(jobs):
        pending.put(item)
    results: list[EpisodeResult | None] = [None] * len(jobs)
    lock = threading.Lock()

    def worker(device: Device) -> None:
        while True:
            try:
                index, job = pending.get_nowait()
            except queue.Empty:
                return
            role = re.sub(r"[^A-Za-z0-9_.-]+", "_", job.key or str(job.agent))
            folder = record / f"{index:04d}-{job.task.id}-s{job.seed}-{role}" if record else None
            instance = job.task.instantiate(job.seed)
            if job.budget != 1.0:
                instance.max_steps = round(instance.max_steps * job.budget)
            agent = job.agent if isinstance(job.agent, str) else job.agent(instance)
            episode = run_episode(device, instance, agent, snapshot, folder, job.key, job.timezone, job.after)
            if folder is not None:
                episode.trajectory = [
                    {**e, "screen": f"{folder.name}/{e['screen']}"} if "screen" in e else e
                    for e in episode.trajectory
                ]
            with lock:
                results[index] = episode
                if on_done is not None:
                    on_done(episode)

    threads = [threading.Thread(target=worker, args=(d,), daemon=True) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r for r in results if r is not None]


PRIVATE_FIRST_PORT = 20000  # private farms take console/adb port pairs from 20000 to 59999
PRIVATE_PORTS = 40000


@contextmanager
def farm_for(name: str | None, replicas: int) -> Iterator[FarmState]:
    """The named running farm, or (name None) a private process farm that is stopped afterwards."""
    if name:
        yield load_farm(name)  # its error says how to start a missing farm
        return
    from mgfarm.farm import api

    if not 1 <= replicas <= PRIVATE_PORTS // 2:
        raise MgfarmError(
            f"A private farm takes 1 to {PRIVATE_PORTS // 2} replicas, not {replicas}; change --replicas."
        )
    private = f"tasks-{os.getpid()}"
    # A random first port keeps private farms of parallel runs (CI, several users) off each other's ports.
    first = random.randrange(PRIVATE_FIRST_PORT, PRIVATE_FIRST_PORT + PRIVATE_PORTS - 2 * replicas + 1, 2)
    farm = api.up(replicas, backend="process", name=private, adb_port=free_port(), first_port=first)
    try:
        yield farm
    finally:
        api.down(private)
