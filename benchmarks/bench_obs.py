"""Observation benchmark: the CPU of an env step in the client, the device worker and the adb server,
with frames as PNG over adb and as raw pixels through the farm's shared frame file, in one run.

    .venv/bin/python benchmarks/bench_obs.py [--steps 100]

One `python -m mgfarm.sim serve` worker behind a private adb server, given a frame file as `mgfarm
up` gives one (`--frames`); three `MobileEnv`s in this process drive its device, one whose `Device`
has no frame file (`png`: `screencap -p` decoded, the UI tree in a second round trip, what every
device got before) and two that have it (`shm`: `mgfarm-frame --ui`, one round trip; `shm/2`: the
same at half width and height, resized in the sim). Workloads, each
on a fresh episode, counted past a warm-up: `same` (`wait` steps: the screen never changes),
`mixed` and `new-frame` (mgfarm.bench.workloads: clicks, scrolls and back; dial-pad taps that put a
never-drawn number on screen). The paths type different numbers, so neither finds the other's
frames in a cache. CPU per step: this process (`process_time` around `env.step`), the worker and the
adb server (/proc, in clock ticks: a sum over many steps, not one step's). Prints a table and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile  # noqa: E402
from mgfarm.adb.binary import find_adb  # noqa: E402
from mgfarm.bench.workloads import mixed_action, new_frame_action, new_frame_counted  # noqa: E402
from mgfarm.device import Device, framebuffer  # noqa: E402
from mgfarm.env.env import MobileEnv  # noqa: E402
from mgfarm.farm.ports import quiet_range_start  # noqa: E402
from tests.integration.conftest import start_adb_server, stop_adb_server  # noqa: E402
from tests.support import processes_matching  # noqa: E402

WARMUP = 5
WORKLOADS = ("same", "mixed", "new-frame")
PATHS = ("png", "shm", "shm/2")  # shm/2: half-size screenshots (`screen_scale=2`), resized in the sim
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process `pid` so far (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def server_pid(port: int) -> int:
    """The adb server process listening on `port` (its command line names `tcp:PORT`)."""
    listen = f"tcp:{port}".encode()
    found = processes_matching(lambda cmdline: b"fork-server" in cmdline and listen in cmdline)
    if not found:
        raise SystemExit(f"no adb server process found for port {port}")
    return found[0]


def action(workload: str, step: int, obs: dict[str, Any], path: int) -> tuple[dict[str, Any], bool]:
    """The step's action and whether the step counts."""
    if workload == "new-frame":
        act, _ = new_frame_action(step, obs, env=path, envs=len(PATHS))
        return act, new_frame_counted(step, WARMUP)
    if workload == "mixed":
        return mixed_action(step, obs, env=path), step >= WARMUP
    return {"action_type": "wait"}, step >= WARMUP


def run_workload(
    env: MobileEnv, workload: str, count: int, path: int, pids: dict[str, int]
) -> dict[str, float]:
    """Median wall ms and mean CPU ms per counted step of client, worker and adb server."""
    obs, _ = env.reset(seed=0)
    walls: list[float] = []
    cpu = dict.fromkeys(("client", "sim", "adb"), 0.0)
    step = 0
    while len(walls) < count:
        act, counts = action(workload, step, obs, path)
        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        obs, *_ = env.step(act)
        client, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
        if counts:
            walls.append(wall * 1000)
            cpu["client"] += client
            for name, pid in pids.items():
                cpu[name] += cpu_seconds(pid) - before[name]
        step += 1
    row = {f"{name}_cpu_ms": seconds * 1000 / count for name, seconds in cpu.items()}
    row["total_cpu_ms"] = sum(row.values())
    return {"step_ms": percentile(walls, 0.5), **row}


def run(count: int) -> dict[str, dict[str, dict[str, float]]]:
    tmp = Path(tempfile.mkdtemp(prefix="mgfarm-bench-obs-"))
    os.environ["MGFARM_HOME"] = str(tmp / "home")
    server = start_adb_server(find_adb(), tmp / "adbhome")
    token_file = tmp / "token"
    token_file.write_text(secrets.token_hex(8))
    console = quiet_range_start(1)
    frame_file = tmp / "frames" / f"emulator-{console}.frame"
    framebuffer.create(frame_file)  # as the process backend does for each replica
    worker = subprocess.Popen(
        [
            *(sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(console + 1)),
            *("--token-file", str(token_file), "--announce", str(server.port), "--no-sandbox"),
            *("--frames", str(frame_file.parent)),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert worker.stdout is not None
        line = worker.stdout.readline()
        if not line.startswith("ready "):
            raise SystemExit(f"the worker did not start: {line!r}")
        pids = {"sim": worker.pid, "adb": server_pid(server.port)}
        devices = {
            path: Device(
                f"emulator-{console}",
                adb_port=server.port,
                console_token=token_file.read_text(),
                frame_file=str(frame_file) if path != "png" else "",
            )
            for path in PATHS
        }
        devices["png"].wait_ready(30)
        devices["png"].snapshot_save("golden")
        envs = {
            path: MobileEnv(
                "calendar.add_event",
                seed=0,
                device=device,
                wait_seconds=0.0,
                max_steps=10**6,
                screen_scale=2 if path == "shm/2" else 1,
            )
            for path, device in devices.items()
        }
        assert devices["shm"].shares_frames and not devices["png"].shares_frames
        results: dict[str, dict[str, dict[str, float]]] = {w: {} for w in WORKLOADS}
        for workload in WORKLOADS:
            for index, path in enumerate(PATHS):
                results[workload][path] = run_workload(envs[path], workload, count, index, pids)
        for env in envs.values():
            env.close()
        for device in devices.values():
            device.close()
        return results
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        stop_adb_server(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="counted steps per workload and path")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    results = run(args.steps)
    print(f"{args.steps} steps a workload and path in {ROOT}, load average {load:.1f} at the start:")
    print("  workload   path   step p50 ms  CPU ms/step: client + sim + adb server = total")
    for workload, paths in results.items():
        for path, r in paths.items():
            print(
                f"  {workload:<10} {path:<6} {r['step_ms']:>10.1f}  {r['client_cpu_ms']:>6.2f} + "
                f"{r['sim_cpu_ms']:.2f} + {r['adb_cpu_ms']:.2f} = {r['total_cpu_ms']:.2f}"
            )
    print(json.dumps({"root": str(ROOT), "load": load, "steps": args.steps, **results}))


if __name__ == "__main__":
    main()
