"""Cold start of a farm: `up` of one replica to ready, and how long `up` takes to notice the device.

    .venv/bin/python benchmarks/bench_farm_up.py [--cycles 10] [--replicas 1] [TREE ...]

Each cycle runs, for each checkout TREE (default: this one), a fresh Python with
`PYTHONPATH=TREE` that times `measure_up(N, settle=False)` (the `cold start` of `mgfarm bench`) and
then `down`, all on one shared adb server, as `mgfarm bench` does. "noticed" is the time from the
adb server listing the device as `device` (a `host:track-devices` listener in that process) to the
farm's `Backend.attach` returning: what the farm's own waiting adds. Give two worktrees (`git
worktree add --detach /tmp/wt-old <commit>`) to compare them alternately on a noisy machine.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mgfarm.adb import server as adbserver  # noqa: E402
from mgfarm.farm.ports import free_port  # noqa: E402

ONE_CYCLE = """
import json, socket, sys, threading, time
from mgfarm.adb import wire
from mgfarm.bench.measure import measure_up
from mgfarm.farm import api
from mgfarm.farm.backends.base import Backend

port, replicas = int(sys.argv[1]), int(sys.argv[2])
seen = {}

def listen():
    sock = socket.create_connection(("127.0.0.1", port))
    wire.request(sock, "host:track-devices")
    while True:
        states = [line.partition("\\t")[2] for line in wire.read_hex_payload(sock).decode().splitlines()]
        if states.count("device") >= replicas and "device" not in seen:
            seen["device"] = time.perf_counter()

threading.Thread(target=listen, daemon=True).start()
time.sleep(0.2)
attach = Backend.attach

def timed_attach(self, *args, **kwargs):
    attach(self, *args, **kwargs)
    seen["attached"] = time.perf_counter()

Backend.attach = timed_attach
sample = measure_up(replicas, "process", "bench-up", port, settle=False)
api.down("bench-up")
print(json.dumps([sample.all_ready_s, seen["attached"] - seen.get("device", seen["attached"])]))
"""


def cycle(tree: Path, port: int, replicas: int) -> tuple[float, float]:
    """One up/down from `tree` in a fresh interpreter and home: (seconds to ready, seconds to notice)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "MGFARM_HOME": tempfile.mkdtemp(prefix="mgfarm-bench-up-")}
    argv = [sys.executable, "-c", ONE_CYCLE, str(port), str(replicas)]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tree, check=False)
    if proc.returncode:
        raise SystemExit(f"up from {tree} failed:\n{proc.stderr[-2000:]}")
    ready, noticed = json.loads(proc.stdout.strip().splitlines()[-1])
    return ready, noticed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("trees", nargs="*", type=Path, default=[ROOT])
    args = parser.parse_args()
    port = free_port()
    server = adbserver.ensure_server(port)
    results: dict[Path, list[tuple[float, float]]] = {tree: [] for tree in args.trees}
    try:
        for _ in range(args.cycles):
            for tree in args.trees:
                results[tree].append(cycle(tree.resolve(), port, args.replicas))
    finally:
        if server:
            adbserver.kill_server(port)
    summary = {}
    for tree, samples in results.items():
        ready = sorted(r for r, _ in samples)
        noticed = sorted(round(1000 * n) for _, n in samples)
        summary[str(tree)] = {"ready_s_median": round(statistics.median(ready), 3), "noticed_ms": noticed}
        print(
            f"{tree}: ready median {statistics.median(ready):.3f} s {[round(r, 2) for r in ready]}; "
            f"noticed after median {statistics.median(noticed):.0f} ms, max {max(noticed)} ms"
        )
    print(json.dumps({"load_average": os.getloadavg(), "results": summary}))


if __name__ == "__main__":
    main()
