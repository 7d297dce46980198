"""A farm's own adb server: a private port, no emulator scan, started when the farm starts.

Talks the adb host protocol directly for the few requests the farm needs (version, devices,
announce), so that checks stay fast and never start a server by accident.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time

from mgfarm.errors import MgfarmError
from mgfarm.farm.adb import find_adb
from mgfarm.farm.ports import SCANNED_ADB_PORTS

# A farm's server attaches only the devices announced to it: no mDNS, no emulator port scan (ADB_EMU=0
# on current adb; older ones, Debian's 29 among them, scan nothing when the top port is below the start).
PRIVATE_SERVER_ENV = {
    "ADB_MDNS": "0",
    "ADB_EMU": "0",
    "ADB_LOCAL_TRANSPORT_MAX_PORT": str(SCANNED_ADB_PORTS.start - 2),
}


def _request(port: int, service: str, read_reply: bool = True, timeout: float = 5.0) -> str:
    """Send one host service request; return the payload of its OKAY reply."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        data = service.encode()
        sock.sendall(f"{len(data):04x}".encode() + data)
        if not read_reply:
            return ""
        status = _recv_exact(sock, 4)
        if status == b"FAIL":
            length = int(_recv_exact(sock, 4), 16)
            raise MgfarmError(f"The adb server refused {service!r}: {_recv_exact(sock, length).decode()}")
        if status != b"OKAY":
            raise MgfarmError(f"Port {port} does not speak the adb protocol; choose another --adb-port.")
        length = int(_recv_exact(sock, 4), 16)
        return _recv_exact(sock, length).decode()


def _recv_exact(sock: socket.socket, count: int) -> bytes:
    chunks = b""
    while len(chunks) < count:
        chunk = sock.recv(count - len(chunks))
        if not chunk:
            raise ConnectionError("adb server closed the connection")
        chunks += chunk
    return chunks


def server_running(port: int) -> bool:
    """True when an adb server answers `host:version` on `port`."""
    try:
        _request(port, "host:version", timeout=2.0)
    except (OSError, ConnectionError, ValueError):
        return False
    return True


def ensure_server(port: int) -> int:
    """Start an adb server on `port` unless one runs; returns the pid we started, or 0."""
    if server_running(port):
        return 0
    probe = socket.socket()
    # Like adb itself: connections of a just-stopped server in TIME_WAIT must not block the port.
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind(("127.0.0.1", port))
    except OSError:
        raise MgfarmError(
            f"Port {port} is taken by something that is not an adb server; pick another with --adb-port."
        ) from None
    finally:
        probe.close()
    adb = find_adb()
    # `server nodaemon` keeps the pid we launch as the server itself, so we can stop exactly it.
    proc = subprocess.Popen(
        [str(adb), "-P", str(port), "server", "nodaemon"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, **PRIVATE_SERVER_ENV},
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if server_running(port):
            return proc.pid
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    raise MgfarmError(
        f"The adb server on port {port} did not start; run `{adb} -P {port} start-server` to see why."
    )


def kill_server(port: int) -> None:
    """Ask the adb server on `port` to exit (no error when none runs)."""
    try:
        _request(port, "host:kill", read_reply=False)
    except OSError:
        return
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and server_running(port):
        time.sleep(0.1)


def devices(port: int) -> dict[str, str]:
    """serial -> state ('device', 'offline', ...) as the adb server on `port` lists them."""
    try:
        text = _request(port, "host:devices")
    except (OSError, ConnectionError):
        return {}
    result: dict[str, str] = {}
    for line in text.splitlines():
        serial, _, state = line.partition("\t")
        if serial:
            result[serial] = state.strip()
    return result


def announce(port: int, adb_port: int) -> None:
    """Tell the adb server that an emulator-style device listens on 127.0.0.1:adb_port."""
    try:
        _request(port, f"host:emulator:{adb_port}", read_reply=False)
    except OSError as exc:
        raise MgfarmError(f"Cannot reach the adb server on port {port} ({exc}); is it running?") from None


def adb_args(port: int, serial: str) -> list[str]:
    """Command prefix for the adb client talking to `serial` through the server on `port`."""
    return [str(find_adb()), "-P", str(port), "-s", serial]
