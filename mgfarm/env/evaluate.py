"""What `mgfarm eval`, `run-task` and `tasks check` do: jobs on leased envs, results and the report."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path

from mgfarm.env.runner import farm_for, lease_envs, replica_count, run_on, wants_screenshot
from mgfarm.errors import MgfarmError
from mgfarm.tasks import checker, report
from mgfarm.tasks.agents import make_agent
from mgfarm.tasks.catalog import Catalog
from mgfarm.tasks.commands import check_counts, progress_bar
from mgfarm.tasks.jobs import EpisodeResult, Job


def run_folder(out: Path | None, name: str) -> tuple[str, Path | None]:
    """The run's start stamp and its new folder `<out>/<stamp>-<name>` (None when `out` is None)."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    folder = out / f"{stamp}-{name}" if out is not None else None
    try:
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MgfarmError(f"cannot create {folder} ({exc.strerror}); pick a writable output folder.") from exc
    return stamp, folder


def run_with_progress(
    jobs: list[Job],
    farm: str | None,
    replicas: int | None,
    record: Path | None,
    label: str,
    show: bool = True,
    screenshots: bool = False,
    catalog: Catalog | None = None,
    profile: str | None = None,
) -> tuple[list[EpisodeResult], float, int]:
    """Run jobs on a farm (a private one of device `profile` when `farm` is None); returns results,
    wall seconds, replicas."""
    with farm_for(farm, replicas or 4, profile) as state:
        count = replica_count(state, replicas, len(jobs))
        envs = lease_envs(state, count, None, screenshots, record, catalog=catalog)
        try:
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
                    results = run_on(envs, jobs, done)
            else:
                results = run_on(envs, jobs)
            return results, time.perf_counter() - start, len(envs)
        finally:
            for env in envs:
                env.close()


def run_check(
    catalog: Catalog,
    ids: list[str],
    seeds: int,
    farm: str | None,
    replicas: int,
    timezones: list[str] | None = None,
    zone_per_seed: bool = False,
    profile: str | None = None,
) -> checker.Matrix:
    """The adversary matrix for the chosen templates of `catalog`, seeds and time zones, on devices of
    `profile` (None: the farm's, or the default for a private farm)."""
    check_counts(list(range(seeds)), replicas)
    jobs = checker.check_jobs(catalog, catalog.select(ids), seeds, timezones, zone_per_seed)
    results, _, _ = run_with_progress(
        jobs, farm, replicas, None, "checking", catalog=catalog, profile=profile
    )
    return checker.matrix(results, jobs)


@dataclass
class EvalRun:
    results: list[EpisodeResult]
    folder: Path | None
    report: Path | None
    seconds: float
    devices: int


def run_eval(
    catalog: Catalog,
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
    """Episodes for every template of a suite (or ids) of `catalog` and seed; writes results.json and
    report.html.

    With `out` None nothing is written (`folder` and `report` are None).
    """
    check_counts(seeds, replicas)
    templates = catalog.select(ids, suite)
    # A bad --agent fails here, before any device work; it also says whether the agent looks at screens.
    probe = make_agent(agent, templates[0].instantiate(seeds[0]))
    jobs = [Job(t, s, agent, agent) for t in templates for s in seeds]
    stamp, folder = run_folder(out, suite if not ids else "tasks")
    results, seconds, devices = run_with_progress(
        jobs,
        farm,
        replicas,
        folder if record else None,
        f"{agent} on {', '.join(ids) or suite}",
        show,
        wants_screenshot(probe),
        catalog,
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
