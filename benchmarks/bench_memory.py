"""A farm's memory with every app opened on every replica: all its processes, in use and once idle.

    MGFARM_HOME=$(mktemp -d) .venv/bin/python benchmarks/bench_memory.py [--replicas 1] [--no-grpc]

Starts a farm of its own (process backend), resets one env per replica, opens every installed app
on each (as `mgfarm bench` does), and reads the proportional set size (PSS: shared pages split
between the processes that map them) of every farm process: the sim workers, the watchdog and the
adb server, plus the frame files' pages on their tmpfs (`frames`, mgfarm/bench/usage.py). Four
moments: right after the last app opened ("in use"), after both workloads of `mgfarm bench` ran
their windows ("working", what `mgfarm bench` reports as working), while envs step at an agent's
pace, one step each every 2 s ("paced", `measure.run_paced`), and once the workers stopped
using CPU ("idle", when a worker hands its kept heap back, mgfarm/sim/heap.py). For each worker it
also prints where its PSS lies by mapping when working and idle (`[heap]` is malloc's, `[anon]`
mostly Python's object arenas and thread stacks, `*.frame` the shared frame file, the rest
libraries). Prints JSON last.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mgfarm.bench import measure, usage  # noqa: E402
from mgfarm.bench.workloads import MIXED, NEW_FRAME  # noqa: E402
from mgfarm.farm import api  # noqa: E402
from mgfarm.farm.ports import quiet_range_start  # noqa: E402
from mgfarm.farm.state import load_farm  # noqa: E402

FARM = "bench-memory"
TASK = "calendar.add_event"  # any task: the episode only needs a reset device


def by_mapping(pid: int, top: int = 8) -> dict[str, int]:
    """PSS in KiB of the `top` largest mappings of `pid`, by file name (`[heap]`, `[anon]`, ...)."""
    sizes: dict[str, int] = {}
    for path, kib in usage.pss_by_mapping(pid).items():
        name = path.rsplit("/", 1)[-1]
        sizes[name] = sizes.get(name, 0) + kib
    return dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:top])


def mib(kib: dict[str, int]) -> str:
    return " ".join(f"{group} {value / 1024:.1f}" for group, value in kib.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--no-grpc", action="store_true", help="farm without the emulator gRPC API")
    parser.add_argument("--warmup", type=int, default=5, help="uncounted steps before each workload window")
    parser.add_argument("--window", type=int, default=30, help="steps of each workload (0: apps only)")
    args = parser.parse_args()
    from mgfarm.env.pool import EnvPool

    # A free run of ports (as `mgfarm bench` takes): a port another farm holds inside the default
    # range splits the replicas into more workers, and each worker is a whole interpreter more.
    api.up(args.replicas, name=FARM, grpc=not args.no_grpc, first_port=quiet_range_start(args.replicas))
    try:
        farm = load_farm(FARM)
        found = usage.farm_processes(farm)
        usage.wait_settled(found.watchdog)
        moments = {"boot": measure.farm_memory_kib(FARM)}
        with EnvPool(farm=FARM, size=args.replicas, tasks=[TASK], seed=0, max_steps=400) as pool:
            opened = measure.open_every_app(pool)
            moments["in use"] = measure.farm_memory_kib(FARM)
            mappings: dict[str, dict[str, dict[str, int]]] = {}
            paced: measure.WindowSample | None = None
            if args.window:
                for workload in (MIXED, NEW_FRAME):
                    measure.measure_window(pool, workload, args.warmup, args.window, lambda: {})
                moments["working"] = measure.farm_memory_kib(FARM)
                mappings["working"] = {str(w.pid): by_mapping(w.pid) for w in farm.workers}
                paced = measure.run_paced(pool, lambda: usage.cpu_s(farm, found))
                moments["paced"] = measure.farm_memory_kib(FARM)
                mappings["paced"] = {str(w.pid): by_mapping(w.pid) for w in farm.workers}
            # Windows of 2 s: a worker trims after an idle quarter second (mgfarm/sim/heap.py).
            usage.wait_settled(found.sim, timeout=20.0, every=2.0)
            moments["idle"] = measure.farm_memory_kib(FARM)
            mappings["idle"] = {str(w.pid): by_mapping(w.pid) for w in farm.workers}
    finally:
        api.down(FARM)
    load = os.getloadavg()[0]
    if paced is not None:
        by_group = {g: round(1000 * c / max(1, paced.steps), 2) for g, c in sorted(paced.cpu_s.items())}
        print(f"paced: {paced.steps} steps in {paced.wall_s:.1f} s, CPU ms a step {by_group}")
    print(f"{args.replicas} replicas, {opened} apps opened on each, load average {load:.1f}; PSS MiB:")
    for moment, kib in moments.items():
        total = sum(kib.values()) / 1024
        print(f"{moment:7} total {total:.1f} ({total / args.replicas:.1f} a replica): {mib(kib)}")
    for moment, workers in mappings.items():
        print(f"{len(workers)} workers")
        for pid, sizes in workers.items():
            print(f"worker {pid} {moment}, KiB by mapping: {sizes}")
    print(json.dumps({"replicas": args.replicas, "load": load, "kib": moments, "workers": mappings}))


if __name__ == "__main__":
    main()
