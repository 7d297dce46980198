"""The adb smart-socket framing: a 4-hex-digit length, the request, then OKAY or FAIL + message."""

from __future__ import annotations

import socket
import struct

from mgfarm.adb.errors import AdbError

# The adb server writes replies to its clients without TCP_NODELAY: a second small reply (the next
# file of a sync session, a shell's exit packet) waits under Nagle for the ACK of the first, which
# Linux delays up to 40 ms. Asking for an immediate ACK before each read removes that stall (a
# 26-file pull: 92 -> 12-19 ms). The flag does not stick, so it is set again before every read.
_QUICKACK = getattr(socket, "TCP_QUICKACK", None)


def recv(sock: socket.socket, size: int) -> bytes:
    """Up to `size` bytes from the adb server, acknowledged at once where the OS allows it."""
    if _QUICKACK is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
    try:
        return sock.recv(size)
    except BlockingIOError:  # a kernel timeout (`blocking_with_timeout`) ran out
        raise TimeoutError("timed out") from None


def blocking_with_timeout(sock: socket.socket, timeout: float) -> None:
    """Make `sock` blocking, each send and receive limited to `timeout` seconds by the kernel.

    `settimeout` makes Python poll before every call (a poll, a GIL hand-off and often a context
    switch more each time); SO_RCVTIMEO and SO_SNDTIMEO bound the same calls without them. A
    receive that runs out raises TimeoutError as with `settimeout`.
    """
    if sock.gettimeout() is not None:  # socket.setdefaulttimeout was called
        sock.setblocking(True)
    seconds = max(timeout, 0.001)
    limit = struct.pack("@ll", int(seconds), int((seconds % 1) * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)


def recv_exact(sock: socket.socket, count: int) -> bytes:
    """Exactly `count` bytes, or AdbError when the peer closes first. Received a MiB at a time at
    most: `socket.recv(n)` allocates n bytes first, and `count` may come from the peer."""
    data = bytearray()
    while len(data) < count:
        chunk = recv(sock, min(count - len(data), 1 << 20))
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
