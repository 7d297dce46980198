"""The shell protocol v2 client against a scripted adb server: packets however TCP cuts them."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.adb import shell
from mgfarm.adb.errors import AdbError
from mgfarm.adb.shell import SHELL_EXIT, SHELL_STDERR, SHELL_STDOUT, ShellClient

# An STA2 reply: no error, then dev, ino, mode (a regular file) and the rest of a stat.
EXISTS = b"STA2" + bytes(4) + bytes(16) + struct.pack("<I", 0o100644) + bytes(44)


def packet(kind: int, body: bytes) -> bytes:
    return struct.pack("<BI", kind, len(body)) + body


class ScriptedServer:
    """Accepts one connection per script: answers the transport and the service request with
    OKAY (or FAIL), then sends the script's pieces with a pause between them."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.services: list[str] = []

    def serve(self, pieces: list[bytes], fail_transport: bool = False, hold: float = 0.0) -> None:
        def run() -> None:
            conn, _ = self.listener.accept()
            with conn:
                for _ in range(2):
                    length = int(conn.recv(4, socket.MSG_WAITALL), 16)
                    self.services.append(conn.recv(length, socket.MSG_WAITALL).decode())
                    if fail_transport:
                        conn.sendall(b"FAIL0010device not found")
                        return
                    conn.sendall(b"OKAY")
                for piece in pieces:
                    time.sleep(0.002)
                    conn.sendall(piece)
                time.sleep(hold)

        threading.Thread(target=run, daemon=True).start()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    yield scripted
    scripted.listener.close()


def cuts(data: bytes, sizes: list[int]) -> list[bytes]:
    pieces, start = [], 0
    for size in sizes:
        pieces.append(data[start : start + size])
        start += size
    return [*pieces, data[start:]] if start < len(data) else pieces


REPLY = (
    packet(SHELL_STDOUT, b"0\nframe 2 ")
    + packet(SHELL_STDERR, b"tapped\n")
    + packet(SHELL_STDOUT, b"x" * 100_000)
    + packet(SHELL_STDOUT, b"")
    + packet(SHELL_EXIT, b"\x07")
)


@pytest.mark.parametrize("sizes", [[], [1, 2, 3, 4, 5, 6], [3, 9, 70_000], [len(REPLY) - 1]])
def test_streams_and_status_whatever_the_cuts(server: ScriptedServer, sizes: list[int]) -> None:
    server.serve(cuts(REPLY, sizes))
    out, err, code = ShellClient("emu-1", server.port).run_streams("echo hi", timeout=5)
    assert (out, err, code) == (b"0\nframe 2 " + b"x" * 100_000, b"tapped\n", 7)
    assert server.services == ["host:transport:emu-1", "shell,v2,raw:echo hi"]


def test_merged_output_keeps_arrival_order(server: ScriptedServer) -> None:
    server.serve([REPLY])
    out, code = ShellClient("emu-1", server.port).run("x", timeout=5)
    assert out == b"0\nframe 2 tapped\n" + b"x" * 100_000 and code == 7


def test_a_close_between_packets_is_no_status_and_within_one_is_an_error(server: ScriptedServer) -> None:
    client = ShellClient("emu-1", server.port)
    server.serve([packet(SHELL_STDOUT, b"partial")])
    assert client.run("x", timeout=5) == (b"partial", -1)
    server.serve([packet(SHELL_STDOUT, b"partial")[:-2]])
    with pytest.raises(AdbError, match="closed the connection early"):
        client.run("x", timeout=5)
    server.serve([packet(SHELL_STDOUT, b"partial")[:3]])
    with pytest.raises(AdbError, match="closed the connection early"):
        client.run("x", timeout=5)


def test_a_silent_device_times_out(server: ScriptedServer) -> None:
    server.serve([], hold=2.0)
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        ShellClient("emu-1", server.port).run("sleep 9", timeout=0.3)
    assert time.monotonic() - start < 1.5


def test_the_servers_refusal_is_told(server: ScriptedServer) -> None:
    server.serve([], fail_transport=True)
    with pytest.raises(AdbError, match="device not found"):
        ShellClient("emu-1", server.port).run("x", timeout=5)


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"DATA" + struct.pack("<I", 0xFFFFFFF0), "a sync DATA packet of 4294967280 bytes"),
        (b"FAIL" + struct.pack("<I", 0xFFFFFFF0), "a sync FAIL reply of 4294967280 bytes"),
    ],
    ids=["data", "fail"],
)
def test_a_sync_length_past_the_protocols_is_refused_not_awaited(
    server: ScriptedServer, reply: bytes, error: str
) -> None:
    """The length comes from the device: taken on trust, a pull waited for 4 GB (and `recv` of
    that size allocates it first) in the trainer's process."""
    server.serve([EXISTS + reply], hold=1.0)
    client = ShellClient("emulator-5554", server.port)
    start = time.monotonic()
    with pytest.raises(AdbError, match=error):
        client.pull_many(["/sdcard/x"], timeout=5.0)
    assert time.monotonic() - start < 1.0


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_any_sync_reply_is_a_result_or_an_adb_error(reply: bytes) -> None:
    """Whatever a device answers a pull, the client returns or raises what `Device` turns into a
    DeviceError (AdbError, or OSError for a connection reset), within its timeout."""
    scripted = ScriptedServer()
    try:
        scripted.serve([reply])
        with contextlib.suppress(AdbError, OSError):
            ShellClient("emulator-5554", scripted.port).pull_many(["/sdcard/x"], timeout=2.0)
    finally:
        scripted.listener.close()


@pytest.mark.parametrize("v2", [True, False], ids=["shell-v2", "shell-raw"])
def test_an_output_past_the_reply_bound_is_refused(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, v2: bool
) -> None:
    """A device printing without end (`yes`, a huge `content query`) stops being read at the bound,
    instead of filling the caller's memory."""
    monkeypatch.setattr(shell, "MAX_REPLY", 100_000)
    body = b"y\n" * 30_000
    server.serve([packet(SHELL_STDOUT, body)] * 2 if v2 else [body] * 2, hold=1.0)
    client = ShellClient("emulator-5554", server.port)
    with pytest.raises(AdbError, match="passed 100000 bytes"):
        client.run("yes", timeout=5.0) if v2 else client.run_raw("yes", timeout=5.0)


def test_a_packet_claiming_more_than_the_bound_is_refused_before_it_arrives(server: ScriptedServer) -> None:
    server.serve([struct.pack("<BI", SHELL_STDOUT, 0xFFFFFFF0)], hold=1.0)
    start = time.monotonic()
    with pytest.raises(AdbError, match="passed"):
        ShellClient("emulator-5554", server.port).run("yes", timeout=5.0)
    assert time.monotonic() - start < 1.0


def test_a_pull_with_a_limit_keeps_one_byte_past_it_and_reads_the_next_file_whole(
    server: ScriptedServer,
) -> None:
    """What a file grew to after the judge measured it is read and dropped, not held; the session
    goes on to the next file."""
    big = (
        b"".join(b"DATA" + struct.pack("<I", 1000) + bytes([i]) * 1000 for i in range(3)) + b"DONE" + bytes(4)
    )
    small = b"DATA" + struct.pack("<I", 5) + b"hello" + b"DONE" + bytes(4)
    server.serve([EXISTS * 2 + big + small], hold=1.0)
    found = ShellClient("emulator-5554", server.port).pull_many(["/a", "/b"], timeout=5.0, limit=1500)
    assert found == [bytes(1000) + bytes([1]) * 501, b"hello"]
