"""`mgfarm tasks check`: the oracle must succeed cleanly; doing nothing and the near-miss must fail."""

from __future__ import annotations

from dataclasses import dataclass

from mgfarm.tasks.runner import EpisodeResult, Job
from mgfarm.tasks.schema import TaskTemplate

ROLES = ("oracle", "nothing", "near_miss")


def check_jobs(templates: list[TaskTemplate], seeds: int) -> list[Job]:
    """Oracle, do-nothing and (when defined) near-miss episodes for every template and seed."""
    jobs = []
    for template in templates:
        for seed in range(seeds):
            jobs.append(Job(template, seed, "oracle", "oracle"))
            jobs.append(Job(template, seed, "nothing", "nothing"))
            if template.near_miss is not None:
                jobs.append(Job(template, seed, "near_miss", "near_miss"))
    return jobs


def verdict(result: EpisodeResult) -> str:
    """ok, or what went wrong: false-reject (oracle failed), false-accept (a wrong run passed), error."""
    if result.error:
        return "error"
    if result.key == "oracle":
        return "ok" if result.success and result.clean else "false-reject"
    return "false-accept" if result.success else "ok"


@dataclass
class Row:
    """One template's line in the matrix: per role, how many seeds were ok out of how many."""

    task_id: str
    cells: dict[str, tuple[int, int]]
    problems: list[str]


def matrix(results: list[EpisodeResult]) -> list[Row]:
    """Group results by template; collect a one-line reason for every bad episode."""
    rows: dict[str, Row] = {}
    for r in results:
        row = rows.setdefault(r.task_id, Row(r.task_id, {}, []))
        ok, total = row.cells.get(r.key, (0, 0))
        v = verdict(r)
        row.cells[r.key] = (ok + (v == "ok"), total + 1)
        if v != "ok":
            reason = r.error or "; ".join(
                [f"{c['name']}: {c['detail']}" for c in r.checks if not c["ok"]] + r.side_effects
            )
            row.problems.append(f"{r.key} seed {r.seed}: {v} ({reason or r.status})")
    return list(rows.values())
