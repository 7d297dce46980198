"""Benchmark of the simulated device: memory per idle device, boot time, shell round trip, snapshots.

Prints a table and the same numbers as JSON (the last line, or --json FILE). The shell round trip is
host:transport + shell: on one connection to a real adb server (what `adb shell` does); adbutils'
`device.shell()` is listed too: it adds a host:version connection and sleeps 10 ms in each close().
Goals on the 2-core box: memory <= 30 MB per idle device, start to sys.boot_completed=1 <= 0.5 s,
shell round trip p50 <= 5 ms, snapshot load <= 50 ms.

    .venv/bin/python benchmarks/bench_sim.py                 # counts 1,64,256
    .venv/bin/python benchmarks/bench_sim.py --counts 1,8 --rounds 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import adbutils
from _common import percentile, rss_mb

from mgfarm.adb.binary import find_adb
from mgfarm.farm.ports import free_port, quiet_range_start

GOALS = {"mem_mb_per_device": 30.0, "boot_s": 0.5, "shell_p50_ms": 5.0, "snapshot_load_ms": 50.0}


class Serve:
    """A `python -m mgfarm.sim serve` subprocess."""

    def __init__(self, count: int, workdir: Path, announce: int | None = None) -> None:
        self.count = count
        workdir.mkdir(parents=True, exist_ok=True)
        self.token_file = workdir / "token"
        self.token_file.write_text(secrets.token_hex(8))
        self.adb_port = quiet_range_start(count) + 1
        args = [sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(self.adb_port)]
        args += ["--count", str(count), "--data", str(workdir / "data"), "--token-file", str(self.token_file)]
        if announce is not None:
            args += ["--announce", str(announce)]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.first_ready_s = 0.0
        self.all_ready_s = 0.0

    def wait_ready(self) -> None:
        assert self.proc.stdout is not None
        ready = 0
        while ready < self.count:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("mgfarm sim serve exited before all devices were ready")
            if line.startswith(b"ready "):
                ready += 1
                if ready == 1:
                    self.first_ready_s = time.perf_counter() - self.started
        self.all_ready_s = time.perf_counter() - self.started

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def direct_shell(adb_port: int, command: str) -> bytes:
    """One shell command straight over the device's ADB port (no adb server): CNXN, OPEN, read to CLSE."""

    def message(cmd: bytes, arg0: int, arg1: int, data: bytes = b"") -> bytes:
        code = struct.unpack("<I", cmd)[0]
        return (
            struct.pack("<6I", code, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, code ^ 0xFFFFFFFF) + data
        )

    def receive(sock: socket.socket) -> tuple[bytes, int, bytes]:
        header = recv_exactly(sock, 24)
        cmd, arg0, _arg1, length = header[:4], *struct.unpack_from("<3I", header, 4)
        return cmd, arg0, recv_exactly(sock, length)

    out = bytearray()
    with socket.create_connection(("127.0.0.1", adb_port)) as sock:
        sock.sendall(message(b"CNXN", 0x01000001, 1 << 20, b"host::"))
        receive(sock)
        sock.sendall(message(b"OPEN", 1, 0, f"shell:{command}".encode() + b"\0"))
        while True:
            cmd, remote, data = receive(sock)
            if cmd == b"WRTE":
                out += data
                sock.sendall(message(b"OKAY", 1, remote))
            elif cmd == b"CLSE":
                return bytes(out)


