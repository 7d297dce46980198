"""Availability: the watchdog restores frozen devices and outlives errors; a flooding host grows no worker."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.farm import api, procs
from mgfarm.farm.ports import quiet_range_start
from mgfarm.farm.state import farm_dir, load_farm
from mgfarm.sim.adbd.protocol import A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE, MAX_PAYLOAD, Message, encode
from tests.support import wait_until

from .conftest import AdbServer


@pytest.fixture
def farm_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "mgfarm-home"
    monkeypatch.setenv("MGFARM_HOME", str(home))
    yield home


def answers(adb_server: AdbServer, serial: str) -> bool:
    try:
        out = adb_server.adb("-s", serial, "shell", "echo", "ok", timeout=10)
    except subprocess.TimeoutExpired:
        return False
    return out.stdout.strip() == "ok"


def restored(name: str, index: int, adb_server: AdbServer, restarts: int = 1) -> bool:
    rep = load_farm(name).replica(index)
    return rep.state == "ready" and rep.restarts >= restarts and answers(adb_server, rep.serial)


def test_a_frozen_worker_is_restored_and_its_neighbour_keeps_answering(
    farm_home: Path, adb_server: AdbServer
) -> None:
    first = quiet_range_start(8)
    farm = api.up(2, name="frozen", adb_port=adb_server.port, first_port=first, workers=2)
    try:
        victim, neighbour = farm.replicas
        worker = next(w for w in farm.workers if victim.index in w.replicas)
        assert neighbour.index not in worker.replicas
        os.kill(worker.pid, signal.SIGSTOP)  # alive to `ps`, listed by adb, answering nothing
        frozen_at = time.monotonic()
        assert procs.pid_alive(worker.pid)
        wait_until(lambda: restored("frozen", victim.index, adb_server), 90, "the frozen replica restored")
        print(f"frozen worker: replica answering again {time.monotonic() - frozen_at:.1f} s after SIGSTOP")
        assert not procs.pid_alive(worker.pid), "the frozen worker was left behind"
        after = load_farm("frozen")
        rep = after.replica(victim.index)
        assert first <= rep.console_port < first + 16, (
            f"restored outside the farm's ports: {rep.console_port}"
        )
        assert (rep.state, rep.reason) == ("ready", "")
        assert after.replica(neighbour.index).restarts == 0
        assert answers(adb_server, neighbour.serial)
    finally:
        with_stopped_cleanup("frozen")


def test_restart_of_a_frozen_replica_replaces_its_worker_within_the_farms_ports(
    farm_home: Path, adb_server: AdbServer
) -> None:
    first = quiet_range_start(8)
    farm = api.up(2, name="stuck", adb_port=adb_server.port, first_port=first, workers=1)
    try:
        procs.stop_pids([farm.watchdog_pid])  # this test is about `restart` alone
        (worker,) = farm.workers
        os.kill(worker.pid, signal.SIGSTOP)
        after = api.restart("stuck", 0)
        assert not procs.pid_alive(worker.pid), "the frozen worker was left behind"
        for rep in after.replicas:  # its neighbour in the frozen worker came back too
            assert (rep.state, rep.restarts) == ("ready", 1)
            assert first <= rep.console_port < first + 16, (
                f"moved outside the farm's ports: {rep.console_port}"
            )
            assert answers(adb_server, rep.serial)
    finally:
        with_stopped_cleanup("stuck")


def with_stopped_cleanup(name: str) -> None:
    """Down the farm, resuming any worker a failed test left stopped so it can be terminated."""
    try:
        for worker in load_farm(name).workers:
            if procs.pid_alive(worker.pid):
                os.kill(worker.pid, signal.SIGCONT)
    except Exception:
        pass
    api.down(name)


def test_the_watchdog_outlives_a_failing_restore_and_heals_afterwards(
    farm_home: Path, adb_server: AdbServer
) -> None:
    farm = api.up(1, name="stubborn", adb_port=adb_server.port, first_port=quiet_range_start(4))
    logs = farm_dir("stubborn") / "logs"
    try:
        # Workers cannot be started while their log folder is a file: every restore fails.
        shutil.move(logs, logs.with_name("logs.away"))
        logs.write_text("not a folder")
        os.kill(farm.workers[0].pid, signal.SIGKILL)
        time.sleep(4)  # several watchdog passes, each failing
        assert procs.is_ours(farm.watchdog_pid), "the watchdog died on a process error"
        logs.unlink()
        shutil.move(logs.with_name("logs.away"), logs)
        wait_until(lambda: restored("stubborn", 0, adb_server), 60, "the replica restored after the fault")
        assert "watchdog:" in (logs / "watchdog.log").read_text()
    finally:
        with_stopped_cleanup("stubborn")


OWNER = """
import sys, time
from mgfarm.env.runner import farm_for
with farm_for(None, 1) as farm:
    print(farm.name, flush=True)
    time.sleep(600)
