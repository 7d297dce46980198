"""Integration fixtures: a private adb server and `mgfarm sim serve` devices announced to it.

`adb_server` (module scope): an adb server on a free port, with `.port`, `.home`, `.adb(*args)` and
`.client()`; its HOME is a tmp folder so `adb emu` reads a test token, never the user's.
`sim_devices(count)`: starts a `python -m mgfarm.sim serve` subprocess on free ports announced to
`adb_server`, waits until every device is `device` in `adb devices`; returns `SimHandle`s.
`sim_device`: one such device.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import adbutils
import pytest

from mgfarm.adb.binary import find_adb
from mgfarm.farm.ports import free_port, port_in_use, quiet_range_start

READY_TIMEOUT = 60.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/integration needs the real adb server: mark it so."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)


@dataclass
class AdbServer:
    """A running adb server on a private port."""

    port: int
    home: Path
    binary: Path

    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.home)}

    def adb(
        self, *args: str, timeout: float = 60, input: bytes | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.binary), "-P", str(self.port), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env(),
            check=False,
            input=None if input is None else input.decode(),
        )

    def adb_bytes(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(self.binary), "-P", str(self.port), *args],
            capture_output=True,
            timeout=timeout,
            env=self.env(),
            check=False,
        )

    def client(self) -> adbutils.AdbClient:
        return adbutils.AdbClient(host="127.0.0.1", port=self.port)

    def device_state(self, serial: str) -> str | None:
        for line in self.adb("devices").stdout.splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == serial:
                return parts[1]
        return None

    def wait_for(self, serial: str, state: str = "device", timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.device_state(serial) == state:
                return
            time.sleep(0.05)
        raise TimeoutError(f"{serial} did not reach state {state!r} on adb server {self.port}")


def start_adb_server(binary: Path, home: Path) -> AdbServer:
    home.mkdir(parents=True, exist_ok=True)
    server = AdbServer(free_port(), home, binary)
    proc = server.adb("start-server", timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"adb start-server failed: {proc.stderr}")
    return server


def stop_adb_server(server: AdbServer) -> None:
    server.adb("kill-server", timeout=30)


@pytest.fixture(scope="module")
def adb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AdbServer]:
    server = start_adb_server(find_adb(), tmp_path_factory.mktemp("adbhome"))
    try:
        yield server
    finally:
        stop_adb_server(server)


@dataclass
class SimHandle:
    """One simulated device as tests see it."""

    serial: str
    adb_port: int
    console_port: int
    token: str
    process: subprocess.Popen[bytes]
    data_dir: Path


class SimProcess:
    """A `python -m mgfarm.sim serve` subprocess hosting `count` devices."""

    def __init__(self, server: AdbServer, workdir: Path, count: int, extra: Sequence[str] = ()) -> None:
        self.server = server
        self.count = count
        self.token = secrets.token_hex(8)
        token_file = server.home / ".emulator_console_auth_token"
        if not token_file.exists():
            token_file.write_text(self.token)  # no newline: adb emu sends the file as-is
        self.token = token_file.read_text()
        self.data_dir = workdir / "data"
        self.adb_port = quiet_range_start(count) + 1
        self.log = workdir / "serve.log"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mgfarm.sim",
                "serve",
                "--adb-port",
                str(self.adb_port),
                "--count",
                str(count),
                "--data",
                str(self.data_dir),
                "--token-file",
                str(token_file),
                "--announce",
                str(server.port),
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=self.log.open("wb"),
        )

    def wait_ready(self) -> list[SimHandle]:
        assert self.process.stdout is not None
        handles: list[SimHandle] = []
        deadline = time.monotonic() + READY_TIMEOUT
        while len(handles) < self.count:
            line = self.process.stdout.readline().decode()
            if not line:
                raise RuntimeError(f"mgfarm sim serve exited early:\n{self.log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError("mgfarm sim serve did not become ready")
            if line.startswith("ready "):
                words = dict(w.split("=", 1) for w in line.split()[2:])
                serial = line.split()[1]
                handles.append(
                    SimHandle(
                        serial,
                        int(words["adb"]),
                        int(words["console"]),
                        self.token,
                        self.process,
                        self.data_dir / serial,
                    )
                )
        for handle in handles:
            self.server.wait_for(handle.serial)
        return handles

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def free_scanned_adb_port() -> int | None:
    """An adb port in the range every adb server scans (5555-5585) whose console port is free too."""
    scanned = range(5555, 5586, 2)
    return next((p for p in reversed(scanned) if not port_in_use(p - 1) and not port_in_use(p)), None)


@contextmanager
def serving(adb_port: int, data: Path, *options: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """One device of `mgfarm sim serve` on adb_port: yields its first line (`ready ...`) and the process,
    which is stopped with SIGTERM afterwards."""
    serve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mgfarm.sim",
            "serve",
            "--adb-port",
            str(adb_port),
            "--data",
            str(data),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert serve.stdout is not None
        yield serve.stdout.readline().decode(), serve
    finally:
        if serve.poll() is None:
            serve.terminate()
            serve.wait(timeout=15)
        if serve.stdout is not None:
            serve.stdout.close()


@pytest.fixture
def sim_devices(adb_server: AdbServer, tmp_path: Path) -> Iterator[Callable[[int], list[SimHandle]]]:
    started: list[SimProcess] = []

    def start(count: int = 1) -> list[SimHandle]:
        for attempt in range(3):  # another test may grab the ports between the probe and the bind
            workdir = tmp_path / f"sim{len(started)}-{attempt}"
            workdir.mkdir()
            proc = SimProcess(adb_server, workdir, count)
            started.append(proc)
            try:
                return proc.wait_ready()
            except RuntimeError:
                if "already in use" not in proc.log.read_text() or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    try:
        yield start
    finally:
        for proc in started:
            proc.stop()


@pytest.fixture
def sim_device(sim_devices: Callable[[int], list[SimHandle]]) -> SimHandle:
    return sim_devices(1)[0]


@pytest.fixture
def grpc_device(adb_server: AdbServer, tmp_path: Path) -> Iterator[tuple[SimHandle, int]]:
    """A simulated device serving the emulator gRPC API (`sim serve --grpc PORT`), and that port."""
    grpc_port = free_port()
    sim = SimProcess(adb_server, tmp_path, 1, ["--grpc", str(grpc_port)])
    try:
        yield sim.wait_ready()[0], grpc_port
    finally:
        sim.stop()