def recv_exactly(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("device closed the connection")
        buf += chunk
    return bytes(buf)


def bench_memory(counts: list[int], workdir: Path) -> list[dict[str, Any]]:
    """RSS of one serve process: idle after boot, then after every device rendered one screenshot."""
    rows = []
    for count in counts:
        serve = Serve(count, workdir / f"mem{count}")
        try:
            serve.wait_ready()
            time.sleep(1.0)  # idle
            total = rss_mb(serve.proc.pid)
            for i in range(count):
                png = direct_shell(serve.adb_port + 2 * i, "screencap -p")
                assert png.startswith(b"\x89PNG"), png[:40]
            time.sleep(0.5)
            after_screens = rss_mb(serve.proc.pid)
        finally:
            serve.stop()
        rows.append(
            {
                "devices": count,
                "rss_mb": round(total, 1),
                "mb_per_device": round(total / count, 2),
                "rss_after_screenshot_mb": round(after_screens, 1),
                "mb_per_device_after_screenshot": round(after_screens / count, 2),
                "serve_to_all_ready_s": round(serve.all_ready_s, 2),
            }
        )
    base = rows[0]
    for row in rows[1:]:
        row["marginal_mb_per_device"] = round(
            (row["rss_mb"] - base["rss_mb"]) / (row["devices"] - base["devices"]), 2
        )
    return rows


def bench_boot(workdir: Path, rounds: int) -> dict[str, float]:
    """In-process SimDevice.boot() until sys.boot_completed=1, and a cold `serve` to its ready line."""
    from mgfarm.sim.device import DeviceConfig, SimDevice

    async def boots() -> list[float]:
        times = []
        for i in range(rounds):
            config = DeviceConfig(
                name=f"b{i}", adb_port=7001 + 2 * i, data_dir=workdir / f"boot{i}", snapshot_dir=workdir / "s"
            )
            start = time.perf_counter()
            device = SimDevice(config)
            await device.boot()
            assert device.props.get("sys.boot_completed") == "1"
            times.append(time.perf_counter() - start)
        return times

    times = asyncio.run(boots())
    cold = Serve(1, workdir / "cold")
    try:
        cold.wait_ready()
    finally:
        cold.stop()
    return {
        "boot_p50_s": round(statistics.median(times), 4),
        "boot_max_s": round(max(times), 4),
        "first_boot_s": round(times[0], 4),
        "cold_process_to_ready_s": round(cold.first_ready_s, 3),
    }


def bench_shell(workdir: Path, rounds: int) -> dict[str, float]:
    adb = find_adb()
    home = workdir / "adbhome"
    home.mkdir(parents=True)
    port = free_port()
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([str(adb), "-P", str(port), "start-server"], env=env, capture_output=True, check=True)
    serve = Serve(1, workdir / "shell", announce=port)
    try:
        serve.wait_ready()
        serial = f"emulator-{serve.adb_port - 1}"
        client = adbutils.AdbClient(host="127.0.0.1", port=port)
        deadline = time.time() + 20
        while serial not in {d.serial for d in client.device_list()}:
            if time.time() > deadline:
                raise RuntimeError("device never appeared on the adb server")
            time.sleep(0.05)
        device = client.device(serial)
        for _ in range(20):
            device.shell("echo warm")
            raw_shell(port, serial, "echo warm")
        times, adbutils_times = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            out = raw_shell(port, serial, "echo hi")
            times.append((time.perf_counter() - start) * 1000)
            assert out == b"hi\n"
            start = time.perf_counter()
            assert device.shell("echo hi") == "hi"
            adbutils_times.append((time.perf_counter() - start) * 1000)
        snap = bench_snapshot_console(serve, rounds=max(10, rounds // 10))
    finally:
        serve.stop()
        subprocess.run([str(adb), "-P", str(port), "kill-server"], env=env, capture_output=True, check=False)
    return {
        "shell_p50_ms": round(percentile(times, 0.5), 3),
        "shell_p99_ms": round(percentile(times, 0.99), 3),
        "adbutils_shell_p50_ms": round(percentile(adbutils_times, 0.5), 3),
        "adbutils_shell_p99_ms": round(percentile(adbutils_times, 0.99), 3),
        **snap,
    }


def raw_shell(server_port: int, serial: str, command: str) -> bytes:
    """One `shell:` round trip through the adb server on one connection, as the adb client does it."""

    def request(sock: socket.socket, text: str) -> None:
        sock.sendall(f"{len(text):04x}{text}".encode())
        if sock.recv(4) != b"OKAY":
            raise RuntimeError(f"adb server refused {text!r}")

    with socket.create_connection(("127.0.0.1", server_port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request(sock, f"host:transport:{serial}")
        request(sock, f"shell:{command}")
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


def console_command(sock: socket.socket, line: str) -> str:
    sock.sendall(line.encode() + b"\r\n")
    data = b""
    while not (data.endswith(b"OK\r\n") or (data.startswith(b"KO") and data.endswith(b"\r\n"))):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.decode()


def bench_snapshot_console(serve: Serve, rounds: int) -> dict[str, float]:
    """`avd snapshot save/load` round trips over the console (what a farm reset costs)."""
    with socket.create_connection(("127.0.0.1", serve.adb_port - 1)) as sock:
        greeting = b""
        while not greeting.endswith(b"OK\r\n"):
            greeting += sock.recv(4096)
        console_command(sock, f"auth {serve.token_file.read_text()}")
        saves, loads = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            assert console_command(sock, "avd snapshot save bench").endswith("OK\r\n")
            saves.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            assert console_command(sock, "avd snapshot load bench").endswith("OK\r\n")
            loads.append((time.perf_counter() - start) * 1000)
    return {
        "snapshot_save_p50_ms": round(statistics.median(saves), 2),
        "snapshot_load_p50_ms": round(statistics.median(loads), 2),
        "snapshot_load_max_ms": round(max(loads), 2),
    }


def table(results: dict[str, Any]) -> str:
    lines = [f"{'measure':<34}{'value':>12}  goal"]
    for row in results["memory"]:
        name = f"memory, {row['devices']} devices (MB/device)"
        lines.append(f"{name:<34}{row['mb_per_device']:>12}  <= {GOALS['mem_mb_per_device']}")
        lines.append(f"{'  total RSS (MB)':<34}{row['rss_mb']:>12}")
        lines.append(
            f"{'  MB/device after a screenshot each':<34}{row['mb_per_device_after_screenshot']:>12}"
        )
        if "marginal_mb_per_device" in row:
            lines.append(f"{'  marginal MB/device':<34}{row['marginal_mb_per_device']:>12}")
        lines.append(f"{'  serve to all ready (s)':<34}{row['serve_to_all_ready_s']:>12}")
    boot = results["boot"]
    lines.append(f"{'boot to boot_completed p50 (s)':<34}{boot['boot_p50_s']:>12}  <= {GOALS['boot_s']}")
    lines.append(f"{'boot max (s)':<34}{boot['boot_max_s']:>12}")
    lines.append(f"{'cold process start to ready (s)':<34}{boot['cold_process_to_ready_s']:>12}")
    shell = results["shell"]
    lines.append(f"{'shell round trip p50 (ms)':<34}{shell['shell_p50_ms']:>12}  <= {GOALS['shell_p50_ms']}")
    lines.append(f"{'shell round trip p99 (ms)':<34}{shell['shell_p99_ms']:>12}")
    lines.append(f"{'adbutils device.shell p50 (ms)':<34}{shell['adbutils_shell_p50_ms']:>12}")
    lines.append(f"{'adbutils device.shell p99 (ms)':<34}{shell['adbutils_shell_p99_ms']:>12}")
    lines.append(f"{'snapshot save p50 (ms)':<34}{shell['snapshot_save_p50_ms']:>12}")
    load_goal = GOALS["snapshot_load_ms"]
    lines.append(f"{'snapshot load p50 (ms)':<34}{shell['snapshot_load_p50_ms']:>12}  <= {load_goal}")
    lines.append(f"{'snapshot load max (ms)':<34}{shell['snapshot_load_max_ms']:>12}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="1,64,256", help="device counts for the memory measure")
    parser.add_argument("--rounds", type=int, default=300, help="shell round trips to time")
    parser.add_argument("--json", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    with tempfile.TemporaryDirectory(prefix="mgfarm-bench-sim-") as tmp:
        work = Path(tmp)
        results: dict[str, Any] = {
            "bench": "sim",
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "load_avg_1m_at_start": round(os.getloadavg()[0], 1),  # other work on the box skews every number
            "adb": str(find_adb()),
            "memory": bench_memory(counts, work),
            "boot": bench_boot(work, rounds=10),
            "shell": bench_shell(work, rounds=args.rounds),
            "goals": GOALS,
        }
    results["load_avg_1m_at_end"] = round(os.getloadavg()[0], 1)
    print(table(results))
    start, end = results["load_avg_1m_at_start"], results["load_avg_1m_at_end"]
    print(f"load average (1 min): {start} at start, {end} at end")
    print(json.dumps(results))
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
