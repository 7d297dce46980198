"""Ray overhead: aggregate steps/s of `RayEnvPool` against the local `EnvPool` on the same replicas.

    .venv/bin/python benchmarks/bench_ray.py [--replicas 8] [--steps 30] [--nodes 1] [--json out.json]

Starts a private local Ray cluster (`--nodes` nodes on this machine, each offering
replicas/nodes `mgfarm_replica`), one farm per node with `mgfarm.ray.cluster.up` (process backend,
own MGFARM_HOME and adb server port), then runs the same non-terminal actions through:
  local: one `mgfarm.EnvPool` per node's farm, stepped together from this process (threads);
  ray:   one `RayEnvPool` over all the farms (each env a Ray actor on its node).
A step is action + screenshot + UI tree; episodes that hit their step budget autoreset in both.
Prints JSON and a table, then stops everything it started.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TASK = """\
- id: bench.ray_home
  apps: [settings]
  goal: "Turn Wi-Fi off."
  difficulty: L1
  setup:
    - settings: {global: {wifi_on: 1}}
  judge:
    all:
      - settings.equals: {namespace: global, key: wifi_on, value: 0}
  outcome: [{setting: {key: global.wifi_on, value: 0}}]
  oracle:
    - open_app: Settings
"""
ACTIONS: list[dict[str, Any]] = [
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "navigate_home"},
]


def measure(step_all: Any, size: int, steps: int) -> dict[str, Any]:
    """Steps/s over `steps` batched steps after two warm-up steps; counts only real env steps."""
    for n in range(2):
        step_all([ACTIONS[n % 2]] * size)
    counted, latencies = 0, []
    start = time.perf_counter()
    for n in range(steps):
        t = time.perf_counter()
        infos = step_all([ACTIONS[n % 2]] * size)
        latencies.append((time.perf_counter() - t) * 1000)
        counted += sum(1 for i in infos if not i.get("autoreset") and not i.get("failed"))
    wall = time.perf_counter() - start
    latencies.sort()
    return {
        "env_steps": counted,
        "wall_s": round(wall, 3),
        "steps_per_s": round(counted / wall, 1),
        "batch_ms_p50": round(latencies[len(latencies) // 2], 1),
        "batch_ms_p99": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 1),
    }


def run_local(farms: list[str], per_node: int, steps: int) -> dict[str, Any]:
    import mgfarm

    pools = [mgfarm.EnvPool(farm=f, size=per_node, tasks=["bench.ray_home"], wait_seconds=0.0) for f in farms]
    threads = ThreadPoolExecutor(max_workers=len(pools))
    try:
        list(threads.map(lambda p: p.reset_all(), pools))

        def step_all(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
            chunks = [actions[i * per_node : (i + 1) * per_node] for i in range(len(pools))]
            results = list(threads.map(lambda pa: pa[0].step_all(pa[1]), zip(pools, chunks, strict=True)))
            return [info for r in results for info in r[4]]

        return measure(step_all, per_node * len(pools), steps)
    finally:
        for pool in pools:
            pool.close()
        threads.shutdown()


def run_ray(address: str, size: int, steps: int) -> dict[str, Any]:
    from mgfarm.ray import RayEnvPool

    pool = RayEnvPool(size=size, tasks=["bench.ray_home"], address=address, wait_seconds=0.0)
    try:
        pool.reset_all()
        return measure(lambda actions: pool.step_all(actions)[4], size, steps)
    finally:
        pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=8, help="replicas in total (split over nodes)")
    parser.add_argument("--nodes", type=int, default=1, help="Ray nodes on this machine")
    parser.add_argument("--steps", type=int, default=30, help="batched steps measured per pool")
    parser.add_argument("--json", default="", help="also write the results to this file")
    args = parser.parse_args()
    per_node = args.replicas // args.nodes
    root = Path(tempfile.mkdtemp(prefix="mgfarm-bench-ray-"))
    (root / "tasks").mkdir()
    (root / "tasks" / "bench.yaml").write_text(TASK)
    os.environ["MGFARM_HOME"] = str(root / "home")
    os.environ["MGFARM_TASKS"] = str(root / "tasks")
    # Keep the local Ray cluster on loopback (Ray otherwise swaps 127.0.0.1 for the host's address).
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

    import ray
    from ray.cluster_utils import Cluster

    from mgfarm.farm.ports import free_port
    from mgfarm.ray import cluster
    from mgfarm.ray.resources import REPLICA_RESOURCE

    node_args: dict[str, Any] = {
        "node_ip_address": "127.0.0.1",
        "num_cpus": 1,
        "resources": {REPLICA_RESOURCE: per_node},
        "object_store_memory": 200 * 1024 * 1024,
    }
    local = Cluster(initialize_head=True, head_node_args={**node_args, "include_dashboard": False})
    for _ in range(args.nodes - 1):
        local.add_node(**node_args)
    local.wait_for_nodes()
    ray.init(address=local.address, namespace="mgfarm", log_to_driver=False, logging_level=logging.WARNING)
    try:
        options = {"adb_port": free_port(), "first_port": random.randrange(30000, 50000, 2)}
        statuses = cluster.up(local.address, per_node, "process", options)
        farms = [s["farm"] for s in statuses]
        # Same replicas, one pool after the other; local first so Ray's start-up is not in its way.
        results = {
            "local": run_local(farms, per_node, args.steps),
            "ray": run_ray(local.address, per_node * args.nodes, args.steps),
        }
    finally:
        if cluster.farm_actors():
            cluster.down(local.address)
        ray.shutdown()
        local.shutdown()
    overhead = 1 - results["ray"]["steps_per_s"] / results["local"]["steps_per_s"]
    report = {
        "benchmark": "ray_pool_overhead",
        "replicas": per_node * args.nodes,
        "nodes": args.nodes,
        "steps": args.steps,
        "cpus": os.cpu_count(),
        "results": results,
        "ray_throughput_loss": round(overhead, 3),
    }
    print(json.dumps(report, indent=1))
    print()
    print(
        f"{'pool':<6} {'env steps':>9} {'wall s':>7} {'steps/s':>8} {'batch p50 ms':>13} {'batch p99 ms':>13}"
    )
    for name, r in results.items():
        print(
            f"{name:<6} {r['env_steps']:>9} {r['wall_s']:>7} {r['steps_per_s']:>8} "
            f"{r['batch_ms_p50']:>13} {r['batch_ms_p99']:>13}"
        )
    print(f"Ray costs {overhead:.1%} of the local pool's throughput on {report['replicas']} replicas.")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
