"""The device's road to the host's loopback, the emulator's 10.0.2.2, from inside the worker's sandbox.

A sandboxed worker may connect only to its adb server (see mgfarm.sim.confine), yet a device that
serves gRPC must reach a server on the host the way an emulator does through 10.0.2.2: android_env's
accessibility wrapper listens on a port it picks at run time, after the sandbox is in place. Landlock
binds the thread that applies it and the threads made after, so `start_connector()`, called before
the sandbox, starts one thread that makes those connections: to 127.0.0.1 only, nothing else. The
rest of the worker stays fenced. Without that thread (in-process devices, no sandbox) the event loop
connects itself.
"""

from __future__ import annotations

import asyncio
import queue
import socket
import threading
from concurrent.futures import Future

CONNECT_TIMEOUT = 5.0
LOOPBACK = "127.0.0.1"


class Connector:
    """A thread that opens TCP connections to the host's loopback for the event loop."""

    def __init__(self) -> None:
        self._requests: queue.Queue[tuple[int, Future[socket.socket]]] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="mgfarm-hostnet", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            port, done = self._requests.get()
            try:
                done.set_result(socket.create_connection((LOOPBACK, port), timeout=CONNECT_TIMEOUT))
            except OSError as exc:
                done.set_exception(exc)

    async def connect(self, port: int) -> socket.socket:
        done: Future[socket.socket] = Future()
        self._requests.put((port, done))
        return await asyncio.wrap_future(done)


_connector: Connector | None = None


def start_connector() -> None:
    """Start the connecting thread (once); call it before the worker confines itself."""
    global _connector
    if _connector is None:
        _connector = Connector()


async def connect(port: int) -> socket.socket:
    """A connected, non-blocking socket to 127.0.0.1:`port` on the host; OSError when refused."""
    if not 0 < port < 65536:
        raise OSError(f"port {port} is out of range")
    if _connector is not None:
        sock = await _connector.connect(port)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.sock_connect(sock, (LOOPBACK, port)), CONNECT_TIMEOUT)
        except asyncio.TimeoutError as exc:
            sock.close()
            raise OSError(f"connecting to port {port} timed out") from exc
        except OSError:
            sock.close()
            raise
    sock.setblocking(False)
    return sock
