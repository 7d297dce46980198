"""The adbd services a host can OPEN: shell, exec, sync, tcp:PORT, root, reboot, framebuffer, reverse."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mgfarm.sim.adbd.sync import serve_sync
from mgfarm.sim.adbd.transport import INCOMING_LIMIT, Stream, Transport
from mgfarm.sim.io import ByteSink, ByteSource, LocalConnection, LocalServer, ShellIO
from mgfarm.sim.shell.exec_limits import too_long as exec_too_long

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice
    from mgfarm.sim.shell import ShellSession

log = logging.getLogger("mgfarm.sim.adbd")

# shell protocol v2 packet ids
SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW = range(6)
SHELL_PACKET = struct.Struct("<BI")
MAX_SHELL_PACKET = 1024 * 1024
# adbd runs a command as `/system/bin/sh -c COMMAND`: exec refuses a COMMAND too long (exec_limits).
EXEC_FAILED = "error: exec '/system/bin/sh' failed: Argument list too long\n"
EXEC_FAILED_STATUS = 126  # what adbd's ReportError sends as the exit status


def open_service(
    device: SimDevice, transport: Transport, stream: Stream, name: str
) -> Awaitable[None] | None:
    """The coroutine serving `name` on `stream`, or None to refuse it (the host then sees CLSE)."""
    if name.startswith("shell,") or name.startswith("shell:"):
        options, _, command = name[len("shell") :].partition(":")
        v2 = "v2" in options.split(",")
        if too_long(command):
            return exec_failed(stream, v2)
        if v2:
            return shell_v2(device, stream, options, command)
        return shell_raw(device, stream, command)
    if name.startswith("exec:"):
        command = name[len("exec:") :]
        return exec_failed(stream, v2=False) if too_long(command) else shell_raw(device, stream, command)
    if name in ("sync:", "sync"):
        return serve_sync(device, stream)
    if name.startswith("tcp:"):
        return open_tcp(device, stream, name[len("tcp:") :])
    if name in ("root:", "unroot:"):
        return root(device, stream, name == "root:")
    if name.startswith("reboot:"):
        return reboot(device, stream)
    if name.startswith("framebuffer:"):
        return framebuffer(device, stream)
    if name.startswith("reverse:"):
        return reverse(stream, name[len("reverse:") :])
    log.info("%s: refusing unknown service %r", device.config.serial, name[:80])
    return None


def too_long(command: str) -> bool:
    return exec_too_long([command])


async def exec_failed(stream: Stream, v2: bool) -> None:
    """adbd's reply when the shell could not be started: the error on stderr (v2) or the stream,
    then exit status 126 (v2); no command runs."""
    message = EXEC_FAILED.encode()
    if v2:
        message = SHELL_PACKET.pack(SHELL_STDERR, len(message)) + message
        message += SHELL_PACKET.pack(SHELL_EXIT, 1) + bytes([EXEC_FAILED_STATUS])
    await stream.write(message)


async def reverse(stream: Stream, request: str) -> None:
    """`adb reverse`: nothing is ever reversed, so listing is empty and setting one up fails clearly."""
    if request == "list-forward":
        reply = b"OKAY0000"
    elif request == "killforward-all":
        reply = b"OKAY"
    else:
        message = b"adb reverse is not supported by simulated devices; use adb forward instead"
        reply = b"FAIL" + f"{len(message):04x}".encode() + message
    await stream.write(reply)
    await stream.close()


async def shell_raw(device: SimDevice, stream: Stream, command: str) -> None:
    """Legacy shell and exec: stdout and stderr merged into the stream, no exit status."""
    sink = ByteSink(stream.write)
    if command.strip():
        await device.shell(command, ShellIO(stream.incoming, sink, sink))
    else:
        await interactive(device, stream.incoming, sink, sink, pty=True)  # legacy `adb shell` is a PTY
    await sink.flush()


async def shell_v2(device: SimDevice, stream: Stream, options: str, command: str) -> None:
    """Shell protocol v2: framed stdin/stdout/stderr, close-stdin, and the exit status."""

    packets = CoalescingWriter(stream)

    async def send(packet_id: int, data: bytes) -> None:
        await packets.write(SHELL_PACKET.pack(packet_id, len(data)) + data)

    async def out(data: bytes) -> None:
        await send(SHELL_STDOUT, data)

    async def err(data: bytes) -> None:
        await send(SHELL_STDERR, data)

    stdin = ByteSource()
    reader = asyncio.get_running_loop().create_task(pump_shell_stdin(device, stream.incoming, stdin))
    io = ShellIO(stdin, ByteSink(out), ByteSink(err))
    pty = "pty" in options.split(",")
    try:
        if not command.strip():
            status = await interactive(device, stdin, io.stdout, io.stderr, pty=pty)
        elif pty:  # `adb shell -t CMD`: the terminal is raw, so LF must reach it as CRLF
            status = await device.shell(
                command, ShellIO(stdin, ByteSink(crlf(io.stdout)), ByteSink(crlf(io.stderr)))
            )
        else:
            status = await device.shell(command, io)
        await io.stdout.flush()
        await io.stderr.flush()
        await send(SHELL_EXIT, bytes([status & 0xFF]))
        await packets.finish()
    finally:
        reader.cancel()
        packets.cancel()


class CoalescingWriter:
    """Writes to a stream what was written to it before the event loop came round, as one write.

    Every WRTE waits for the host's OKAY, so a command's last output and its exit packet sent
    apart cost a round trip and wake-ups on both sides; written in one pass of the loop they go
    out in one WRTE. Output still leaves as soon as the command yields (a slow command streams).
    """

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.pending = bytearray()
        self.drainer: asyncio.Task[None] | None = None  # the one coroutine writing to the stream
        self.kick_scheduled = False

    async def write(self, data: bytes) -> None:
        self.pending += data
        if len(self.pending) >= self.stream.transport.max_payload:
            await self.finish()  # a full WRTE's worth: write now, so a fast writer is held back
        elif not self.kick_scheduled:
            self.kick_scheduled = True
            asyncio.get_running_loop().call_soon(self._kick)

    async def finish(self) -> None:
        """Write everything pending, after what is being written, in order."""
        if self.drainer is not None and not self.drainer.done():
            await self.drainer
        await self._drain()

    def cancel(self) -> None:
        if self.drainer is not None and not self.drainer.done():
            self.drainer.cancel()

    def _kick(self) -> None:
        self.kick_scheduled = False
        if self.pending and (self.drainer is None or self.drainer.done()):
            self.drainer = asyncio.get_running_loop().create_task(self._drain())
            self.drainer.add_done_callback(_retrieve)

    async def _drain(self) -> None:
        while self.pending:
            data, self.pending = bytes(self.pending), bytearray()
            await self.stream.write(data)


def _retrieve(task: asyncio.Task[None]) -> None:
    """Marks the drainer's error (the host went away) seen; `finish` raises it again for the command."""
    if not task.cancelled():
        task.exception()


