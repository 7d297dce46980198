"""Benchmark of the simulated device's shell: in-process cost of the command lines tools send.

Runs each command line N times through `run_command_line` on one booted device (no transport, so
the numbers are the shell's own share of an `adb shell` round trip), prints a table and the same
numbers as JSON (the last line, or --json FILE).

    .venv/bin/python benchmarks/bench_shell.py [--rounds 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mgfarm.sim.device import DeviceConfig, SimDevice  # noqa: E402
from mgfarm.sim.io import ShellIO  # noqa: E402
from mgfarm.sim.shell import run_command_line  # noqa: E402

SETTINGS_DB = "/data/data/com.android.providers.settings/databases/settings.db"
LINES = {
    "shell2 suffix": "echo hello; echo X4EXIT:$?",
    "getprop": "getprop sys.boot_completed",
    "settings get": "settings get global wifi_on",
    "settings put": "settings put global wifi_on 1",
    "content query": "content query --uri content://settings/global --projection name:value "
    "--where \"name='wifi_on'\"",
    "sqlite3 select": f"sqlite3 {SETTINGS_DB} \"SELECT value FROM global WHERE name='wifi_on'\"",
    "pm list packages": "pm list packages",
    "dumpsys window": "dumpsys window windows",
    "ls -l /sdcard": "ls -l /sdcard",
    "pipeline": "printf 'a\\nb\\na\\n' | sort | uniq -c | grep a | wc -l",
    "uiautomator dump": "uiautomator dump",
    "screencap -p": "screencap -p",
}


async def measure(device: SimDevice, line: str, rounds: int) -> dict[str, Any]:
    times: list[float] = []
    status = 0
    for _ in range(rounds):
        io = ShellIO.buffered()
        start = time.perf_counter()
        status = await run_command_line(device, line, io)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "status": status,
        "p50_ms": round(statistics.median(times), 3),
        "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))], 3),
        "per_s": round(1000 / statistics.mean(times), 1),
    }


async def run(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        device = SimDevice(DeviceConfig("bench", 5555, Path(tmp) / "dev", Path(tmp) / "snaps"))
        await device.boot()
        results = {name: await measure(device, line, rounds) for name, line in LINES.items()}
    return {"rounds": rounds, "commands": results}


def print_table(report: dict[str, Any]) -> None:
    print(f"{'command':<18} {'p50 ms':>8} {'p99 ms':>8} {'per s':>9} {'exit':>5}")
    for name, r in report["commands"].items():
        print(f"{name:<18} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} {r['per_s']:>9.1f} {r['status']:>5}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report = asyncio.run(run(args.rounds))
    print_table(report)
    text = json.dumps(report)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
