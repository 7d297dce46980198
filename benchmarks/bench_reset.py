"""Reset benchmark: where an env reset's time goes (snapshot restore, task setup with the judge's
state capture, first observation), on one simulated device hosted in this process.

    .venv/bin/python benchmarks/bench_reset.py [--resets 30] [--task calendar.add_event]

The device runs on an asyncio thread of this process behind a private adb server (tests/simhost.py),
so no farm is needed; it saves the golden snapshot, then resets a `MobileEnv` and, in turn, runs the
state capture alone (`mgfarm.tasks.state.capture`, most of a setup), in wall and in CPU time of this
process (client and device together: on a busy machine the steadier figure), and counts a reset's
adb round trips (shell commands, sync sessions, console commands). Prints medians and JSON.
Compare two checkouts by running this file from each, alternately, on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile  # noqa: E402
from mgfarm.adb.binary import find_adb  # noqa: E402
from mgfarm.device import Device  # noqa: E402
from mgfarm.env.env import MobileEnv  # noqa: E402
from mgfarm.tasks.state import capture  # noqa: E402
from tests.integration.conftest import start_adb_server, stop_adb_server  # noqa: E402
from tests.simhost import SimThread  # noqa: E402

WARMUP = 2  # first resets load modules and fill caches
WIRE_CALLS = ("run_raw", "run", "run_streams", "push", "pull", "pull_many")  # one adb connection each


def count_round_trips(device: Device) -> list[int]:
    """Count the device's adb connections and console commands from now on (a one-item counter)."""
    count = [0]

    def counted(call: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            return call(*args, **kwargs)

        return wrapper

    for name in WIRE_CALLS:
        if hasattr(device.wire, name):  # older checkouts lack some
            setattr(device.wire, name, counted(getattr(device.wire, name)))
    device.console.command = counted(device.console.command)  # type: ignore[method-assign]
    return count


def run(resets: int, task: str) -> dict[str, float]:
    """Median ms of each part of a reset, and of a state capture alone."""
    tmp = Path(tempfile.mkdtemp(prefix="mgfarm-bench-reset-"))
    os.environ["MGFARM_HOME"] = str(tmp / "home")  # no farm of the user's is looked at
    server = start_adb_server(find_adb(), tmp / "adbhome")
    token_file = server.home / ".emulator_console_auth_token"
    token_file.write_text(secrets.token_hex(8))
    sims = SimThread(tmp / "sims", server.port, token_file)
    rows: list[dict[str, float]] = []
    try:
        sim = sims.start()
        device = Device(sim.serial, adb_port=server.port, console_token=sim.token)
        device.wait_ready(30)
        device.snapshot_save("golden")
        env = MobileEnv(task, seed=0, device=device, wait_seconds=0.0)
        trips = count_round_trips(device)
        for round_ in range(resets + WARMUP):
            trips[0] = 0
            env.reset(seed=round_)
            reset_trips = trips[0]
            start, cpu = time.perf_counter(), time.process_time()
            capture(device, env.catalog.state)
            if round_ >= WARMUP:
                wall_ms, cpu_ms = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
                rows.append(
                    {
                        **env.last_timings,
                        "capture_ms": wall_ms,
                        "capture_cpu_ms": cpu_ms,
                        "round_trips": float(reset_trips),
                    }
                )
        env.close()
        device.close()
    finally:
        sims.close()
        stop_adb_server(server)
    return {key: percentile([row[key] for row in rows], 0.5) for key in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resets", type=int, default=30)
    parser.add_argument("--task", default="calendar.add_event")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    medians = run(args.resets, args.task)
    print(f"{args.resets} resets of {args.task} in {ROOT}, median ms, load average {load:.1f}:")
    print("  ".join(f"{key} {value:.1f}" for key, value in medians.items()))
    print(json.dumps({"root": str(ROOT), "task": args.task, "load": load, "median_ms": medians}))


if __name__ == "__main__":
    main()
