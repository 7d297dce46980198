"""The emulator console (TCP, token auth): snapshots, kill, and the rest of its command set."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

from mgfarm.adb.errors import ConsoleError

DEFAULT_TOKEN_FILE = Path.home() / ".emulator_console_auth_token"
# The most one console reply may hold (`avd snapshot list` of a hundred snapshots is a few KB): what
# the console sends lands in the caller's process, a farm's watchdog or a trainer's.
MAX_REPLY = 1024 * 1024


def read_token(token_file: Path | None = None) -> str:
    """The console auth token, read untrimmed like the real `adb emu` does (minus a final newline)."""
    path = token_file or DEFAULT_TOKEN_FILE
    try:
        return path.read_text().rstrip("\r\n")
    except OSError as exc:
        raise ConsoleError(
            f"Cannot read the console token file {path} ({exc}); pass console_token=."
        ) from exc


class ConsoleClient:
    """One authenticated console connection, opened on demand; safe to share between threads.

    A kept connection the device closed while idle is reopened once; a command on a fresh connection
    is never sent twice (`kill` and `avd snapshot save` are not idempotent).
    """

    def __init__(self, port: int, token: str | None, host: str = "127.0.0.1", timeout: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.token = token
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._buf = b""
        self._lock = threading.Lock()

    def __enter__(self) -> ConsoleClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def command(self, line: str) -> list[str]:
        """Send one command; returns the reply lines before the final `OK`; raises on `KO:`."""
        if "\n" in line or "\r" in line:
            raise ConsoleError("A console command must be a single line; remove the newline.")
        with self._lock:
            reused = self._sock is not None
            try:
                return self._command_locked(line)
            except (OSError, ConnectionError) as exc:
                self._close_locked()
                if not reused:
                    raise self._unreachable(line, exc) from None
            try:
                return self._command_locked(line)
            except (OSError, ConnectionError) as exc:
                self._close_locked()
                raise self._unreachable(line, exc) from None

    def _unreachable(self, line: str, exc: BaseException) -> ConsoleError:
        return ConsoleError(
            f"The console at {self.host}:{self.port} did not answer {line!r} ({exc or type(exc).__name__}); "
            "check that the device is running."
        )

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _command_locked(self, line: str) -> list[str]:
        if self._sock is None:
            self._connect_locked()
        assert self._sock is not None
        self._sock.sendall(line.encode() + b"\r\n")
        return self._read_reply()

    def _connect_locked(self) -> None:
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock, self._buf = sock, b""
        greeting = self._read_reply()
        if any("Authentication required" in g for g in greeting):
            if self.token is None:
                self._close_locked()
                where = f"{self.host}:{self.port}"
                raise ConsoleError(
                    f"The console at {where} wants a token; pass console_token= or a token file."
                )
            sock.sendall(f"auth {self.token}\r\n".encode())
            self._read_reply()

    def _read_reply(self) -> list[str]:
        lines: list[str] = []
        size = 0
        while True:
            try:
                line = self._read_line()
            except ConnectionError:
                # `kill` answers `OK: killing emulator, bye bye` and may close before the bare OK.
                if lines and lines[-1].startswith("OK:"):
                    return lines
                raise
            if line == "OK":  # `OK: killing emulator` lines are content, only a bare OK ends
                return lines
            if line.startswith("KO"):
                raise ConsoleError(f"The console on port {self.port} refused the command: {line[:200]}")
            size += len(line) + 1
            if size > MAX_REPLY:
                raise self._overlong("a reply")
            lines.append(line)

    def _read_line(self) -> str:
        assert self._sock is not None
        while (end := self._buf.find(b"\n")) < 0:
            if len(self._buf) > MAX_REPLY:
                raise self._overlong("a line")
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("console closed the connection")
            self._buf += chunk
        raw, self._buf = self._buf[:end], self._buf[end + 1 :]
        return raw.decode("utf-8", "replace").rstrip("\r")

    def _overlong(self, what: str) -> ConsoleError:
        """The connection is dropped (what follows on it is not a reply's start) and the error told."""
        self._close_locked()
        return ConsoleError(f"The console at {self.host}:{self.port} sent {what} of over {MAX_REPLY} bytes.")

    def _close_locked(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):  # `kill` closes the console before `quit` arrives
                self._sock.sendall(b"quit\r\n")
            self._sock.close()
        self._sock, self._buf = None, b""


def console_command(
    port: int, token: str, command: str, timeout: float = 30.0, host: str = "127.0.0.1"
) -> str:
    """Run one command on a connection of its own (e.g. `avd snapshot load golden`); its output text."""
    with ConsoleClient(port, token, host, timeout) as client:
        try:
            return "\n".join(client.command(command))
        except OSError as exc:  # refused or timed out while connecting
            raise ConsoleError(f"Cannot reach the emulator console on {host}:{port} ({exc}).") from None


def console_alive(port: int, host: str = "127.0.0.1", timeout: float = 2.0) -> bool:
    """True when something accepts connections on the console port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def parse_snapshot_list(lines: list[str]) -> list[str]:
    """Snapshot names from `avd snapshot list` (rows after the ID/TAG header; TAG is column 2)."""
    names: list[str] = []
    in_rows = False
    for line in lines:
        if line.startswith("ID") and "TAG" in line:
            in_rows = True
            continue
        if in_rows and line.strip():
            parts = line.split()
            if len(parts) >= 2:
                names.append(parts[1])
    return names


def snapshot_names(port: int, token: str) -> list[str]:
    """Tags of the snapshots the device offers (`avd snapshot list`)."""
    return parse_snapshot_list(console_command(port, token, "avd snapshot list").splitlines())
