"""Resets a second for the host, and CPU per reset by process group, on one process farm, with the
client code of one or more checkouts in turn (issue 22).

    .venv/bin/python benchmarks/bench_farm_resets.py [--replicas 16] [--rounds 5] [--runs 3]
        [--task calendar.add_event] ROOT [ROOT ...]

Starts a private farm (own MGFARM_HOME and adb server) from this checkout once; each run is a child
process with PYTHONPATH=ROOT holding an EnvPool of every replica: two warm-up `reset_all`, then
`rounds` timed ones. Runs alternate between the roots, so a before/after pair (e.g. a
`git worktree add --detach /tmp/base <commit>` and this checkout) shares the machine's load. CPU is
read from /proc: sim = the farm's workers, adb = its adb server, client = the child process.
Only the client side (mgfarm.env, mgfarm.tasks, mgfarm.device) comes from ROOT.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, time
from mgfarm.bench import usage
from mgfarm.env.pool import EnvPool
from mgfarm.farm.state import load_farm

name, task = sys.argv[1], sys.argv[4]
size, rounds, adb_pid = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
state = load_farm(name)
found = usage.farm_processes(state, adb_pid)
with EnvPool(farm=name, size=size, tasks=[task], seed=0) as pool:
    pool.reset_all()
    pool.reset_all()
    before, start = usage.cpu_s(state, found), time.perf_counter()
    for _ in range(rounds):
        pool.reset_all()
    wall = time.perf_counter() - start
    cpu = usage.cpu_delta(before, usage.cpu_s(state, found))
n = size * rounds
print(json.dumps({"resets_per_s": n / wall, "cpu_ms": {k: v * 1000 / n for k, v in cpu.items()}}))
"""


def run_child(root: str, name: str, args: argparse.Namespace, adb_pid: int) -> dict[str, Any]:
    """One timed run with the client code of `root`."""
    argv = [sys.executable, "-c", CHILD, name, str(args.replicas), str(args.rounds), args.task, str(adb_pid)]
    done = subprocess.run(
        argv, env={**os.environ, "PYTHONPATH": root}, capture_output=True, text=True, cwd=root
    )
    if done.returncode:
        raise SystemExit(f"run with {root} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["cpu_ms_total"] = sum(result["cpu_ms"].values())
    result["load"] = os.getloadavg()[0]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5, help="timed reset_all rounds per run")
    parser.add_argument("--runs", type=int, default=3, help="runs per root, alternating")
    parser.add_argument("--task", default="calendar.add_event")
    parser.add_argument("roots", nargs="+", help="checkouts whose client code is measured")
    args = parser.parse_args()
    os.environ["MGFARM_HOME"] = tempfile.mkdtemp(prefix="mgfarm-bench-resets-")
    from mgfarm.adb import server as adbserver
    from mgfarm.bench.measure import measure_up
    from mgfarm.farm import api
    from mgfarm.farm.ports import free_port

    port = free_port()
    adb_pid = adbserver.ensure_server(port)
    name = "resets"
    results: dict[str, list[dict[str, Any]]] = {root: [] for root in args.roots}
    try:
        up = measure_up(args.replicas, "process", name, port, settle=False, adb_server_pid=adb_pid)
        print(f"{args.replicas} replicas ready in {up.all_ready_s:.1f} s, load {os.getloadavg()[0]:.1f}")
        for run in range(args.runs):
            for root in args.roots:
                r = run_child(root, name, args, adb_pid)
                results[root].append(r)
                groups = "  ".join(f"{k} {v:.1f}" for k, v in sorted(r["cpu_ms"].items()))
                print(
                    f"run {run} {root}: {r['resets_per_s']:.1f} resets/s, "
                    f"CPU {r['cpu_ms_total']:.1f} ms a reset ({groups}), load {r['load']:.1f}",
                    flush=True,
                )
    finally:
        api.down(name)
        adbserver.kill_server(port)
    for root, runs in results.items():
        rates = sorted(r["resets_per_s"] for r in runs)
        cpus = sorted(r["cpu_ms_total"] for r in runs)
        print(
            f"{root}: median {rates[len(rates) // 2]:.1f} resets/s, {cpus[len(cpus) // 2]:.1f} CPU ms a reset"
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
