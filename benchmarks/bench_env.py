"""Env benchmark: reset and step latency, and pool throughput at several sizes (process backend).

    .venv/bin/python benchmarks/bench_env.py [--sizes 1,8,32,64] [--steps 10] [--rounds 3] [--task ID]

Starts a private farm (own MGFARM_HOME and adb server port), runs a scripted agent that never
ends episodes on purpose (click an element, scroll, go back), prints a table and JSON, then stops
the farm. A step is action + screenshot + UI tree; a reset is snapshot load + task setup + first
observation.
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


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of processes, from /proc (device processes of the farm)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def run_size(farm: str, size: int, steps: int, rounds: int, task: str, screenshot: bool) -> dict[str, Any]:
    from mgfarm.bench.measure import scripted_action
    from mgfarm.env.pool import EnvPool
    from mgfarm.farm.state import load_farm

    state = load_farm(farm)
    device_pids = [w.pid for w in state.workers]
    adb_pids = [state.adb_server_pid] if state.adb_server_pid else []
    kwargs: dict[str, Any] = {"max_steps": steps + 1, "screenshot": screenshot}
    cpu = {"client": 0.0, "devices": 0.0, "adb_server": 0.0}  # seconds over the stepping of all rounds
    with EnvPool(farm=farm, size=size, tasks=[task], seed=size, **kwargs) as pool:
        for _ in range(rounds):
            obs, _ = pool.reset_all()
            before = (time.process_time(), cpu_seconds(device_pids), cpu_seconds(adb_pids))
            for step in range(steps):
                actions = [scripted_action(step, o, i) for i, o in enumerate(obs)]
                obs, _, _, _, _ = pool.step_all(actions)
            after = (time.process_time(), cpu_seconds(device_pids), cpu_seconds(adb_pids))
            for key, start, end in zip(cpu, before, after, strict=True):
                cpu[key] += end - start
        result = pool.stats.summary()
    stepped = steps * size * rounds
    result["cpu_ms_per_step"] = {key: round(seconds * 1000 / stepped, 2) for key, seconds in cpu.items()}
    result["load_avg_1m"] = round(os.getloadavg()[0], 1)
    result["size"] = size
    return result


def print_table(results: list[dict[str, Any]]) -> None:
    head = f"{'size':>5} {'reset p50':>10} {'reset p99':>10} {'step p50':>9} {'step p99':>9} {'steps/s':>9}"
    print(head)
    for r in results:
        print(
            f"{r['size']:>5} {r['reset_p50_ms']:>10.1f} {r['reset_p99_ms']:>10.1f} "
            f"{r['step_p50_ms']:>9.1f} {r['step_p99_ms']:>9.1f} {r['steps_per_s']:>9.1f}"
        )
    print("\nwhere the time goes (mean ms per reset / step, per env):")
    for r in results:
        parts = ", ".join(f"{k}={v}" for k, v in r["mean_parts_ms"].items())
        cpu = r["cpu_ms_per_step"]
        print(f"  size {r['size']}: {parts}")
        print(
            f"           CPU per step: client {cpu['client']} ms, devices {cpu['devices']} ms, "
            f"adb server {cpu['adb_server']} ms "
            f"(load average {r['load_avg_1m']} on {os.cpu_count()} cores)"
        )


def main() -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--sizes", default="1,8,32,64")
    parser.add_argument("--steps", type=int, default=10, help="steps per episode")
    parser.add_argument("--rounds", type=int, default=3, help="episodes per env per size")
    parser.add_argument("--task", default="", help="task id (default: the first smoke task)")
    parser.add_argument("--json", default="", help="also write the results to this file")
    parser.add_argument("--text-only", action="store_true", help="observations without screenshots")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    home = tempfile.mkdtemp(prefix="mgfarm-bench-")
    os.environ["MGFARM_HOME"] = home
    from mgfarm.catalog import load_catalog
    from mgfarm.errors import MgfarmError
    from mgfarm.farm import api
    from mgfarm.farm.ports import free_port, quiet_range_start

    task = args.task or load_catalog().suite("smoke")[0].id
    name = "bench"
    started = time.perf_counter()
    first_port = quiet_range_start(max(sizes))
    api.up(max(sizes), backend="process", name=name, adb_port=free_port(), first_port=first_port)
    boot_s = time.perf_counter() - started
    results: list[dict[str, Any]] = []
    try:
        for size in sizes:
            try:
                result = run_size(name, size, args.steps, args.rounds, task, not args.text_only)
            except MgfarmError as exc:  # e.g. replicas marked failed under load: report, go on
                print(f"size {size}: {exc}", file=sys.stderr, flush=True)
                continue
            print(json.dumps(result), file=sys.stderr, flush=True)  # partial results survive a crash
            results.append(result)
    finally:
        api.down(name)
    report = {
        "task": task,
        "screenshots": not args.text_only,
        "steps_per_episode": args.steps,
        "episodes_per_env": args.rounds,
        "farm_boot_s": round(boot_s, 1),
        "results": results,
    }
    print(json.dumps(report, indent=1))
    print()
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
