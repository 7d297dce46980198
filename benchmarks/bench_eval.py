"""Eval benchmark: wall time of `eval --suite all --agent oracle` at several replica counts, and judge time.

    .venv/bin/python benchmarks/bench_eval.py [--replicas 1,16,64] [--seeds 1] [--suite all] [--json FILE]

For each replica count: starts a private process farm (own MGFARM_HOME, adb server port and port
range), runs every template of the suite once per seed with the oracle agent (no thumbnails, as
`eval --no-record`), then stops the farm. Prints a table and JSON: wall seconds, episodes per
second, speed-up over the first size, success rate, and judge time per episode (p50 / p95 / max:
the checks plus the side-effect diff, which pulls every declared database and lists settings and
shared storage). Farm start-up time is reported apart and not counted in the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import percentile

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run_size(replicas: int, suite: str, seeds: int) -> dict[str, Any]:
    from mgfarm.catalog import load_catalog
    from mgfarm.env.runner import run_jobs
    from mgfarm.farm import api
    from mgfarm.farm.ports import free_port
    from mgfarm.tasks.jobs import Job

    name = f"bench-eval-{replicas}"
    jobs = [Job(t, s, "oracle", "oracle") for t in load_catalog().suite(suite) for s in range(seeds)]
    start = time.perf_counter()
    first_port = random.randrange(20000, 60000 - 2 * replicas, 2)
    farm = api.up(replicas, backend="process", name=name, adb_port=free_port(), first_port=first_port)
    up_seconds = time.perf_counter() - start
    try:
        start = time.perf_counter()
        results = run_jobs(jobs, farm)
        wall = time.perf_counter() - start
    finally:
        api.down(name)
    judge = [r.judge_seconds for r in results if not r.error]
    return {
        "replicas": replicas,
        "episodes": len(results),
        "farm_up_s": round(up_seconds, 2),
        "wall_s": round(wall, 2),
        "episodes_per_s": round(len(results) / wall, 2) if wall else 0.0,
        "success_rate": round(sum(r.success for r in results) / max(1, len(results)), 3),
        "errors": sum(bool(r.error) for r in results),
        "episode_s_mean": round(statistics.fmean(r.seconds for r in results), 3) if results else 0.0,
        "judge_ms_p50": round(percentile(judge, 0.5) * 1000, 1),
        "judge_ms_p95": round(percentile(judge, 0.95) * 1000, 1),
        "judge_ms_max": round(max(judge, default=0.0) * 1000, 1),
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    base = rows[0]["wall_s"] if rows else 0.0
    print(
        f"{'replicas':>8} {'episodes':>8} {'wall s':>8} {'ep/s':>6} {'speed-up':>8} {'success':>8} "
        f"{'judge p50 ms':>12} {'judge p95 ms':>12} {'up s':>6}"
    )
    for r in rows:
        speedup = base / r["wall_s"] if r["wall_s"] else 0.0
        print(
            f"{r['replicas']:>8} {r['episodes']:>8} {r['wall_s']:>8.1f} {r['episodes_per_s']:>6.2f} "
            f"{speedup:>8.2f} {r['success_rate']:>8.0%} {r['judge_ms_p50']:>12.1f} "
            f"{r['judge_ms_p95']:>12.1f} {r['farm_up_s']:>6.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", default="1,16,64", help="comma-separated replica counts")
    parser.add_argument("--seeds", type=int, default=1, help="seeds per template")
    parser.add_argument("--suite", default="all", help="suite to evaluate (all, smoke, train, test, app)")
    parser.add_argument("--json", default="", help="also write the results to this file")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="mgfarm-bench-eval-")
    os.environ["MGFARM_HOME"] = home
    rows = [run_size(int(n), args.suite, args.seeds) for n in args.replicas.split(",") if n.strip()]
    report = {
        "benchmark": "eval",
        "suite": args.suite,
        "agent": "oracle",
        "seeds": args.seeds,
        "cpus": os.cpu_count(),
        "results": rows,
    }
    print_table(rows)
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