async def interactive(device: SimDevice, stdin: ByteSource, out: ByteSink, err: ByteSink, pty: bool) -> int:
    """`adb shell` without a command: one shell session, line by line, until `exit` or EOF.

    The session keeps cwd, variables and `$?` between lines, as the device's mksh does. With a PTY
    the user's terminal is raw: the device prints a prompt, echoes keys, ends lines on CR and turns
    LF into CRLF, as a real terminal line discipline would.
    """
    from mgfarm.sim.shell import ShellSession

    session = ShellSession(device)
    if pty:
        out, err = ByteSink(crlf(out)), ByteSink(crlf(err))
    while True:
        if pty:
            out.write(prompt(device, session))
            await out.flush()
            line = await read_pty_line(stdin, out)
        else:
            line = (await stdin.readline()).decode("utf-8", errors="replace")
        if line is None or (not pty and not line):
            return session.status
        if not line.strip():
            continue
        status = await session.run(line.strip(), ShellIO(ByteSource.from_bytes(b""), out, err))
        if session.exited:
            return status


def prompt(device: SimDevice, session: ShellSession) -> str:
    """mksh's prompt on Android: `[status|]device:cwd # ` (root adbd)."""
    status = session.status
    return f"{f'{status}|' if status else ''}{device.props.get('ro.product.device')}:{session.cwd} # "


def crlf(sink: ByteSink) -> Callable[[bytes], Awaitable[None]]:
    async def write(data: bytes) -> None:
        sink.write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
        await sink.flush()

    return write


