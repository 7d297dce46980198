"""The AndroidWorld suite's wall time for one seed against replica count (`mgfarm bench --androidworld`).

For each replica count a process farm is started, each run (an agent on a list of AndroidWorld task
classes, all of them when empty) goes through `mgfarm eval --suite androidworld`'s `run_suite`, and
the farm is stopped. The CLI measures the `nothing` agent on every task: per task a snapshot reset,
AndroidWorld's `initialize_task`, one step, `is_successful` and `tear_down`, which is the farm's
cost of a task without an agent's thinking. The scripted UI solutions live in the tests (an agent
that plays them needs the test drivers): `python -m tests.compat.androidworld --replicas N` times
them with the same function.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mgfarm.farm import api
from mgfarm.farm.ports import free_port
from mgfarm.farm.state import farm_exists
from mgfarm.suites.aw_eval import SuiteRun, run_suite
from mgfarm.tasks.adversaries import AgentFactory

SEED = 30  # AndroidWorld's own default seed for its suite
MEASURED = (
    "AndroidWorld suite, seed 30, agent `nothing`: per task a snapshot reset, AndroidWorld's "
    "initialize_task, one step, is_successful and tear_down (the farm's cost per task, no agent thinking)"
)


@dataclass
class SuiteTiming:
    """One agent's run of the suite on a farm of `replicas`."""

    label: str
    replicas: int
    up_s: float
    run: SuiteRun

    def summary(self) -> dict[str, Any]:
        ok = sum(r.success for r in self.run.results)
        episodes = len(self.run.results)
        return {
            "agent": self.label,
            "replicas": self.replicas,
            "up_s": round(self.up_s, 1),
            "wall_s": round(self.run.seconds, 1),
            "episodes": episodes,
            "succeeded": ok,
            "skipped": sum(r.success == "skipped" for r in self.run.rows),
            "s_per_task": round(self.run.seconds / episodes, 2) if episodes else 0.0,
        }


Run = tuple[str, str | AgentFactory, list[str]]  # label, agent (--agent value or factory), task patterns


def time_suite(
    counts: list[int], runs: list[Run], say: Callable[[str], None] | None = None, boot_timeout: float = 300.0
) -> list[SuiteTiming]:
    """Each run on a fresh farm of each replica count; farms are named bench-aw-N and always stopped."""
    timings = []
    for count in counts:
        name = f"bench-aw-{count}"
        if say:
            say(f"up --replicas {count}")
        start = time.monotonic()
        try:
            api.up(
                count,
                backend="process",
                name=name,
                adb_port=free_port(),
                first_port=random.randrange(20000, 60000, 2),
                boot_timeout=boot_timeout,
            )
            up_s = time.monotonic() - start
            for label, agent, tasks in runs:
                if say:
                    say(f"{label} on the AndroidWorld suite, {count} replicas")
                run = run_suite(name, agent, SEED, tasks, count, None, record=False, show=False)
                timings.append(SuiteTiming(label, count, up_s, run))
        finally:
            if farm_exists(name):
                api.down(name)
    return timings


def lines(timings: list[SuiteTiming]) -> list[str]:
    """What was measured, a line per run, and how to time the scripted solutions."""
    out = [f"measured: {MEASURED}"]
    for t in timings:
        s = t.summary()
        out.append(
            f"{s['replicas']:>3} replicas: {s['episodes']} tasks ({s['skipped']} skipped: app not on the "
            f"device) in {s['wall_s']:.1f} s, {s['s_per_task']:.2f} s per task; farm up {s['up_s']:.1f} s"
        )
    out.append(
        "the scripted UI solutions (1.0 on every passing task): "
        "python -m tests.compat.androidworld --replicas N (in a checkout, with the tests)"
    )
    return out


def write(timings: list[SuiteTiming], out_dir: Path, machine: dict[str, Any]) -> Path:
    """androidworld.json in `out_dir`: what was measured, the machine, a row per replica count."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "androidworld.json"
    doc = {"measured": MEASURED, "seed": SEED, "machine": machine, "rows": [t.summary() for t in timings]}
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path
