"""Benchmark: how long a device takes to answer while another device of the same process is stuck.

Two devices on one event loop (as `mgfarm sim serve` hosts them). Device B answers a stream of short
command lines; meanwhile device A runs nothing (baseline) or one command that never ends on its own
(an endless recursive query through `sqlite3` and `content --where`, a catastrophic regex in `grep`
and `find -regex`). Prints B's latency (p50, p99, max) per case and how A's command ended.

    .venv/bin/python benchmarks/bench_neighbours.py [--rounds 200] [--json out.json]
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

ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)"
STUCK = {
    "idle": "",
    "sqlite3 endless CTE": f"sqlite3 /data/local/tmp/q.db '{ENDLESS} SELECT count(*) FROM c'",
    "content --where CTE": "content query --uri content://settings/system "
    f'--where "name IN ({ENDLESS} SELECT x FROM c)"',
    "grep (a|aa)+$": "printf '" + "a" * 64 + "b\\n' | grep -E '(a|aa)+$'",
    "find -regex": "find /system -regex '/system/(a|aa)+b'",
}
PROBE = "echo ok; getprop ro.product.model > /dev/null; settings get global wifi_on"


async def case(a: SimDevice, b: SimDevice, stuck: str, rounds: int) -> dict[str, Any]:
    task = asyncio.create_task(run_command_line(a, stuck, ShellIO.buffered())) if stuck else None
    started = time.perf_counter()
    await asyncio.sleep(0.02)
    times: list[float] = []
    while len(times) < rounds and (task is None or not task.done() or len(times) < 5):
        io = ShellIO.buffered()
        start = time.perf_counter()
        await run_command_line(b, PROBE, io)
        times.append((time.perf_counter() - start) * 1000)
    during = task is not None and not task.done()
    status = await task if task is not None else 0
    times.sort()
    return {
        "answers": len(times),
        "while_stuck": during or task is None,
        "p50_ms": round(statistics.median(times), 3),
        "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))], 3),
        "max_ms": round(times[-1], 3),
        "stuck_exit": status,
        "stuck_s": round(time.perf_counter() - started, 2),
    }


async def run(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        devices = []
        for name in ("a", "b"):
            dev = SimDevice(DeviceConfig(name, 5555, Path(tmp) / name, Path(tmp) / f"s{name}"))
            await dev.boot()
            devices.append(dev)
        a, b = devices
        a.fs.mkdir("/system/" + "a" * 40, parents=True)
        return {
            "rounds": rounds,
            "cases": {name: await case(a, b, line, rounds) for name, line in STUCK.items()},
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report = asyncio.run(run(args.rounds))
    head = ("device A runs", "B answers", "p50 ms", "p99 ms", "max ms", "A exit", "A s")
    print(f"{head[0]:<22} {head[1]:>9} {head[2]:>8} {head[3]:>8} {head[4]:>8} {head[5]:>6} {head[6]:>6}")
    for name, r in report["cases"].items():
        print(
            f"{name:<22} {r['answers']:>9} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} {r['max_ms']:>8.3f} "
            f"{r['stuck_exit']:>6} {r['stuck_s']:>6}"
        )
    text = json.dumps(report)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
