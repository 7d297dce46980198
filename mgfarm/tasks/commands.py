"""What the task CLI commands do, as plain functions returning results and rich renderables."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mgfarm.errors import MgfarmError
from mgfarm.tasks import checker, report
from mgfarm.tasks.agents import make_agent
from mgfarm.tasks.catalog import get_task, select
from mgfarm.tasks.judge import load_verifiers
from mgfarm.tasks.runner import EpisodeResult, Job, farm_devices, farm_for, run_jobs
from mgfarm.tasks.schema import TaskTemplate


def tasks_table(templates: list[TaskTemplate]) -> Table:
    """id, apps, difficulty, split, suites, goal (with placeholders)."""
    table = Table(title=f"{len(templates)} task templates")
    table.add_column("id", no_wrap=True)
    for col in ("level", "split", "kind"):
        table.add_column(col)
    table.add_column("goal", overflow="fold")
    for t in templates:
        kind = "query" if t.answer else "operate"
        table.add_row(t.id, t.difficulty, t.split, kind, t.goal)
    return table


def show_task(task_id: str, seed: int) -> dict[str, Any]:
    """A template with one seed's parameters and filled goal, for `tasks show`."""
    template = get_task(task_id)
    instance = template.instantiate(seed)
    data = template.model_dump(exclude={"judge", "outcome"}, exclude_defaults=True)
    data["outcome"] = instance.render(template.outcome)
    if template.judge is not None:
        data["judge"] = [f"{leaf.check} {instance.render(leaf.args)}" for leaf in template.judge.leaves()]
    data["seed"] = seed
    data["params_drawn"] = instance.params
    data["goal_filled"] = instance.goal
    data["max_steps"] = instance.max_steps
    return data


def checks_table() -> Table:
    """The registered checks and their one-line docs."""
    table = Table(title="checks")
    table.add_column("name")
    table.add_column("what it verifies")
    for name, fn in sorted(load_verifiers().items()):
        table.add_row(name, (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else "")
    return table


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("ok {task.fields[ok]}"),
        TimeElapsedColumn(),
        transient=False,
    )


def run_with_progress(
    jobs: list[Job],
    farm: str | None,
    replicas: int | None,
    record: Path | None,
    label: str,
    show: bool = True,
) -> tuple[list[EpisodeResult], float, int]:
    """Run jobs on a farm (a private one when `farm` is None); returns results, wall seconds, devices."""
    with farm_for(farm, replicas or 4) as state:
        devices = farm_devices(state, replicas)
        bar = progress_bar()
        task = bar.add_task(label, total=len(jobs), ok=0)
        ok = 0

        def done(result: EpisodeResult) -> None:
            nonlocal ok
            ok += result.success
            bar.update(task, advance=1, ok=ok)

        start = time.perf_counter()
        if show:
            with bar:
                results = run_jobs(jobs, devices, state.snapshot, record, done)
        else:
            results = run_jobs(jobs, devices, state.snapshot, record, None)
        return results, time.perf_counter() - start, len(devices)


def check_matrix_table(result: checker.Matrix) -> Table:
    """One line per template, one column per adversary group: ok/played (n/a episodes left out)."""
    table = Table(title="judge check: oracle and alternatives accepted, every adversary rejected")
    table.add_column("task", no_wrap=True)
    groups = [g for g in checker.GROUPS if any(g in row.cells for row in result.rows)]
    for group in groups:
        table.add_column(checker.SHORT.get(group, group), justify="center", no_wrap=True)
    for row in result.rows:
        cells = []
        for group in groups:
            if group not in row.cells:
                cells.append("-")
                continue
            ok, total = row.cells[group]
            colour = "green" if ok == total else "red"
            cells.append(f"[{colour}]{ok}/{total}[/]")
        table.add_row(row.task_id, *cells)
    return table


def check_counts(seeds: list[int], replicas: int | None) -> None:
    """Refuse a run with no episodes or a device count below one, before any device work."""
    if not seeds:
        raise MgfarmError("No seeds to run; pass --seeds or --episodes of 1 or more.")
    if replicas is not None and replicas < 1:
        raise MgfarmError(f"--replicas {replicas} is not a device count; pass 1 or more, or leave it out.")


