"""Vector env throughput in the trainer's process versus in worker processes (issue 22).

    nice .venv/bin/python benchmarks/bench_vector.py [--sizes 1,4,16,64] [--processes 2]
        [--warmup 10] [--window 20] [--resets 3] [--json FILE]

Starts a private farm (own MGFARM_HOME and adb server) of max(sizes) replicas and times it to all
ready, then for each size runs both workloads of `mgfarm bench` (mixed, new-frame; see
mgfarm/bench/workloads.py) through `mgfarm.make_vec` twice in a row: envs in this process
(`processes=0`) and in worker processes (`processes=K`, `copy=False`). Only counted steps (past each
env's warm-up; for new-frame, taps that bring a never-seen number on screen) are timed. Each run
dials numbers of its own, so no run sees frames a previous one put in a cache. At the largest size
it also times `reset()` of all envs (resets/s for the host). Prints a table and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def step_window(venv: Any, workload: str, warmup: int, window: int, run: int, cpu: Any) -> dict[str, Any]:
    """One fresh episode per env running `workload`; wall and CPU of the counted steps only."""
    from mgfarm.bench import usage
    from mgfarm.bench.workloads import (
        NEW_FRAME,
        counted,
        mixed_action,
        new_frame_action,
        new_frame_counted,
        steps_for,
    )

    size = venv.num_envs
    obs, _ = venv.reset()
    is_counted = new_frame_counted if workload == NEW_FRAME else counted
    wall = 0.0
    steps = 0
    off_plan = 0
    spent: dict[str, float] = {}
    for step in range(steps_for(workload, warmup, window)):
        each = [{"ui_elements": elements} for elements in obs["ui_elements"]]
        if workload == NEW_FRAME:
            # env ids of their own per run: the numbers dialled (so the frames) are new to every cache
            planned = [new_frame_action(step, o, run * 1000 + i, size) for i, o in enumerate(each)]
            actions = [a for a, _ in planned]
            on_plan = all(ok for _, ok in planned)
            off_plan += sum(not ok for _, ok in planned)
        else:
            actions, on_plan = [mixed_action(step, o, i) for i, o in enumerate(each)], True
        take = on_plan and is_counted(step, warmup)
        before = cpu() if take else {}
        start = time.perf_counter()
        obs, _, _, _, _ = venv.step(actions)
        if take:
            wall += time.perf_counter() - start
            steps += size
            spent = usage.add_cpu(spent, usage.cpu_delta(before, cpu()))
    return {
        "steps": steps,
        "steps_per_s": round(steps / wall, 1) if wall else 0.0,
        "cpu_ms_per_step": {k: round(v * 1000 / steps, 2) for k, v in sorted(spent.items())} if steps else {},
        "off_plan": off_plan,
    }


def reset_rate(venv: Any, rounds: int) -> float:
    """Resets a second for the host: every env reset at once, `rounds` times."""
    start = time.perf_counter()
    for _ in range(rounds):
        venv.reset()
    return venv.num_envs * rounds / (time.perf_counter() - start)


def run(
    farm: str, size: int, processes: int, args: argparse.Namespace, run_id: int, task: str
) -> dict[str, Any]:
    import mgfarm
    from mgfarm.bench import usage
    from mgfarm.bench.workloads import MIXED, NEW_FRAME, steps_for
    from mgfarm.env.process_pool import ProcessEnvPool
    from mgfarm.farm.state import load_farm

    state = load_farm(farm)
    found = usage.farm_processes(state, args.adb_server_pid)
    longest = max(steps_for(w, args.warmup, args.window) for w in (MIXED, NEW_FRAME))
    started = time.perf_counter()
    venv = mgfarm.make_vec(
        size,
        task,
        farm=farm,
        seed=size,
        processes=processes,
        copy=False,
        max_steps=longest + 2,
        wait_seconds=0.0,
    )
    made_s = time.perf_counter() - started
    workers = venv.pool.pids() if isinstance(venv.pool, ProcessEnvPool) else []

    def cpu() -> dict[str, float]:
        reading = usage.cpu_s(state, found)
        reading.pop("watchdog", None)
        reading["env_workers"] = sum(usage.process_cpu_s(p) for p in workers)
        return reading

    result: dict[str, Any] = {"size": size, "processes": processes, "make_s": round(made_s, 2)}
    try:
        for number, workload in enumerate((MIXED, NEW_FRAME)):
            result[workload] = step_window(venv, workload, args.warmup, args.window, run_id * 2 + number, cpu)
        if size == max(args.sizes):
            result["resets_per_s"] = round(reset_rate(venv, args.resets), 1)
    finally:
        venv.close()
    result["load_avg_1m"] = round(os.getloadavg()[0], 1)
    return result


def print_table(results: list[dict[str, Any]]) -> None:
    head = f"{'size':>4} {'procs':>5} {'mixed/s':>8} {'new/s':>7} {'resets/s':>8}"
    print(f"{head}  CPU ms a step: mixed | new-frame")
    for r in results:
        parts = []
        for workload in ("mixed", "new-frame"):
            cpu = r[workload]["cpu_ms_per_step"]
            parts.append(" ".join(f"{k} {v}" for k, v in cpu.items()))
        mixed, new = r["mixed"]["steps_per_s"], r["new-frame"]["steps_per_s"]
        rates = f"{mixed:>8} {new:>7} {r.get('resets_per_s', ''):>8}"
        print(
            f"{r['size']:>4} {r['processes']:>5} {rates}  {parts[0]} | {parts[1]}  (load {r['load_avg_1m']})"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1,4,16,64")
    parser.add_argument("--processes", type=int, default=2, help="worker processes of the process variant")
    parser.add_argument("--warmup", type=int, default=10, help="uncounted steps per env at the start")
    parser.add_argument("--window", type=int, default=20, help="counted steps per env per workload")
    parser.add_argument("--resets", type=int, default=3, help="reset() rounds at the largest size")
    parser.add_argument("--task", default="", help="task id (default: the first smoke task)")
    parser.add_argument("--json", default="", help="also write the results to this file")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]

    os.environ["MGFARM_HOME"] = tempfile.mkdtemp(prefix="mgfarm-bench-vector-")
    from mgfarm.adb import server as adbserver
    from mgfarm.catalog import load_catalog
    from mgfarm.farm.ports import free_port

    task = args.task or load_catalog().suite("smoke")[0].id
    name = "benchvec"
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr, flush=True)
    adb_port = free_port()
    server_pid = adbserver.ensure_server(adb_port)  # started before, as `mgfarm bench` does
    try:
        return measure(args, task, name, adb_port, server_pid)
    finally:
        if server_pid:
            adbserver.kill_server(adb_port)


def measure(args: argparse.Namespace, task: str, name: str, adb_port: int, server_pid: int) -> int:
    from mgfarm.bench.measure import measure_up
    from mgfarm.farm import api

    up = measure_up(max(args.sizes), "process", name, adb_port, settle=False, adb_server_pid=server_pid)
    args.adb_server_pid = server_pid
    report: dict[str, Any] = {
        "task": task,
        "replicas": max(args.sizes),
        "all_ready_s": round(up.all_ready_s, 2),
        "load_avg_at_up": os.getloadavg(),
        "results": [],
    }
    print(f"{max(args.sizes)} replicas ready in {up.all_ready_s:.2f} s", file=sys.stderr, flush=True)
    run_id = 0
    try:
        for size in args.sizes:
            for processes in (0, args.processes):
                run_id += 1
                result = run(name, size, processes, args, run_id, task)
                print(json.dumps(result), file=sys.stderr, flush=True)
                report["results"].append(result)
    finally:
        api.down(name)
    print(json.dumps(report, indent=1))
    print()
    print(f"{report['replicas']} replicas ready in {report['all_ready_s']} s")
    print_table(report["results"])
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
