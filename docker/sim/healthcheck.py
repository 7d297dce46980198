"""Docker HEALTHCHECK: healthy once the device in this container reports sys.boot_completed=1.

Speaks just enough of the ADB transport (CNXN, OPEN shell:, WRTE/OKAY, CLSE) to ask the device
itself, so the image needs no adb server.
"""

from __future__ import annotations

import socket
import struct
import sys

CNXN, OPEN, OKAY, WRTE, CLSE = 0x4E584E43, 0x4E45504F, 0x59414B4F, 0x45545257, 0x45534C43


def send(sock: socket.socket, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
    header = struct.pack("<6I", command, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, command ^ 0xFFFFFFFF)
    sock.sendall(header + data)


def recv_exact(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("device closed the connection")
        data += chunk
    return data


def recv(sock: socket.socket) -> tuple[int, int, int, bytes]:
    command, arg0, arg1, length, _check, _magic = struct.unpack("<6I", recv_exact(sock, 24))
    return command, arg0, arg1, recv_exact(sock, length)


def boot_completed(port: int = 5555) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=4) as sock:
        send(sock, CNXN, 0x01000001, 256 * 1024, b"host::\0")
        while recv(sock)[0] != CNXN:
            pass
        send(sock, OPEN, 1, 0, b"shell:getprop sys.boot_completed\0")
        output = b""
        while True:
            command, arg0, _arg1, data = recv(sock)
            if command == WRTE:
                output += data
                send(sock, OKAY, 1, arg0)
            elif command == CLSE:
                return output.decode(errors="replace").strip()


if __name__ == "__main__":
    try:
        value = boot_completed()
    except (OSError, ConnectionError) as exc:
        print(f"unhealthy: {exc}")
        sys.exit(1)
    print(f"sys.boot_completed={value}")
    sys.exit(0 if value == "1" else 1)
