"""How long `mgfarm.make_vec` takes to build, envs in this process versus in worker processes (issue 22).

    nice .venv/bin/python benchmarks/bench_vector_build.py [--sizes 16,64] [--processes 2]
        [--rounds 3] [--base DIR]

Starts a private farm (own MGFARM_HOME and adb server) of max(sizes) replicas. Every measurement is
a fresh Python process, as a training script is: it imports mgfarm, calls `make_vec(n, task,
processes=P)` and closes it. Printed per run: `script_s` (start of the script to the vector env
ready: imports, catalog, envs), `make_s` (the `make_vec` call alone) and, with worker processes, when
each worker got through its start (seconds after it was spawned: imported, configured, built its
envs, mapped the shared slots). `--base DIR` (a `git worktree` of an older commit) runs every
measurement with that checkout's mgfarm too, right after this one's, for before/after ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = """
import json, sys, time
started = time.perf_counter()
import mgfarm
size, processes, task = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
before = time.perf_counter()
venv = mgfarm.make_vec(size, task, seed=size, processes=processes, copy=False, wait_seconds=0.0)
done = time.perf_counter()
startup = getattr(venv.pool, "startup", None)
venv.close()
print(json.dumps({"script_s": round(done - started, 2), "make_s": round(done - before, 2),
                  "startup": startup}))
"""


def measure(checkout: Path, size: int, processes: int, task: str) -> dict[str, Any]:
    """One fresh process building a vector env with `checkout`'s mgfarm."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(size), str(processes), task],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{checkout}: make_vec({size}, processes={processes}) failed:\n{out.stderr}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="16,64")
    parser.add_argument("--processes", type=int, default=2, help="worker processes of the process variant")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each (size, processes)")
    parser.add_argument("--base", default="", help="an older checkout to measure alongside this one")
    parser.add_argument("--task", default="", help="task id (default: the first smoke task)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    checkouts = {"this": ROOT, **({"base": Path(args.base).resolve()} if args.base else {})}

    os.environ["MGFARM_HOME"] = tempfile.mkdtemp(prefix="mgfarm-bench-vector-build-")
    from mgfarm.adb import server as adbserver
    from mgfarm.bench.measure import measure_up
    from mgfarm.catalog import load_catalog
    from mgfarm.farm import api
    from mgfarm.farm.ports import free_port

    task = args.task or load_catalog().suite("smoke")[0].id
    name = "benchvecbuild"
    adb_port = free_port()
    server_pid = adbserver.ensure_server(adb_port)
    results: list[dict[str, Any]] = []
    try:
        up = measure_up(max(sizes), "process", name, adb_port, settle=False, adb_server_pid=server_pid)
        print(f"{max(sizes)} replicas ready in {up.all_ready_s:.2f} s", file=sys.stderr, flush=True)
        for round_number in range(args.rounds):
            for size in sizes:
                for processes in (0, args.processes):
                    for label, checkout in checkouts.items():
                        result = measure(checkout, size, processes, task)
                        result.update(
                            checkout=label,
                            size=size,
                            processes=processes,
                            round=round_number,
                            load_avg_1m=round(os.getloadavg()[0], 1),
                        )
                        print(json.dumps(result), file=sys.stderr, flush=True)
                        results.append(result)
    finally:
        api.down(name)
        adbserver.kill_server(adb_port)
    print(f"{'checkout':>8} {'size':>4} {'procs':>5} {'make_s median':>13} {'script_s median':>15}  loads")
    for label in checkouts:
        for size in sizes:
            for processes in (0, args.processes):
                runs = [
                    r
                    for r in results
                    if (r["checkout"], r["size"], r["processes"]) == (label, size, processes)
                ]
                make = statistics.median(r["make_s"] for r in runs)
                script = statistics.median(r["script_s"] for r in runs)
                loads = "/".join(str(r["load_avg_1m"]) for r in runs)
                print(f"{label:>8} {size:>4} {processes:>5} {make:>13.2f} {script:>15.2f}  {loads}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
