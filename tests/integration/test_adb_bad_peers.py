"""Misbehaving peers on real sockets: the device drops them with a log line and keeps serving."""

from __future__ import annotations

import socket
import struct
import time

from tests.integration.conftest import AdbServer, SimHandle


def message(cmd: bytes, arg0: int, arg1: int, data: bytes = b"") -> bytes:
    code = struct.unpack("<I", cmd)[0]
    return struct.pack("<6I", code, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, code ^ 0xFFFFFFFF) + data


def read_all(sock: socket.socket) -> bytes:
    """Everything until the peer hangs up (a reset counts: it closed with our bytes unread)."""
    data = b""
    sock.settimeout(5)
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def still_serves(adb_server: AdbServer, device: SimHandle) -> bool:
    return adb_server.adb("-s", device.serial, "shell", "echo ok").stdout == "ok\n"


def test_garbage_and_half_closed_transports_are_dropped(adb_server: AdbServer, sim_device: SimHandle) -> None:
    with socket.create_connection(("127.0.0.1", sim_device.adb_port)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # 24+ bytes of wrong magic
        assert read_all(sock) == b""
    with socket.create_connection(("127.0.0.1", sim_device.adb_port)) as sock:
        sock.sendall(message(b"CNXN", 0x01000001, 4096, b"host::")[:27])  # half a message
        sock.shutdown(socket.SHUT_WR)
        assert read_all(sock) == b""  # the device answers nothing to half a CNXN, and closes
    assert still_serves(adb_server, sim_device)
    log = (sim_device.data_dir.parent.parent / "serve.log").read_text()
    assert "dropping transport" in log


def test_client_dying_mid_push_leaves_no_file(adb_server: AdbServer, sim_device: SimHandle) -> None:
    with socket.create_connection(("127.0.0.1", sim_device.adb_port)) as sock:
        sock.sendall(message(b"CNXN", 0x01000001, 1 << 20, b"host::"))
        sock.recv(4096)
        sock.sendall(message(b"OPEN", 1, 0, b"sync:\0"))
        sock.recv(24)
        path = b"/sdcard/half.bin,33188"
        partial = (
            b"SEND" + struct.pack("<I", len(path)) + path + b"DATA" + struct.pack("<I", 1000) + b"x" * 10
        )
        sock.sendall(message(b"WRTE", 1, 1, partial))
        time.sleep(0.2)
    # the socket is gone mid-transfer
    ls = adb_server.adb("-s", sim_device.serial, "shell", "ls /sdcard/half.bin")
    assert ls.returncode != 0
    assert still_serves(adb_server, sim_device)


def test_console_survives_an_endless_line_and_a_dead_client(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    with socket.create_connection(("127.0.0.1", sim_device.console_port)) as sock:
        sock.recv(4096)
        sock.sendall(b"x" * 200_000)  # no newline, far past any command
        assert read_all(sock) == b""  # the device hung up instead of buffering without end
    with socket.create_connection(("127.0.0.1", sim_device.console_port)) as sock:
        sock.sendall(b"auth ")  # dies half-way through a line
    out = adb_server.adb("-s", sim_device.serial, "emu", "ping").stdout
    assert out.startswith("I am alive!")