async def read_pty_line(stdin: ByteSource, echo: ByteSink) -> str | None:
    """One line typed on a raw terminal, echoed back; None on Ctrl-D at an empty line or EOF."""
    line = bytearray()
    while True:
        key = await stdin.read(1)
        if not key:
            return None
        if key in (b"\r", b"\n"):
            echo.write(b"\r\n")
            await echo.flush()
            return line.decode("utf-8", errors="replace")
        if key == b"\x04" and not line:
            return None
        if key == b"\x03":
            echo.write(b"^C\r\n")
            await echo.flush()
            return ""
        if key in (b"\x7f", b"\x08"):
            if line:
                del line[-1]
                echo.write(b"\b \b")
        elif key >= b" " or key == b"\t":
            line += key
            echo.write(key)
        await echo.flush()


async def pump_shell_stdin(device: SimDevice, incoming: ByteSource, stdin: ByteSource) -> None:
    """Unframe shell v2 packets from the host into the command's stdin.

    While the command leaves more than INCOMING_LIMIT of stdin unread, the pump stops taking packets,
    so the stream's flow control holds the host back instead of the worker's memory growing.
    """
    room = asyncio.Event()
    room.set()

    def consumed() -> None:
        if stdin.buffered <= INCOMING_LIMIT:
            room.set()

    stdin.on_consumed = consumed
    try:
        while True:
            header = await incoming.read_exactly(SHELL_PACKET.size)
            if header is None:
                break
            packet_id, length = SHELL_PACKET.unpack(header)
            if length > MAX_SHELL_PACKET:
                log.warning("%s: shell v2 packet of %d bytes; closing stdin", device.config.serial, length)
                break
            data = await incoming.read_exactly(length)
            if data is None:
                break
            if packet_id == SHELL_STDIN:
                stdin.feed(data)
                while stdin.buffered > INCOMING_LIMIT:
                    room.clear()
                    await room.wait()
            elif packet_id == SHELL_CLOSE_STDIN:
                break
            # window-size changes do not matter without a terminal
    finally:
        stdin.close()


def open_tcp(device: SimDevice, stream: Stream, spec: str) -> Awaitable[None] | None:
    """Connect to a device-local server; refused (None) when nothing listens on that port."""
    try:
        port = int(spec.split(":", 1)[0])
    except ValueError:
        return None
    server = device.local_servers.get(port)
    if server is None:
        return None
    return serve_local(stream, server)


async def serve_local(stream: Stream, server: LocalServer) -> None:
    """Run the local server on this connection until it returns or closes the connection."""
    closed = asyncio.Event()
    conn = LocalConnection(stream.incoming, stream.write, closed.set)
    task: asyncio.Future[object] = asyncio.ensure_future(server(conn))
    waiter: asyncio.Future[object] = asyncio.ensure_future(closed.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def root(device: SimDevice, stream: Stream, want_root: bool) -> None:
    """`adb root`/`adb unroot`: adbd restarts (all transports drop) when the mode changes."""
    if want_root == device.root_adbd:
        text = "adbd is already running as root\n" if want_root else "adbd not running as root\n"
        await stream.write(text.encode())
        return
    text = "restarting adbd as root\n" if want_root else "restarting adbd as non root\n"
    await stream.write(text.encode())
    device.root_adbd = want_root
    device.props.set("service.adb.root", "1" if want_root else "0")
    await stream.delivered()
    await stream.close()
    if device.on_adbd_restart is not None:
        device.on_adbd_restart()


async def reboot(device: SimDevice, stream: Stream) -> None:
    """The device goes away; its host stops it."""
    await stream.close()
    device.killed.set()


FRAMEBUFFER_HEADER = struct.Struct("<14I")


async def framebuffer(device: SimDevice, stream: Stream) -> None:
    """Version-2 framebuffer header (RGBA 8888) followed by the pixels."""
    raw = device.services.window.screencap_raw()
    width, height = struct.unpack_from("<II", raw)
    size = width * height * 4
    pixels = raw[len(raw) - size :]
    header = FRAMEBUFFER_HEADER.pack(2, 32, 1, size, width, height, 0, 8, 16, 8, 8, 8, 24, 8)
    await stream.write(header + pixels)
