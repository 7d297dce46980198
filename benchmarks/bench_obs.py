"""Observation benchmark: the trainer-side CPU of an env step, with the device in another process.

    .venv/bin/python benchmarks/bench_obs.py [--steps 200]

One `python -m mgfarm.sim serve` worker behind a private adb server; a `MobileEnv` in this process
steps with `wait` actions in two workloads: `same` (the screen never changes: the step fetches the
PNG and the UI tree again, and the decoded frame is found by its bytes) and `alternate` (two
screens in turn, each decoded once, then found). The CPU this process spends per step is the
client's share (decode, hash, parse, what the env copies); the device's is in the worker. Compare
two checkouts by running this file from each, alternately, on the same machine. Prints medians and
JSON.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile  # noqa: E402
from mgfarm.adb.binary import find_adb  # noqa: E402
from mgfarm.device import Device  # noqa: E402
from mgfarm.env.env import MobileEnv  # noqa: E402
from mgfarm.farm.ports import quiet_range_start  # noqa: E402
from tests.integration.conftest import start_adb_server, stop_adb_server  # noqa: E402

WAIT = {"action_type": "wait"}
WARMUP = 5


def steps(env: MobileEnv, count: int, between: list[str]) -> dict[str, float]:
    """Median wall ms and mean client CPU ms of `count` steps; `between` commands run in turn before
    each step (outside the timing) to change the screen."""
    walls: list[float] = []
    cpu = 0.0
    for i in range(count + WARMUP):
        if between:
            env.device.shell(between[i % len(between)])
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        env.step(WAIT)
        if i >= WARMUP:
            cpu += time.process_time() - cpu_start
            walls.append((time.perf_counter() - wall_start) * 1000)
    return {"step_ms": percentile(walls, 0.5), "client_cpu_ms": cpu * 1000 / count}


def run(count: int) -> dict[str, dict[str, float]]:
    tmp = Path(tempfile.mkdtemp(prefix="mgfarm-bench-obs-"))
    os.environ["MGFARM_HOME"] = str(tmp / "home")
    server = start_adb_server(find_adb(), tmp / "adbhome")
    token_file = tmp / "token"
    token_file.write_text(secrets.token_hex(8))
    console = quiet_range_start(1)
    worker = subprocess.Popen(
        [
            *(sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(console + 1)),
            *("--token-file", str(token_file), "--announce", str(server.port), "--no-sandbox"),
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
        device = Device(f"emulator-{console}", adb_port=server.port, console_token=token_file.read_text())
        device.wait_ready(30)
        device.snapshot_save("golden")
        env = MobileEnv("calendar.add_event", seed=0, device=device, wait_seconds=0.0, max_steps=10**6)
        env.reset(seed=0)
        results = {
            "same": steps(env, count, []),
            "alternate": steps(
                env, count, ["am start -a android.settings.SETTINGS", "input keyevent KEYCODE_BACK"]
            ),
        }
        env.close()
        device.close()
        return results
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        stop_adb_server(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    results = run(args.steps)
    print(f"{args.steps} steps a workload in {ROOT}, load average {load:.1f}:")
    for name, row in results.items():
        print(f"  {name:<10} step p50 {row['step_ms']:.1f} ms  client CPU {row['client_cpu_ms']:.2f} ms/step")
    print(json.dumps({"root": str(ROOT), "load": load, **results}))


if __name__ == "__main__":
    main()
