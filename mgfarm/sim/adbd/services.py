"""The adbd services a host can OPEN: shell (raw and v2), exec, sync, tcp:PORT, root, reboot, framebuffer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from mgfarm.sim.adbd.sync import serve_sync
from mgfarm.sim.adbd.transport import Stream, Transport
from mgfarm.sim.io import ByteSink, ByteSource, LocalConnection, ShellIO

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.adbd")

# shell protocol v2 packet ids
SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW = range(6)
SHELL_PACKET = struct.Struct("<BI")
MAX_SHELL_PACKET = 1024 * 1024


def open_service(
    device: SimDevice, transport: Transport, stream: Stream, name: str
) -> Awaitable[None] | None:
    """The coroutine serving `name` on `stream`, or None to refuse it (the host then sees CLSE)."""
    if name.startswith("shell,") or name.startswith("shell:"):
        options, _, command = name[len("shell") :].partition(":")
        if "v2" in options.split(","):
            return shell_v2(device, stream, command)
        return shell_raw(device, stream, command)
    if name.startswith("exec:"):
        return shell_raw(device, stream, name[len("exec:") :])
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
    log.info("%s: refusing unknown service %r", device.config.serial, name[:80])
    return None


async def shell_raw(device: SimDevice, stream: Stream, command: str) -> None:
    """Legacy shell and exec: stdout and stderr merged into the stream, no exit status."""
    if not command.strip():
        await interactive_shell(device, stream)
        return
    sink = ByteSink(stream.write)
    io = ShellIO(stream.incoming, sink, sink)
    await device.shell(command, io)
    await sink.flush()


async def interactive_shell(device: SimDevice, stream: Stream) -> None:
    """`adb shell` without a command: a prompt, one command line per input line, `exit` ends it."""
    sink = ByteSink(stream.write)
    prompt = f"{device.props.get('ro.product.device')}:/ # "
    while True:
        sink.write(prompt)
        await sink.flush()
        line = await stream.incoming.readline()
        if not line:
            return
        text = line.decode("utf-8", errors="replace").strip()
        if text == "exit":
            return
        if text:
            await device.shell(text, ShellIO(ByteSource.from_bytes(b""), sink, sink))
            await sink.flush()


async def shell_v2(device: SimDevice, stream: Stream, command: str) -> None:
    """Shell protocol v2: framed stdin/stdout/stderr, close-stdin, and the exit status."""

    async def send(packet_id: int, data: bytes) -> None:
        await stream.write(SHELL_PACKET.pack(packet_id, len(data)) + data)

    async def out(data: bytes) -> None:
        await send(SHELL_STDOUT, data)

    async def err(data: bytes) -> None:
        await send(SHELL_STDERR, data)

    stdin = ByteSource()
    reader = asyncio.get_running_loop().create_task(pump_shell_stdin(device, stream.incoming, stdin))
    io = ShellIO(stdin, ByteSink(out), ByteSink(err))
    try:
        if command.strip():
            status = await device.shell(command, io)
        else:
            status = await v2_interactive(device, io)
        await io.stdout.flush()
        await io.stderr.flush()
        await send(SHELL_EXIT, bytes([status & 0xFF]))
    finally:
        reader.cancel()


async def v2_interactive(device: SimDevice, io: ShellIO) -> int:
    status = 0
    while True:
        line = await io.stdin.readline()
        if not line:
            return status
        text = line.decode("utf-8", errors="replace").strip()
        if text == "exit":
            return status
        if text:
            status = await device.shell(text, ShellIO(ByteSource.from_bytes(b""), io.stdout, io.stderr))


async def pump_shell_stdin(device: SimDevice, incoming: ByteSource, stdin: ByteSource) -> None:
    """Unframe shell v2 packets from the host into the command's stdin."""
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


async def serve_local(stream: Stream, server: object) -> None:
    closed = asyncio.Event()
    conn = LocalConnection(stream.incoming, stream.write, closed.set)
    assert callable(server)
    task = asyncio.get_running_loop().create_task(server(conn))
    waiter = asyncio.get_running_loop().create_task(closed.wait())
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
    window = device.services.get("window")
    if window is None:
        return
    raw: bytes = window.screencap_raw()
    width, height = struct.unpack_from("<II", raw)
    size = width * height * 4
    pixels = raw[len(raw) - size :]
    header = FRAMEBUFFER_HEADER.pack(2, 32, 1, size, width, height, 0, 8, 16, 8, 8, 8, 24, 8)
    await stream.write(header + pixels)
