"""Run the parity checks on one device, record what it printed, compare two recordings."""

from __future__ import annotations

import datetime as dt
import json
import re
import socket
from pathlib import Path
from typing import Any

import mgfarm
from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.parity.checks import CHECKS

FORMAT = 1
MAX_OUTPUT = 20_000  # characters of raw output kept per check (the shape is computed on all of it)


def console_reply(port: int, token: str, command: str, host: str = "127.0.0.1", timeout: float = 10.0) -> str:
    """The console's raw reply to one command after `auth`, up to its final OK or KO line."""

    def read_reply(sock: socket.socket, buffer: bytearray) -> str:
        while True:
            text = buffer.decode(errors="replace")
            match = re.search(r"^(OK|KO:[^\r\n]*)\r?\n", text, re.MULTILINE)
            if match:
                del buffer[: len(text[: match.end()].encode())]
                return text[: match.end()]
            chunk = sock.recv(4096)
            if not chunk:
                raise MgfarmError(f"The console on port {port} closed the connection during {command!r}.")
            buffer += chunk

    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            buffer = bytearray()
            read_reply(sock, buffer)  # banner
            if token:
                sock.sendall(f"auth {token}\r\n".encode())
                if "KO:" in read_reply(sock, buffer):
                    raise MgfarmError(f"The console on port {port} refused the token; pass --token-file.")
            sock.sendall(f"{command}\r\n".encode())
            reply = read_reply(sock, buffer)
            sock.sendall(b"quit\r\n")
            return reply
    except OSError as exc:
        raise MgfarmError(f"Cannot reach the emulator console on {host}:{port} ({exc}).") from None


def console_port_of(serial: str) -> int | None:
    match = re.fullmatch(r"emulator-(\d+)", serial)
    return int(match.group(1)) if match else None


def record(device: Device, console_port: int | None, token: str) -> dict[str, Any]:
    """Every check's raw output and shape on `device` (console checks only with a console port)."""
    checks: dict[str, Any] = {}
    for check in CHECKS:
        if check.kind == "console":
            if console_port is None:
                continue
            output = console_reply(console_port, token, check.command)
        else:
            output = device.shell(check.command)
        checks[check.name] = {
            "kind": check.kind,
            "command": check.command,
            "output": output[:MAX_OUTPUT],
            "shape": check.shape(output),
        }
    props = {name: device.getprop(name) for name in ("ro.build.fingerprint", "ro.product.model")}
    return {
        "format": FORMAT,
        "device": props,
        "recorded_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "mgfarm_version": mgfarm.__version__,
        "checks": checks,
    }


def differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """One line per check whose shape differs (checks missing on either side are skipped)."""
    found = []
    for name, want in expected.get("checks", {}).items():
        got = actual.get("checks", {}).get(name)
        if got is not None and got["shape"] != want["shape"]:
            found.append(f"{name} ({want['command']}): expected {want['shape']!r}, got {got['shape']!r}")
    return found


def write(recording: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")
    return path


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise MgfarmError(
            f"Recording {path} is unreadable ({exc}); record it again with `make parity`."
        ) from None
    if data.get("format") != FORMAT:
        raise MgfarmError(
            f"Recording {path} has format {data.get('format')!r}, not {FORMAT}; record it again."
        )
    return dict(data)
