"""A farm's adb server: the process (private port, no emulator scan) and the host services it offers."""

from __future__ import annotations

import os
import socket
import subprocess
import time

from mgfarm.adb import wire
from mgfarm.adb.binary import find_adb
from mgfarm.adb.errors import AdbError
from mgfarm.errors import MgfarmError

# Every adb server probes adb ports 5555-5585 for emulators and attaches whatever answers there, so a
# device in that range is seen by every user's server on the host. Farm devices live above it and are
# announced (`host:emulator:PORT`) to their own farm's server only, which itself scans nothing.
SCANNED_ADB_PORTS = range(5555, 5586)

# No mDNS and no emulator port scan (ADB_EMU=0 on current adb; older ones, Debian's 29 among them,
# scan nothing when the top port is below the first).
PRIVATE_SERVER_ENV = {
    "ADB_MDNS": "0",
    "ADB_EMU": "0",
    "ADB_LOCAL_TRANSPORT_MAX_PORT": str(SCANNED_ADB_PORTS.start - 2),
}


def _host(port: int, service: str, read_reply: bool = True, timeout: float = 5.0) -> str:
    """One host service request; the payload of its OKAY reply ('' when not read)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        if not read_reply:
            wire.send(sock, service)
            return ""
        wire.send(sock, service)
        status = wire.recv_exact(sock, 4)
        if status == b"FAIL":
            reason = wire.read_hex_payload(sock).decode("utf-8", "replace")
            raise AdbError(f"The adb server refused {service!r}: {reason}")
        if status != b"OKAY":
            raise AdbError(f"Port {port} does not speak the adb protocol; choose another --adb-port.")
        return wire.read_hex_payload(sock).decode("utf-8", "replace")


def server_running(port: int) -> bool:
    """True when an adb server answers `host:version` on `port`."""
    try:
        _host(port, "host:version", timeout=2.0)
    except (OSError, AdbError):
        return False
    return True


def ensure_server(port: int, private: bool = True) -> int:
    """Start an adb server on `port` unless one runs; returns the pid we started, or 0.

    `private`: it scans for no emulators and looks for no mDNS devices (a farm's own server); else
    it finds devices like the user's own adb server does (adopted devices are found that way).
    """
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
        env={**os.environ, **(PRIVATE_SERVER_ENV if private else {})},
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if server_running(port):
            return proc.pid
        if proc.poll() is not None:
            break
        time.sleep(0.01)  # it answers ~20 ms after launch: a 0.1 s poll was most of `up`'s wait for it
    proc.kill()
    raise MgfarmError(
        f"The adb server on port {port} did not start; run `{adb} -P {port} start-server` to see why."
    )


def kill_server(port: int) -> None:
    """Ask the adb server on `port` to exit (no error when none runs)."""
    try:
        _host(port, "host:kill", read_reply=False)
    except OSError:
        return
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and server_running(port):
        time.sleep(0.1)


def parse_devices(text: str) -> dict[str, str]:
    """serial -> state from a `host:devices` reply (`SERIAL\\tSTATE` lines)."""
    result: dict[str, str] = {}
    for line in text.splitlines():
        serial, _, state = line.partition("\t")
        if serial:
            result[serial] = state.strip()
    return result


def devices(port: int) -> dict[str, str]:
    """serial -> state ('device', 'offline', ...) as the adb server on `port` lists them; {} if none runs."""
    try:
        return parse_devices(_host(port, "host:devices"))
    except (OSError, AdbError):
        return {}


def announce(port: int, adb_port: int) -> None:
    """Tell the adb server that an emulator-style device listens on 127.0.0.1:adb_port."""
    try:
        _host(port, f"host:emulator:{adb_port}", read_reply=False)
    except OSError as exc:
        raise AdbError(f"Cannot reach the adb server on port {port} ({exc}); is it running?") from None


def connect(port: int, address: str, timeout: float = 15.0) -> str:
    """`adb connect HOST:PORT` on the server on `port`; its reply ('connected to ...', 'failed ...')."""
    try:
        return _host(port, f"host:connect:{address}", timeout=timeout)
    except OSError as exc:
        raise AdbError(f"Cannot reach the adb server on port {port} ({exc}); is it running?") from None


def disconnect(port: int, address: str) -> None:
    """`adb disconnect HOST:PORT` (no error when it was not connected or no server runs)."""
    try:
        _host(port, f"host:disconnect:{address}")
    except (OSError, AdbError):
        return
