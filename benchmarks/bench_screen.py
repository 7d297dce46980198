"""Benchmark of the simulated screen: `screencap -p` and `uiautomator dump` through a real adb server.

Measures p50/p99 of each command, and of both together, on an unchanged screen and right after a
change (the brightness slider moves between rounds), plus memory per idle device with every app
installed and seeded and one screenshot cached. Goals at 1080x2400 on the 2-core box: both together
<= 40 ms unchanged, <= 80 ms after a change; <= 30 MB per idle device.

Prints a table and the same numbers as JSON (the last line, or --json FILE).

    .venv/bin/python benchmarks/bench_screen.py
    .venv/bin/python benchmarks/bench_screen.py --rounds 100 --devices 16
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import percentile, rss_mb

from mgfarm.adb.binary import find_adb
from mgfarm.farm.ports import free_port, quiet_range_start

GOALS = {"together_unchanged_p50_ms": 40.0, "together_changed_p50_ms": 80.0, "mem_mb_per_device": 30.0}


def _read_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("adb server closed the connection")
        buf += chunk
    return buf


def adb_exec(server_port: int, serial: str, command: str) -> bytes:
    """`adb exec-out COMMAND` on one connection to the adb server: what every client does."""
    with socket.create_connection(("127.0.0.1", server_port)) as sock:
        for request in (f"host:transport:{serial}", f"exec:{command}"):
            data = request.encode()
            sock.sendall(b"%04x" % len(data) + data)
            status = _read_exact(sock, 4)
            if status != b"OKAY":
                raise RuntimeError(f"adb refused {request!r}: {status!r}")
        chunks = []
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


class Farm:
    """A private adb server plus one `mgfarm sim serve` process with `count` devices."""

    def __init__(self, count: int, workdir: Path) -> None:
        self.adb = str(find_adb())
        self.home = workdir / "home"
        self.home.mkdir(parents=True)
        self.env = {**os.environ, "HOME": str(self.home)}
        self.server_port = free_port()
        subprocess.run(
            [self.adb, "-P", str(self.server_port), "start-server"],
            env=self.env,
            check=True,
            capture_output=True,
        )
        token = self.home / ".emulator_console_auth_token"
        token.write_text("bench")
        adb_port = quiet_range_start(count) + 1
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mgfarm.sim",
                "serve",
                "--adb-port",
                str(adb_port),
                "--count",
                str(count),
                "--data",
                str(workdir / "data"),
                "--token-file",
                str(token),
                "--announce",
                str(self.server_port),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.serials: list[str] = []
        assert self.proc.stdout is not None
        while len(self.serials) < count:
            line = self.proc.stdout.readline().decode()
            if not line:
                raise RuntimeError("mgfarm sim serve exited before its devices were ready")
            if line.startswith("ready "):
                self.serials.append(line.split()[1])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            out = subprocess.run(
                [self.adb, "-P", str(self.server_port), "devices"],
                env=self.env,
                capture_output=True,
                text=True,
            ).stdout
            if sum(f"{s}\tdevice" in out for s in self.serials) == count:
                break
            time.sleep(0.1)

    def shell(self, serial: str, command: str) -> bytes:
        return adb_exec(self.server_port, serial, command)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        subprocess.run(
            [self.adb, "-P", str(self.server_port), "kill-server"], env=self.env, capture_output=True
        )


def timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def stats(name: str, values: list[float]) -> dict[str, Any]:
    return {
        "name": name,
        "p50_ms": round(statistics.median(values), 1),
        "p99_ms": round(percentile(values, 0.99), 1),
        "n": len(values),
    }


def bench_latency(rounds: int, workdir: Path) -> list[dict[str, Any]]:
    farm = Farm(1, workdir / "latency")
    serial = farm.serials[0]
    try:
        farm.shell(serial, "am start -n com.android.settings/.Settings\\$DisplaySettingsActivity")
        cap = lambda: farm.shell(serial, "screencap -p")  # noqa: E731
        dump = lambda: farm.shell(serial, "uiautomator dump /dev/tty")  # noqa: E731
        png = cap()
        assert png.startswith(b"\x89PNG"), png[:80]
        results = []
        for label, change in (("unchanged", False), ("after a change", True)):
            caps: list[float] = []
            dumps: list[float] = []
            for i in range(rounds):
                if change:  # move the brightness slider: the whole screen is rendered and encoded again
                    farm.shell(serial, f"settings put system screen_brightness {20 + (i * 37) % 230}")
                caps.append(timed(cap))
                dumps.append(timed(dump))
            together = [a + b for a, b in zip(caps, dumps, strict=True)]
            results += [
                stats(f"screencap -p, {label}", caps),
                stats(f"uiautomator dump, {label}", dumps),
                stats(f"both together, {label}", together),
            ]
        return results
    finally:
        farm.stop()


def bench_memory(count: int, workdir: Path) -> dict[str, Any]:
    """RSS growth per device between a 1-device and a `count`-device process, screens cached."""
    sizes: dict[int, float] = {}
    for n in (1, count):
        farm = Farm(n, workdir / f"mem{n}")
        try:
            for serial in farm.serials:
                farm.shell(serial, "screencap -p")
                farm.shell(serial, "uiautomator dump /dev/tty")
            time.sleep(1.0)
            sizes[n] = rss_mb(farm.proc.pid)
        finally:
            farm.stop()
    per = (sizes[count] - sizes[1]) / max(1, count - 1)
    return {
        "devices": count,
        "rss_1_mb": round(sizes[1], 1),
        f"rss_{count}_mb": round(sizes[count], 1),
        "mem_mb_per_device": round(per, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument(
        "--devices", type=int, default=16, help="devices in one process for the memory figure"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-screen-") as tmp:
        latency = bench_latency(args.rounds, Path(tmp))
        memory = bench_memory(args.devices, Path(tmp))
    by = {r["name"]: r for r in latency}
    report = {
        "benchmark": "screen",
        "screen": "1080x2400@420",
        "latency": latency,
        "memory": memory,
        "goals": GOALS,
        "met": {
            "together_unchanged_p50_ms": by["both together, unchanged"]["p50_ms"]
            <= GOALS["together_unchanged_p50_ms"],
            "together_changed_p50_ms": by["both together, after a change"]["p50_ms"]
            <= GOALS["together_changed_p50_ms"],
            "mem_mb_per_device": memory["mem_mb_per_device"] <= GOALS["mem_mb_per_device"],
        },
    }
    print(f"{'measure':<36} {'p50 ms':>8} {'p99 ms':>8} {'n':>5}")
    for r in latency:
        print(f"{r['name']:<36} {r['p50_ms']:>8} {r['p99_ms']:>8} {r['n']:>5}")
    print(
        f"memory per idle device ({memory['devices']} in one process): {memory['mem_mb_per_device']} MB "
        f"(1 device: {memory['rss_1_mb']} MB RSS)"
    )
    text = json.dumps(report)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