"""


def test_a_private_farm_whose_owner_is_killed_is_stopped_by_its_watchdog(farm_home: Path) -> None:
    """`tasks check` or `eval` killed with SIGKILL (no `finally` runs) leaves no device running."""
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        name = owner.stdout.readline().strip()
        farm = load_farm(name)
        assert farm.owner_pid == owner.pid
        owner.kill()
        owner.wait()
        wait_until(lambda: not farm_dir(name).exists(), 60, "the watchdog stopping the orphaned farm")
        pids = [w.pid for w in farm.workers] + [farm.watchdog_pid, farm.adb_server_pid]
        wait_until(lambda: not any(procs.pid_alive(p) for p in pids if p), 30, "the farm's processes to end")
    finally:
        if owner.poll() is None:
            owner.kill()


def read_message(sock: socket.socket) -> Message:
    header = b""
    while len(header) < 24:
        chunk = sock.recv(24 - len(header))
        if not chunk:
            raise ConnectionError("closed")
        header += chunk
    command, arg0, arg1, length, _check, _magic = struct.unpack("<6I", header)
    data = b""
    while len(data) < length:
        chunk = sock.recv(length - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return Message(command, arg0, arg1, data)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_a_host_ignoring_flow_control_cannot_grow_a_worker(tmp_path: Path) -> None:
    console = quiet_range_start(1)
    token = tmp_path / "token"
    token.write_text("t0ken")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(console + 1)),
            *("--data", str(tmp_path / "data"), "--token-file", str(token)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("ready ")
        before = rss_kib(proc.pid)
        peak = before
        sent = 0
        with socket.create_connection(("127.0.0.1", console + 1), timeout=10) as sock:
            sock.sendall(encode(Message(A_CNXN, 0x01000001, MAX_PAYLOAD, b"host::\0")))
            assert read_message(sock).command == A_CNXN
            sock.sendall(encode(Message(A_OPEN, 1, 0, b"shell:sleep 60\0")))
            okay = read_message(sock)
            assert okay.command == A_OKAY
            chunk = encode(Message(A_WRTE, 1, okay.arg0, b"f" * MAX_PAYLOAD))
            try:
                for _ in range(300):  # 300 MiB, never waiting for an OKAY, never reading
                    sock.sendall(chunk)
                    sent += 1
                    peak = max(peak, rss_kib(proc.pid))
            except OSError:
                pass  # the device dropped us
            sock.settimeout(10)
            try:
                while read_message(sock).command != A_CLSE:
                    pass
            except (ConnectionError, OSError):
                pass
        grown = (max(peak, rss_kib(proc.pid)) - before) // 1024
        print(f"flooding host: {sent} MiB sent, worker RSS grew {grown} MiB")
        assert sent < 300, "the device kept accepting data from a host that ignores flow control"
        assert grown < 64
        assert proc.poll() is None  # the worker serves on
    finally:
        proc.terminate()
        proc.wait(timeout=30)
