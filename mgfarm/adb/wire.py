"""The adb smart-socket framing: a 4-hex-digit length, the request, then OKAY or FAIL + message."""

from __future__ import annotations

import socket

from mgfarm.adb.errors import AdbError


def recv_exact(sock: socket.socket, count: int) -> bytes:
    """Exactly `count` bytes, or AdbError when the peer closes first."""
    data = bytearray()
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise AdbError("the adb server closed the connection early")
        data += chunk
    return bytes(data)


def send(sock: socket.socket, service: str) -> None:
    """Send one request without waiting for its status (`host:kill`, `host:emulator:PORT`)."""
    payload = service.encode("utf-8")
    sock.sendall(b"%04x" % len(payload) + payload)


def request(sock: socket.socket, service: str) -> None:
    """Send one request and wait for OKAY; raises AdbError with the server's FAIL text."""
    send(sock, service)
    status = recv_exact(sock, 4)
    if status == b"OKAY":
        return
    if status == b"FAIL":
        raise AdbError(read_hex_payload(sock).decode("utf-8", "replace"))  # e.g. device 'X' not found
    raise AdbError(f"unexpected adb server reply {status!r} to {service}")


def read_hex_payload(sock: socket.socket) -> bytes:
    """A length-prefixed reply body (4 hex digits, then that many bytes)."""
    try:
        length = int(recv_exact(sock, 4), 16)
    except ValueError as exc:
        raise AdbError(f"malformed adb length prefix ({exc})") from None
    return recv_exact(sock, length)
