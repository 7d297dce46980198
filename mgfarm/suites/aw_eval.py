"""`mgfarm eval --suite androidworld`: AndroidWorld's task classes, unchanged, over a farm's replicas.

Each selected task class gets parameters from its own `generate_random_params`, seeded as
AndroidWorld's `create_suite(seed=S)` seeds them, and is one episode of the native eval's loop
(`mgfarm.env.evaluate.run_with_progress`): a leased replica, reset by snapshot load, the task's
`initialize_task`, the agent for up to 10 x complexity steps, `is_successful`, `tear_down`. As in
AndroidWorld's own runs, an agent that never said it was done scores 0.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from mgfarm.adb.binary import find_adb
from mgfarm.device.device import Device
from mgfarm.env.evaluate import run_folder, run_with_progress
from mgfarm.env.runner import wants_screenshot
from mgfarm.errors import MgfarmError
from mgfarm.farm.state import READY, farm_dir, load_farm
from mgfarm.suites import androidworld
from mgfarm.suites.aw_tasks import AwAgentAdapter, AwEnvs, AwInstance, AwTask, draw_task
from mgfarm.tasks import report
from mgfarm.tasks.adversaries import AgentFactory
from mgfarm.tasks.agents import failure, make_agent
from mgfarm.tasks.jobs import EpisodeResult, Job

NO_ORACLE = ("oracle", "near_miss")
AGENTS = "nothing, random, chat, replay:FILE or module:Class (an mgfarm agent or an AndroidWorld agent)"


@dataclasses.dataclass
class Row:
    """One line of the per-task table."""

    task: str
    seed: int
    success: str  # yes / no / skipped
    steps: int
    seconds: float
    error: str


@dataclasses.dataclass
class SuiteRun:
    results: list[EpisodeResult]
    rows: list[Row]
    folder: Path | None
    report: Path | None
    seconds: float
    devices: int


def select(reg: dict[str, Any], patterns: list[str]) -> list[str]:
    """The task classes named by `patterns` (class names or globs such as 'Markor*'); all without."""
    if not patterns:
        return sorted(reg)
    chosen: list[str] = []
    for pattern in patterns:
        hits = [n for n in sorted(reg) if fnmatch.fnmatchcase(n, pattern)]
        if not hits:
            raise MgfarmError(
                f"No AndroidWorld task is named {pattern!r}; give class names of its registry "
                "(e.g. ClockTimerEntry) or globs (e.g. 'Markor*')."
            )
        chosen += [n for n in hits if n not in chosen]
    return chosen


def not_on_device(tasks: list[AwTask], installed: set[str]) -> dict[str, str]:
    """Why each task whose apps the device lacks is skipped (a task's apps are known once drawn:
    AndroidWorld's information-retrieval tasks name theirs per instance)."""
    skipped = {}
    for task in tasks:
        missing = androidworld.missing_apps(getattr(task.task, "app_names", ()) or (), installed)
        if missing:
            skipped[task.id] = f"skipped: app not on the device: {', '.join(missing)}"
    return skipped


def agent_for(spec: str) -> tuple[str | AgentFactory, bool]:
    """The job's agent for a --agent value and whether it looks at screenshots.

    A `module:Class` that subclasses AndroidWorld's EnvironmentInteractingAgent is built with the
    replica's AsyncAndroidEnv and driven through `AwAgentAdapter`; any other value is an mgfarm agent.
    """
    if spec in NO_ORACLE:
        raise MgfarmError(f"AndroidWorld's tasks have no {spec} agent in mgfarm; use {AGENTS}.")
    module_name, _, class_name = spec.partition(":")
    if module_name and class_name and not spec.startswith("replay:"):
        from android_world.agents.base_agent import EnvironmentInteractingAgent

        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            cls = getattr(importlib.import_module(module_name), class_name, None)
        except Exception as exc:
            raise MgfarmError(f"Importing {module_name} for --agent {spec} failed: {failure(exc)}.") from exc
        if isinstance(cls, type) and issubclass(cls, EnvironmentInteractingAgent):

            def adapter(instance: Any) -> AwAgentAdapter:
                assert isinstance(instance, AwInstance)
                return AwAgentAdapter(cls(instance.env), instance.max_steps)

            return adapter, False
    # A bad value fails here, before any device work (the probe needs no task for these agents).
    probe = make_agent(spec, None, 0)  # type: ignore[arg-type]
    return spec, wants_screenshot(probe)


def installed_packages(farm: str) -> set[str]:
    """The packages of the farm's first ready replica (every replica boots the same snapshot)."""
    state = load_farm(farm)
    ready = [r for r in state.replicas if r.state == READY]
    if not ready:
        raise MgfarmError(f"Farm {farm!r} has no ready replica; see `mgfarm ps` and restart failed ones.")
    device = Device(ready[0].serial, adb_port=state.adb_server_port)
    try:
        return set(device.packages())
    finally:
        device.close()


def table(results: list[EpisodeResult], skipped: dict[str, str], seed: int) -> list[Row]:
    """One row per task: the episodes in run order, then the skipped ones."""
    rows = [
        Row(r.task_id, r.seed, "yes" if r.success else "no", r.steps, round(r.seconds, 2), r.error)
        for r in results
    ]
    return rows + [Row(name, seed, "skipped", 0, 0.0, why) for name, why in sorted(skipped.items())]


def markdown(rows: list[Row]) -> str:
    lines = ["| task | seed | success | steps | seconds | error |", "|---|---|---|---|---|---|"]
    for r in rows:
        error = r.error.replace("|", "/").replace("\n", " ")
        lines.append(f"| {r.task} | {r.seed} | {r.success} | {r.steps} | {r.seconds:.1f} | {error} |")
    return "\n".join(lines) + "\n"


def rows_table(rows: list[Row]) -> Table:
    """The per-task table for the terminal."""
    table = Table(title=f"AndroidWorld: {len(rows)} tasks")
    for column in ("task", "seed", "success", "steps", "seconds"):
        table.add_column(column, no_wrap=True)
    table.add_column("error", overflow="fold")
    for r in rows:
        table.add_row(r.task, str(r.seed), r.success, str(r.steps), f"{r.seconds:.1f}", escape(r.error))
    return table


def run_suite(
    farm: str,
    agent: str | AgentFactory,
    seed: int,
    patterns: list[str],
    replicas: int | None,
    out: Path | None,
    android_world: Path | None = None,
    record: bool = True,
    show: bool = True,
) -> SuiteRun:
    """AndroidWorld's tasks (all whose apps the farm's devices have, or `patterns`) on a running farm.

    `agent` is a --agent value or an agent factory (instance -> agent; the instance is an
    `AwInstance`: the task, its raw parameters and the replica's AsyncAndroidEnv). Writes
    results.json, report.html and tasks.md (the per-task table) under `out` unless it is None.
    """
    source = androidworld.prepare_android_world(path=android_world)
    androidworld.require_compat()
    if isinstance(agent, str):
        job_agent, screenshots = agent_for(agent)
        label = agent
    else:
        job_agent, screenshots, label = agent, False, getattr(agent, "__name__", type(agent).__name__)
    reg = androidworld.registry()
    names = select(reg, patterns)
    state = load_farm(farm)
    home_dir = androidworld.console_home(
        farm_dir(farm) / "androidworld-home", state.replicas[0].console_token
    )
    envs = AwEnvs(str(find_adb()), home_dir)
    drawn = [draw_task(name, reg[name], seed, envs) for name in names]
    # Named tasks run as asked; the whole registry runs what the devices have apps for.
    skipped = {} if patterns else not_on_device(drawn, installed_packages(farm))
    jobs = [Job(task, seed, job_agent, label) for task in drawn if task.id not in skipped]
    if not jobs:
        raise MgfarmError("No AndroidWorld task to run: the devices have none of their apps; pass --tasks.")
    stamp, folder = run_folder(out, "androidworld")
    results, seconds, devices = run_with_progress(
        jobs, farm, replicas, folder if record else None, f"{label} on androidworld", show, screenshots
    )
    for r in results:
        r.agent = label
        if r.success and r.status == "budget":  # AndroidWorld counts a success only when the agent said done
            r.success = False
            r.error = r.error or "the agent never said it was done (AndroidWorld scores that 0)"
    rows = table(results, skipped, seed)
    if folder is None:
        return SuiteRun(results, rows, None, None, seconds, devices)
    meta = {
        "suite": "androidworld",
        "tasks": names,
        "skipped": skipped,
        "agent": label,
        "seed": seed,
        "seeds": [seed],
        "android_world": str(source),
        "started": stamp,
        "wall_seconds": seconds,
        "replicas": devices,
        "table": [dataclasses.asdict(r) for r in rows],
    }
    report.write_results(results, folder, meta)
    page = report.write_html(results, folder, meta)
    (folder / "tasks.md").write_text(markdown(rows))
    return SuiteRun(results, rows, folder, page, seconds, devices)
