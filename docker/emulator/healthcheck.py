"""Docker HEALTHCHECK of an emulator replica: the guest says sys.boot_completed=1 over ADB, and the
emulator console answers an authenticated `avd status`.

A hung guest fails the first check, a wedged emulator core the second, each within the timeout;
a marker file or a live process would stay "healthy" through both. Standard library only: the
script talks the ADB transport (CNXN, OPEN, WRTE/OKAY, CLSE) to the emulator's adb port itself, so
the image needs no adb server. `--boot` checks only the guest (the entrypoint's boot wait).
"""

from __future__ import annotations

import os
import socket
import struct
import sys
from pathlib import Path

CNXN, OPEN, OKAY, WRTE, CLSE = 0x4E584E43, 0x4E45504F, 0x59414B4F, 0x45545257, 0x45534C43
TIMEOUT = 2.0  # seconds per socket operation; Docker's --timeout covers the whole probe
MAX_PAYLOAD = 1 << 20  # a device announcing more is not one to trust


def _send(sock: socket.socket, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
    check = sum(data) & 0xFFFFFFFF
    sock.sendall(struct.pack("<6I", command, arg0, arg1, len(data), check, command ^ 0xFFFFFFFF) + data)


def _recv_exact(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("the device closed the connection")
        data += chunk
    return data


def _recv(sock: socket.socket) -> tuple[int, int, bytes]:
    command, arg0, _arg1, length, _check, _magic = struct.unpack("<6I", _recv_exact(sock, 24))
    if length > MAX_PAYLOAD:
        raise ConnectionError(f"the device sent a {length}-byte packet")
    return command, arg0, _recv_exact(sock, length)


def shell(port: int, command: str, host: str = "127.0.0.1") -> str:
    """Output of one `shell:` command run over the device's own ADB transport."""
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        _send(sock, CNXN, 0x01000001, 256 * 1024, b"host::\0")
        for _ in range(16):  # an AUTH request first would mean -skip-adb-auth is missing
            if _recv(sock)[0] == CNXN:
                break
        else:
            raise ConnectionError("the device never accepted the connection (adb auth required?)")
        _send(sock, OPEN, 1, 0, f"shell:{command}\0".encode())
        output = b""
        while len(output) <= MAX_PAYLOAD:
            kind, remote, data = _recv(sock)
            if kind == WRTE:
                output += data
                _send(sock, OKAY, 1, remote)
            elif kind == CLSE:
                return output.decode(errors="replace").strip()
        raise ConnectionError("the device sent too much output")


def _read_until_ok(sock: socket.socket) -> str:
    data = b""
    while not (data.endswith(b"OK\r\n") or b"KO:" in data):
        chunk = sock.recv(4096)
        if not chunk or len(data) > 65536:
            raise ConnectionError("the console closed or rambled before OK")
        data += chunk
    return data.decode(errors="replace")


def console_status(port: int, token: str, host: str = "127.0.0.1") -> str:
    """The console's reply to `avd status` after `auth`; raises when it does not answer."""
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        _read_until_ok(sock)  # banner
        if token:
            sock.sendall(f"auth {token}\r\n".encode())
            reply = _read_until_ok(sock)
            if "KO:" in reply:
                raise ConnectionError("the console refused the token")
        sock.sendall(b"avd status\r\n")
        reply = _read_until_ok(sock)
        sock.sendall(b"quit\r\n")
        return reply.strip()


def read_token() -> str:
    for path in (
        Path(os.environ.get("MGFARM_RUN_DIR", "/run/mgfarm")) / "console_token",
        Path.home() / ".emulator_console_auth_token",
    ):
        if path.is_file():
            return path.read_text()
    return ""


def check(adb_port: int, console_port: int, boot_only: bool) -> str:
    """'' when healthy, else the reason."""
    try:
        booted = shell(adb_port, "getprop sys.boot_completed")
    except (OSError, ConnectionError, struct.error) as exc:
        return f"adb on port {adb_port}: {exc}"
    if booted != "1":
        return f"sys.boot_completed={booted!r}"
    if boot_only:
        return ""
    try:
        status = console_status(console_port, read_token())
    except (OSError, ConnectionError) as exc:
        return f"console on port {console_port}: {exc}"
    if "running" not in status:
        return f"console says {status!r}"
    return ""


def main(argv: list[str]) -> int:
    adb_port = int(os.environ.get("MGFARM_EMU_ADB_PORT") or 5555)
    problem = check(adb_port, adb_port - 1, "--boot" in argv)
    if problem:
        print(f"unhealthy: {problem}")
        return 1
    print("healthy: sys.boot_completed=1" + ("" if "--boot" in argv else ", console answers"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
