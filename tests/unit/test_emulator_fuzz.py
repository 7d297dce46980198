"""Hostile peers for what the emulator path parses: the health check's ADB and console clients get
random bytes from a device, the parity shapes get random command output. Neither may crash or hang;
a device that talks nonsense is unhealthy."""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.parity.checks import CHECKS

REPO = Path(__file__).resolve().parents[2]


def _healthcheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "emulator_healthcheck", REPO / "docker/emulator/healthcheck.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HEALTH = _healthcheck()


class LyingDevice:
    """Answers every connection on an adb-like port pair with the bytes it is given, then closes."""

    def __init__(self) -> None:
        self.reply = b""
        self.sockets: list[socket.socket] = []
        for _ in range(2):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sock.listen(8)
            sock.settimeout(0.2)
            self.sockets.append(sock)
        self.ports = [s.getsockname()[1] for s in self.sockets]
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.serve, args=(s,), daemon=True) for s in self.sockets]
        for thread in self.threads:
            thread.start()

    def serve(self, sock: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                with contextlib.suppress(OSError):
                    conn.sendall(self.reply)

    def close(self) -> None:
        self.stop.set()
        for sock in self.sockets:
            sock.close()


@pytest.fixture(scope="module")
def device() -> Iterator[LyingDevice]:
    lying = LyingDevice()
    yield lying
    lying.close()


@settings(max_examples=60, deadline=None)
@given(reply=st.binary(max_size=400))
def test_a_device_sending_garbage_is_unhealthy_not_a_crash(device: LyingDevice, reply: bytes) -> None:
    device.reply = reply
    problem = HEALTH.check(device.ports[1], device.ports[0], boot_only=False)
    assert problem  # no real device answers with random bytes and closes


@settings(max_examples=30, deadline=None)
@given(declared=st.integers(min_value=HEALTH.MAX_PAYLOAD + 1, max_value=2**32 - 1))
def test_a_device_announcing_a_huge_packet_is_refused(device: LyingDevice, declared: int) -> None:
    cnxn = HEALTH.CNXN
    device.reply = HEALTH.struct.pack("<6I", cnxn, 0x01000001, 4096, declared, 0, cnxn ^ 0xFFFFFFFF)
    assert "byte packet" in HEALTH.check(device.ports[1], device.ports[0], boot_only=True)


@settings(max_examples=200, deadline=None)
@given(output=st.text(max_size=2000))
def test_parity_shapes_take_any_output(output: str) -> None:
    for check in CHECKS:
        check.shape(output)  # never raises: a device may print anything