def parse_timezones(text: str) -> list[str]:
    """Comma-separated IANA zone names; one clear sentence for a name the host does not know."""
    from zoneinfo import ZoneInfo

    zones = [z.strip() for z in text.split(",") if z.strip()]
    if not zones:
        raise MgfarmError("--timezones is empty; pass zone names such as UTC,America/Los_Angeles.")
    for zone in zones:
        try:
            ZoneInfo(zone)
        except (KeyError, ValueError) as exc:
            raise MgfarmError(f"Unknown time zone {zone!r}; use an IANA name such as Asia/Kolkata.") from exc
    return zones


def run_check(
    ids: list[str],
    seeds: int,
    farm: str | None,
    replicas: int,
    timezones: list[str] | None = None,
    zone_per_seed: bool = False,
) -> checker.Matrix:
    """The adversary matrix for the chosen templates, seeds and time zones."""
    check_counts(list(range(seeds)), replicas)
    jobs = checker.check_jobs(select(ids), seeds, timezones, zone_per_seed)
    results, _, _ = run_with_progress(jobs, farm, replicas, None, "checking")
    return checker.matrix(results, jobs)


@dataclass
class EvalRun:
    results: list[EpisodeResult]
    folder: Path | None
    report: Path | None
    seconds: float
    devices: int


def run_eval(
    ids: list[str],
    suite: str,
    agent: str,
    seeds: list[int],
    farm: str | None,
    replicas: int | None,
    out: Path | None,
    record: bool = True,
    show: bool = True,
) -> EvalRun:
    """Episodes for every template of a suite (or ids) and seed; writes results.json and report.html.

    With `out` None nothing is written (`folder` and `report` are None).
    """
    check_counts(seeds, replicas)
    templates = select(ids, suite)
    # A bad --agent fails here, before any device work.
    make_agent(agent, templates[0].instantiate(seeds[0]))
    jobs = [Job(t, s, agent, agent) for t in templates for s in seeds]
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    folder = out / f"{stamp}-{suite if not ids else 'tasks'}" if out is not None else None
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MgfarmError(
                f"cannot create {folder} ({exc.strerror}); pick a writable output folder."
            ) from exc
    results, seconds, devices = run_with_progress(
        jobs, farm, replicas, folder if record else None, f"{agent} on {', '.join(ids) or suite}", show
    )
    if folder is None:
        return EvalRun(results, None, None, seconds, devices)
    meta = {
        # `run-task` names templates, not a suite: say which, rather than the catalog-wide "all".
        "suite": suite if not ids else None,
        "tasks": [t.id for t in templates],
        "agent": agent,
        "seeds": seeds,
        "started": stamp,
        "wall_seconds": seconds,
        "replicas": devices,
    }
    report.write_results(results, folder, meta)
    page = report.write_html(results, folder, meta)
    return EvalRun(results, folder, page, seconds, devices)


def rates_table(results: list[EpisodeResult], key: str) -> Table:
    """Success / clean / progress per app or per difficulty."""
    table = Table(title=f"by {key}")
    for col in (key, "episodes", "success", "clean", "progress"):
        table.add_column(col, justify="right" if col != key else "left")
    for group, n, s, c, p in report.rates(results, key):
        table.add_row(group, str(n), f"{s:.0%}", f"{c:.0%}", f"{p:.2f}")
    return table


def episode_line(r: EpisodeResult) -> str:
    """One line per episode for run-task."""
    mark = "[green]success[/]" if r.success else "[red]fail[/]"
    extra = f" error: {escape(r.error)}" if r.error else ""
    effects = f" unexpected: {escape('; '.join(r.side_effects))}" if r.side_effects else ""
    return (
        f"{r.task_id} seed {r.seed}: {mark} progress {r.progress:.2f} clean {r.clean} "
        f"steps {r.steps} ({r.seconds:.1f} s){effects}{extra}"
    )
