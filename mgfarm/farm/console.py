"""A minimal emulator-console client: connect, authenticate, run one command, read its reply."""

from __future__ import annotations

import socket
from typing import BinaryIO, cast

from mgfarm.errors import MgfarmError


class ConsoleError(MgfarmError):
    """The console answered `KO: ...` or could not be reached."""


def _read_reply(sock_file: BinaryIO, port: int) -> list[str]:
    """Lines up to the closing `OK`; raises on a `KO:` line."""
    lines: list[str] = []
    while True:
        raw = sock_file.readline()
        if not raw:
            raise ConsoleError(f"The console on port {port} closed the connection mid-reply.")
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line == "OK":
            return lines
        if line.startswith("KO"):
            raise ConsoleError(f"Console on port {port} said: {line}")
        lines.append(line)


def console_command(
    port: int, token: str, command: str, timeout: float = 30.0, host: str = "127.0.0.1"
) -> str:
    """Run one console command (e.g. `avd snapshot load golden`) and return its output text."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise ConsoleError(f"Cannot reach the emulator console on {host}:{port} ({exc}).") from None
    with sock, sock.makefile("rwb") as raw:
        stream = cast(BinaryIO, raw)
        try:
            _read_reply(stream, port)  # greeting
            stream.write(f"auth {token}\r\n".encode())
            stream.flush()
            _read_reply(stream, port)
            stream.write(f"{command}\r\n".encode())
            stream.flush()
            lines = _read_reply(stream, port)
            try:
                stream.write(b"quit\r\n")
                stream.flush()
            except OSError:
                pass  # `kill` closes the console before `quit` arrives
            return "\n".join(lines)
        except (TimeoutError, OSError) as exc:
            raise ConsoleError(f"The console on port {port} did not answer {command!r} ({exc}).") from None


def console_alive(port: int, host: str = "127.0.0.1", timeout: float = 2.0) -> bool:
    """True when something accepts connections on the console port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def snapshot_names(port: int, token: str) -> list[str]:
    """Tags of the snapshots the device offers (`avd snapshot list`)."""
    names = []
    for line in console_command(port, token, "avd snapshot list").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "--":
            names.append(parts[1])
    return names
