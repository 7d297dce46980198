"""`mgfarm tasks check`: every template against its adversary matrix, in every time zone asked for.

An adversary must be rejected, the oracle and the alternatives accepted. An adversary that
could not be played on an instance (a near miss whose target is not on screen, damage with no
untouched row to damage) is n/a and counts neither way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mgfarm.tasks.adversaries import adversaries
from mgfarm.tasks.jobs import EpisodeResult, Job
from mgfarm.tasks.schema import TaskTemplate

if TYPE_CHECKING:
    from mgfarm.tasks.catalog import Catalog

TIMEZONES = ("UTC", "America/Los_Angeles", "Asia/Kolkata")
GROUPS = (
    "oracle",
    "alternative",
    "nothing",
    "claims_done",
    "twice",
    "collateral",
    "over_broad",
    "wrong_right",
    "near_miss",
    "param_miss",
    "custom",
    "answers",
)
SHORT = {  # column headings of the matrix table
    "alternative": "alt",
    "nothing": "noop",
    "collateral": "damage",
    "over_broad": "broad",
    "wrong_right": "wrong+right",
    "near_miss": "miss",
    "param_miss": "param",
    "claims_done": "done?",
}


def check_jobs(
    catalog: Catalog,
    templates: list[TaskTemplate],
    seeds: int,
    timezones: list[str] | None = None,
    zone_per_seed: bool = False,
) -> list[Job]:
    """Every adversary of every template (of `catalog`), for every seed and time zone.

    `zone_per_seed` plays seed i in zone i mod Z only (every seed and every zone, a third of the
    episodes for three zones: what CI runs).
    """
    jobs = []
    zones = timezones or ["UTC"]
    for template in templates:
        for seed in range(seeds):
            for zone in [zones[seed % len(zones)]] if zone_per_seed else zones:
                for adv in adversaries(template, seed, catalog):
                    key = f"{adv.group}/{adv.name}"
                    jobs.append(Job(template, seed, adv.agent, key, zone, adv.after, adv.expect, adv.budget))
    return jobs


def verdict(result: EpisodeResult, expect: str, feasible: bool = True) -> str:
    """ok, n/a, false-reject, false-accept or error."""
    if result.error:
        return "error"
    if expect == "accept":  # a correct path that could not be played is not a pass
        return "ok" if result.success and result.status != "n/a" else "false-reject"
    # It did not play out as designed; giving up is the design when the goal is infeasible.
    if result.status in ("n/a", "budget") or (feasible and result.status == "infeasible"):
        return "n/a"
    return "false-accept" if result.success else "ok"


@dataclass
class Row:
    """One template's line in the matrix: per group, (ok, played) over seeds, zones and adversaries."""

    task_id: str
    cells: dict[str, tuple[int, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass
class Matrix:
    rows: list[Row]
    false_accepts: int
    false_rejects: int
    errors: int
    not_applicable: int
    played: int


def matrix(results: list[EpisodeResult], jobs: list[Job]) -> Matrix:
    """Group results by template and adversary group; a one-line reason for every bad episode."""
    rows: dict[str, Row] = {}
    counts = {"false-accept": 0, "false-reject": 0, "error": 0, "n/a": 0, "ok": 0}
    expect = {(j.task.id, j.seed, j.timezone or "", j.key): j.expect for j in jobs}
    feasible = {j.task.id: getattr(j.task, "feasible", True) for j in jobs}
    for r in results:
        row = rows.setdefault(r.task_id, Row(r.task_id))
        v = verdict(
            r, expect.get((r.task_id, r.seed, r.timezone, r.key), "reject"), feasible.get(r.task_id, True)
        )
        counts[v] += 1
        if v == "n/a":
            continue
        group = r.key.split("/", 1)[0]
        ok, total = row.cells.get(group, (0, 0))
        row.cells[group] = (ok + (v == "ok"), total + 1)
        if v != "ok":
            reason = r.error or "; ".join(
                [f"{c['name']}: {c['detail']}" for c in r.checks if not c["ok"]]
                + [f"unexpected {e}" for e in r.side_effects]
            )
            row.problems.append(f"{r.key} seed {r.seed} {r.timezone}: {v} ({reason or r.status})")
    return Matrix(
        list(rows.values()),
        counts["false-accept"],
        counts["false-reject"],
        counts["error"],
        counts["n/a"],
        len(results) - counts["n/a"],
    )
