"""Farm benchmark: time from `up --replicas N` to all ready, and memory per replica, per backend.

    .venv/bin/python benchmarks/bench_farm.py [--sizes 1,16,64] [--backends process,docker] [--json out.json]

Each run uses a private MGFARM_HOME and adb server port, calls `mgfarm.farm.api.up` (what the CLI
calls), reads memory once all replicas are ready (PSS of the worker processes; container memory
minus page cache for docker, plus the engine's docker-proxy RSS reported apart), then `down`.
Goals on a 2-core machine: 64 process replicas in <= 15 s at <= 40 MB each; 64 docker replicas in
<= 60 s at <= 80 MB each.
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

GOALS = {"process": (15.0, 40.0), "docker": (60.0, 80.0)}


def docker_proxy_kib(farm: Any) -> int:
    """RSS of the engine's userland proxies for the farm's published ports (host-side cost per device)."""
    from mgfarm.farm.procs import memory_kib

    ports = {str(p) for r in farm.replicas for p in (r.console_port, r.adb_port)}
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"docker-proxy") and b"-host-port" in argv:
            host_port = argv[argv.index(b"-host-port") + 1].decode()
            if host_port in ports:
                total += memory_kib(int(entry.name))
    return total


def run_one(backend: str, size: int) -> dict[str, Any]:
    from mgfarm.adb import server as adbserver
    from mgfarm.farm import api
    from mgfarm.farm.health import backend_of
    from mgfarm.farm.ports import free_port

    with tempfile.TemporaryDirectory(prefix="mgfarm-bench-") as home:
        os.environ["MGFARM_HOME"] = home
        port = free_port()
        adbserver.ensure_server(port)  # started outside the timing, as a running farm host has it
        try:
            started = time.monotonic()
            farm = api.up(size, backend=backend, name="bench", adb_port=port)
            seconds = time.monotonic() - started
            time.sleep(1.0)  # let boot-time garbage settle before reading memory
            kib = backend_of(farm).memory_kib(farm)
            proxy_kib = docker_proxy_kib(farm) if backend == "docker" else 0
            ready = sum(r.state == "ready" for r in farm.replicas)
            api.down("bench")
        finally:
            adbserver.kill_server(port)
    goal_s, goal_mb = GOALS[backend]
    per_mb = kib / 1024 / size
    return {
        "backend": backend,
        "replicas": size,
        "ready": ready,
        "seconds_to_ready": round(seconds, 2),
        "mb_per_replica": round(per_mb, 1),
        "total_mb": round(kib / 1024, 1),
        "docker_proxy_mb_per_replica": round(proxy_kib / 1024 / size, 1),
        "goal_seconds_64": goal_s,
        "goal_mb_per_replica": goal_mb,
    }


def print_table(results: list[dict[str, Any]]) -> None:
    print(
        f"{'backend':<8} {'N':>4} {'ready':>6} {'up->ready s':>12} {'MB/replica':>11} {'total MB':>9} "
        f"{'proxy MB/replica':>17}"
    )
    for r in results:
        print(
            f"{r['backend']:<8} {r['replicas']:>4} {r['ready']:>6} {r['seconds_to_ready']:>12.2f} "
            f"{r['mb_per_replica']:>11.1f} {r['total_mb']:>9.1f} "
            f"{r['docker_proxy_mb_per_replica']:>17.1f}"
        )


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--sizes", default="1,16,64", help="Comma-separated replica counts.")
    parser.add_argument("--backends", default="process,docker", help="process, docker or both.")
    parser.add_argument("--json", type=Path, default=None, help="Also write the results here.")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    results = []
    for backend in [b for b in args.backends.split(",") if b]:
        for size in sizes:
            results.append(run_one(backend, size))
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    print_table(results)
    text = json.dumps(results, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
