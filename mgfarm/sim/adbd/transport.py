"""One ADB transport (a TCP connection from an adb server or client) and the streams it carries."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mgfarm.sim.adbd.protocol import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_WRTE,
    MAX_HANDSHAKE_PAYLOAD,
    MAX_PAYLOAD,
    VERSION_SKIP_CHECKSUM,
    Message,
    ProtocolError,
    encode,
    read_message,
)
from mgfarm.sim.io import ByteSource

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.adbd")

CLOSE_GRACE_S = 0.5
DELIVERY_WAIT_S = 5.0  # how long a service waits for the host's OKAY of its last write (`delivered`)
# Flow control bounds what one host can make a worker hold. A stream buffers at most
# INCOMING_LIMIT plus one payload: past the limit its OKAY is withheld, and a host that writes again
# before that OKAY ignores the protocol and is dropped. A transport holds at most MAX_STREAMS
# streams and TRANSPORT_LIMIT buffered bytes over all of them; past WRITE_LIMIT of replies the peer
# does not read, the device stops reading from it until it does.
INCOMING_LIMIT = 2 * 1024 * 1024
TRANSPORT_LIMIT = 32 * 1024 * 1024
MAX_STREAMS = 256
WRITE_LIMIT = 1024 * 1024
FEATURES = ("shell_v2", "cmd", "stat_v2", "fixed_push_mkdir")


class StreamClosed(Exception):
    """The host closed the stream (or the transport went away) while the device was writing."""


class Stream:
    """One ADB stream: a service on the device side, a socket on the host side."""

    def __init__(self, transport: Transport, local_id: int, remote_id: int) -> None:
        self.transport = transport
        self.local_id = local_id
        self.remote_id = remote_id
        self.incoming = ByteSource()
        self.incoming.on_consumed = self._maybe_release
        self._okay_owed = False  # the host's last WRTE is unacknowledged until the service reads
        self.closed = False
        self._acked = asyncio.Event()  # set while the device may send its next WRTE
        self._acked.set()
        self.task: asyncio.Task[None] | None = None

    async def write(self, data: bytes) -> None:
        """Send data in chunks within the negotiated payload, one unacknowledged WRTE at a time."""
        step = self.transport.max_payload
        view = memoryview(data)
        for start in range(0, len(data), step):
            await self._acked.wait()
            if self.closed:
                raise StreamClosed(f"stream {self.local_id} closed by the host")
            self._acked.clear()
            self.transport.send(
                Message(A_WRTE, self.local_id, self.remote_id, bytes(view[start : start + step]))
            )
            await self.transport.drain()

    async def delivered(self) -> None:
        """Wait until the host acknowledged the last write (at most DELIVERY_WAIT_S): a service that
        drops the device's transports next (adbd restarting for `root`/`unroot`) would otherwise
        take its reply down with them, as the adb server forwards what it read only after."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._acked.wait(), DELIVERY_WAIT_S)

    async def close(self) -> None:
        """Close from the device side, right after the last write: the CLSE leaves in the same
        socket write as a finished command's reply, as adbd sends it when it reads the output and
        the end of a command together. The host still delivers what it received before the CLSE;
        its OKAY for the last write then finds no stream, and is ignored."""
        if self.closed:
            return
        self.closed = True
        self.incoming.close()
        self.transport.forget(self)
        self.transport.send(Message(A_CLSE, self.local_id, self.remote_id))

    def on_okay(self) -> None:
        self._acked.set()

    def on_data(self, data: bytes) -> None:
        """Buffer host data; acknowledge at once unless the service is far behind (backpressure)."""
        if self._okay_owed:
            raise ProtocolError(
                f"host wrote to stream {self.local_id} before its last write was acknowledged "
                "(it ignores ADB flow control)"
            )
        self.incoming.feed(data)
        if self.incoming.buffered <= INCOMING_LIMIT:
            self.transport.send(Message(A_OKAY, self.local_id, self.remote_id))
        else:
            self._okay_owed = True

    def _maybe_release(self) -> None:
        if self._okay_owed and not self.closed and self.incoming.buffered <= INCOMING_LIMIT:
            self._okay_owed = False
            self.transport.send(Message(A_OKAY, self.local_id, self.remote_id))

    def on_remote_close(self) -> None:
        """The host closed its end: stdin ends now, and the service is stopped after a grace period.

        The grace lets `adb exec-in 'cat > f'` finish writing what it already received, as the
        process behind a real adbd sees EOF on stdin rather than being killed.
        """
        self.closed = True
        self.incoming.close()
        self._acked.set()
        if self.task is not None and not self.task.done():
            asyncio.get_running_loop().call_later(CLOSE_GRACE_S, self.task.cancel)


# Given the device, this transport, the new stream and the service name, a coroutine that serves
# the stream, or None to refuse the OPEN.
ServiceOpener = Callable[["SimDevice", "Transport", Stream, str], Awaitable[None] | None]


