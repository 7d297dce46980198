"""Client for the emulator console (TCP, token auth): the channel for snapshot save/load."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

from mgfarm.errors import MgfarmError

DEFAULT_TOKEN_FILE = Path.home() / ".emulator_console_auth_token"


class ConsoleError(MgfarmError):
    """The console refused a command (a `KO:` reply) or could not be reached."""


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
    """One authenticated console connection, reopened on demand; safe to share between threads."""

    def __init__(self, port: int, token: str | None, host: str = "127.0.0.1", timeout: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.token = token
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._buf = b""
        self._lock = threading.Lock()

    def command(self, line: str) -> list[str]:
        """Send one command; returns the reply lines before the final `OK`; raises on `KO:`."""
        if "\n" in line or "\r" in line:
            raise ConsoleError("A console command must be a single line; remove the newline.")
        with self._lock:
            try:
                return self._command_locked(line)
            except (OSError, ConnectionError) as exc:
                # One retry on a fresh connection: the device may have closed an idle one.
                self._close_locked()
                try:
                    return self._command_locked(line)
                except (OSError, ConnectionError) as exc2:
                    self._close_locked()
                    raise ConsoleError(
                        f"The console at {self.host}:{self.port} is unreachable ({exc2 or exc}); "
                        "check that the device is running."
                    ) from exc2

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
                raise ConsoleError(
                    f"The console at {self.host}:{self.port} wants a token; "
                    "pass console_token= or a token file."
                )
            sock.sendall(f"auth {self.token}\r\n".encode())
            self._read_reply()

    def _read_reply(self) -> list[str]:
        lines: list[str] = []
        while True:
            line = self._read_line()
            if line == "OK":  # `OK: killing emulator` lines are content, only a bare OK ends
                return lines
            if line.startswith("KO"):
                raise ConsoleError(f"The console refused the command: {line}")
            lines.append(line)

    def _read_line(self) -> str:
        assert self._sock is not None
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("console closed the connection")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\n", 1)
        return raw.decode("utf-8", "replace").rstrip("\r")

    def _close_locked(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.sendall(b"quit\r\n")
            self._sock.close()
        self._sock, self._buf = None, b""


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