class Transport:
    """Speaks the ADB message protocol on one connection: handshake, then streams."""

    def __init__(
        self,
        device: SimDevice,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        opener: ServiceOpener,
    ) -> None:
        self.device = device
        self.reader = reader
        self.writer = writer
        self.opener = opener
        self.max_payload = MAX_HANDSHAKE_PAYLOAD
        self.checksums = True
        self.connected = False
        self.streams: dict[int, Stream] = {}
        self._next_id = 1
        # Messages sent in one pass of the event loop leave in one socket write (`flush`): a
        # stream's OKAY, the reply of a command that finishes at once and the CLSE cost one send
        # and one wake-up of the host instead of three (~30 us a send here, more in the adb server).
        self._pending: list[bytes] = []
        self._flush_scheduled = False
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)

    def send(self, msg: Message) -> None:
        """Queue a message; it is written with the others sent before the loop comes round."""
        if self.writer.is_closing():
            return
        self._pending.append(encode(msg, self.checksums))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write the queued messages, in order, as one write."""
        self._flush_scheduled = False
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending = []
        if not self.writer.is_closing():
            self.writer.write(data)

    async def drain(self) -> None:
        """Wait while the socket holds more than its high-water mark (what is queued here leaves
        when the loop comes round: a stream has at most one WRTE unacknowledged)."""
        try:
            await self.writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise StreamClosed("transport went away") from exc

    def forget(self, stream: Stream) -> None:
        self.streams.pop(stream.local_id, None)

    def banner(self) -> bytes:
        props = self.device.props
        parts = [
            f"{key}={props.get(key)}" for key in ("ro.product.name", "ro.product.model", "ro.product.device")
        ]
        parts.append("features=" + ",".join(FEATURES))
        return ("device::" + ";".join(parts)).encode()

    async def run(self) -> None:
        """Serve until the peer disconnects or misbehaves; never raises."""
        try:
            while True:
                msg = await read_message(
                    self.reader, MAX_PAYLOAD if self.connected else MAX_HANDSHAKE_PAYLOAD
                )
                if msg is None:
                    break
                await self.handle(msg)
                transport = getattr(self.writer, "transport", None)
                if transport is not None and transport.get_write_buffer_size() > WRITE_LIMIT:
                    await self.writer.drain()  # the peer reads nothing: stop reading it too
        except ProtocolError as exc:
            log.warning("%s %s: dropping transport: %s", self.device.config.serial, self.peer, exc)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            log.info("%s %s: connection lost: %s", self.device.config.serial, self.peer, exc)
        finally:
            await self.shutdown()

    async def handle(self, msg: Message) -> None:
        if msg.command == A_CNXN:
            self.handshake(msg)
            return
        if not self.connected:
            raise ProtocolError(f"{msg.name} before CNXN")
        if msg.command == A_OPEN:
            self.open_stream(msg)
        elif msg.command == A_WRTE:
            stream = self.streams.get(msg.arg1)
            if stream is not None and stream.remote_id == msg.arg0:
                stream.on_data(msg.data)
                self.check_buffered()
            elif msg.arg0:
                self.send(Message(A_CLSE, 0, msg.arg0))
        elif msg.command == A_OKAY:
            stream = self.streams.get(msg.arg1)
            if stream is not None:
                stream.on_okay()
        elif msg.command == A_CLSE:
            stream = self.streams.pop(msg.arg1, None)
            if stream is not None:
                stream.on_remote_close()
        # AUTH and STLS are never requested by this device; ignore them.

    def handshake(self, msg: Message) -> None:
        version = min(msg.arg0, VERSION_SKIP_CHECKSUM)
        self.max_payload = max(MAX_HANDSHAKE_PAYLOAD, min(msg.arg1, MAX_PAYLOAD))
        self.checksums = True
        self.send(Message(A_CNXN, version, MAX_PAYLOAD, self.banner()))
        self.checksums = version < VERSION_SKIP_CHECKSUM
        self.connected = True

    def check_buffered(self) -> None:
        """Drop a host whose streams together hold more than TRANSPORT_LIMIT unread bytes."""
        total = sum(s.incoming.buffered for s in self.streams.values())
        if total > TRANSPORT_LIMIT:
            raise ProtocolError(
                f"{total} bytes buffered over {len(self.streams)} streams (limit {TRANSPORT_LIMIT})"
            )

    def open_stream(self, msg: Message) -> None:
        remote_id = msg.arg0
        if remote_id == 0:
            raise ProtocolError("OPEN with a zero stream id")
        if len(self.streams) >= MAX_STREAMS:
            log.warning(
                "%s %s: refusing stream %d: %d already open",
                self.device.config.serial,
                self.peer,
                remote_id,
                MAX_STREAMS,
            )
            self.send(Message(A_CLSE, 0, remote_id))
            return
        name = msg.data.split(b"\0", 1)[0].decode("utf-8", errors="replace")
        local_id = self._next_id
        self._next_id = self._next_id % 0x7FFFFFFF + 1
        stream = Stream(self, local_id, remote_id)
        service = self.opener(self.device, self, stream, name)
        if service is None:
            self.send(Message(A_CLSE, 0, remote_id))
            return
        self.streams[local_id] = stream
        # The service's first step runs before the queued OKAY is flushed, so a command that
        # finishes at once sends its reply in the same write (the OKAY still goes first).
        stream.task = asyncio.get_running_loop().create_task(self._serve(stream, name, service))
        self.send(Message(A_OKAY, local_id, remote_id))

    async def _serve(self, stream: Stream, name: str, service: Awaitable[None]) -> None:
        try:
            await service
        except (StreamClosed, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("%s: service %r failed", self.device.config.serial, name[:80])
        finally:
            await stream.close()

    async def shutdown(self) -> None:
        """Close every stream and the connection."""
        for stream in list(self.streams.values()):
            stream.on_remote_close()
        self.streams.clear()
        self.flush()
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()
