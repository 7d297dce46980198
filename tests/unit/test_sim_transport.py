"""The adbd transport driven in memory: handshake, streams, flow control, refusals, bad input."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path
from typing import Any, cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgfarm.sim.adbd.protocol import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_WRTE,
    HEADER,
    MAX_PAYLOAD,
    VERSION_SKIP_CHECKSUM,
    Message,
    encode,
)
from mgfarm.sim.adbd.services import open_service
from mgfarm.sim.adbd.transport import CLOSE_GRACE_S, INCOMING_LIMIT, MAX_STREAMS, TRANSPORT_LIMIT, Transport
from mgfarm.sim.device import DeviceConfig, SimDevice


class MemoryWriter:
    """The socket side of a StreamWriter: collects what the device sends."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.writes = 0  # socket writes: what the host is woken for
        self.closed = False

    def write(self, data: bytes) -> None:
        self.data += data
        self.writes += 1

    def is_closing(self) -> bool:
        return self.closed

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    async def wait_closed(self) -> None:
        return None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("memory", 0)


def make_device(tmp_path: Path) -> SimDevice:
    device = SimDevice(
        DeviceConfig(name="unit", adb_port=5555, data_dir=tmp_path, snapshot_dir=tmp_path / "snaps")
    )
    device.fs.create_skeleton()
    return device


class Peer:
    """A host talking to one in-memory transport."""

    def __init__(self, device: SimDevice) -> None:
        self.reader = asyncio.StreamReader()
        self.writer = MemoryWriter()
        self.transport = Transport(device, self.reader, cast(asyncio.StreamWriter, self.writer), open_service)
        self.task = asyncio.get_running_loop().create_task(self.transport.run())
        self.seen = 0

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        self.reader.feed_data(encode(Message(command, arg0, arg1, data)))

    def connect(self, max_payload: int = 1024 * 1024) -> None:
        self.send(A_CNXN, VERSION_SKIP_CHECKSUM, max_payload, b"host::features=shell_v2")

    async def output(self, stream: int) -> bytes:
        """What the device writes on `stream` (each write acknowledged) until it closes it."""
        out = bytearray()
        for _ in range(50):
            batch = await self.messages()
            for msg in batch:
                if msg.command == A_WRTE:
                    out += msg.data
                    self.send(A_OKAY, stream, msg.arg0)
            if any(m.command == A_CLSE for m in batch):
                return bytes(out)
        raise AssertionError("the stream did not close")

    async def messages(self, settle: float = 0.05) -> list[Message]:
        """Messages the device sent since the last call."""
        await asyncio.sleep(settle)
        out = []
        data = bytes(self.writer.data)
        while self.seen + HEADER.size <= len(data):
            command, arg0, arg1, length, _check, magic = HEADER.unpack_from(data, self.seen)
            assert magic == command ^ 0xFFFFFFFF
            start = self.seen + HEADER.size
            out.append(Message(command, arg0, arg1, data[start : start + length]))
            self.seen = start + length
        return out


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_handshake_banner_and_features(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        (reply,) = await peer.messages()
        assert reply.command == A_CNXN and reply.arg0 == VERSION_SKIP_CHECKSUM
        banner = reply.data.decode()
        assert banner.startswith("device::ro.product.name=sdk_gphone64_x86_64;")
        assert banner.endswith("features=shell_v2,cmd,stat_v2,fixed_push_mkdir")
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_unknown_service_and_closed_tcp_port_are_refused(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 7, 0, b"nosuch:\0")
        peer.send(A_OPEN, 8, 0, b"tcp:9008\0")
        replies = await peer.messages()
        assert [(m.command, m.arg0, m.arg1) for m in replies] == [(A_CLSE, 0, 7), (A_CLSE, 0, 8)]
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_device_waits_for_okay_before_next_write(tmp_path: Path) -> None:
    async def go() -> None:
        device = make_device(tmp_path)
        (device.fs.host("/data/local/tmp/big")).write_bytes(b"x" * 10_000)
        peer = Peer(device)
        peer.connect(max_payload=4096)
        await peer.messages()
        peer.send(A_OPEN, 3, 0, b"exec:cat /data/local/tmp/big\0")
        first = await peer.messages()
        assert first[0].command == A_OKAY
        local_id = first[0].arg0
        writes = [m for m in first if m.command == A_WRTE]
        assert len(writes) == 1 and len(writes[0].data) == 4096  # one chunk, then it waits
        received = writes[0].data
        while True:
            peer.send(A_OKAY, 3, local_id)
            batch = await peer.messages()
            assert len([m for m in batch if m.command == A_WRTE]) <= 1
            received += b"".join(m.data for m in batch if m.command == A_WRTE)
            if any(m.command == A_CLSE for m in batch):
                break
        assert received == b"x" * 10_000
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_shell_v2_stdin_close_and_exit_status(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 5, 0, b"shell,v2,raw:cat; exit 4\0")
        (okay,) = await peer.messages()
        local_id = okay.arg0
        packet = struct.pack("<BI", 0, 6) + b"hello\n" + struct.pack("<BI", 4, 0)
        peer.send(A_WRTE, 5, local_id, packet)
        out = await peer.output(5)
        assert out == struct.pack("<BI", 1, 6) + b"hello\n" + struct.pack("<BI", 3, 1) + b"\x04"
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_shell_v2_okay_reply_and_close_are_one_write(tmp_path: Path) -> None:
    """A command that finishes at once: the stream's OKAY, its output and exit status in one WRTE,
    and the CLSE leave in one socket write; the host's OKAY for that WRTE is then ignored."""

    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        writes = peer.writer.writes
        peer.send(A_OPEN, 5, 0, b"shell,v2,raw:echo out; echo err >&2; exit 3\0")
        okay, write, close = await peer.messages()
        assert (okay.command, write.command) == (A_OKAY, A_WRTE)
        assert peer.writer.writes == writes + 1
        assert write.data == (
            struct.pack("<BI", 1, 4)
            + b"out\n"
            + struct.pack("<BI", 2, 4)
            + b"err\n"
            + struct.pack("<BI", 3, 1)
            + b"\x03"
        )
        assert (close.command, close.arg0, close.arg1) == (A_CLSE, okay.arg0, 5)
        peer.send(A_OKAY, 5, okay.arg0)
        assert await peer.messages() == []
        assert not peer.writer.closed
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_wrong_magic_drops_only_that_transport(tmp_path: Path) -> None:
    async def go() -> None:
        device = make_device(tmp_path)
        bad, good = Peer(device), Peer(device)
        bad.connect()
        good.connect()
        bad.reader.feed_data(HEADER.pack(A_OPEN, 1, 0, 0, 0, 0x12345678))
        await asyncio.wait_for(bad.task, 2)
        assert bad.writer.closed
        await good.messages()
        good.send(A_OPEN, 9, 0, b"shell:echo still here\0")
        batch = await good.messages()
        assert b"".join(m.data for m in batch if m.command == A_WRTE) == b"still here\n"
        good.reader.feed_eof()
        await good.task

    run(go())


def test_oversized_payload_drops_the_transport(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect(max_payload=4096)
        peer.reader.feed_data(HEADER.pack(A_WRTE, 1, 1, 2 * 1024 * 1024, 0, A_WRTE ^ 0xFFFFFFFF))
        await asyncio.wait_for(peer.task, 2)
        assert peer.writer.closed

    run(go())


def test_host_close_cancels_a_running_command(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 4, 0, b"shell:sleep 100\0")
        (okay,) = await peer.messages()
        stream = peer.transport.streams[okay.arg0]
        peer.send(A_CLSE, 4, okay.arg0)
        await asyncio.sleep(CLOSE_GRACE_S + 0.2)
        assert stream.task is not None and stream.task.done()
        assert not peer.transport.streams
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_device_holds_its_okay_while_a_command_does_not_read_stdin(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 6, 0, b"shell:sleep 2\0")
        (okay,) = await peer.messages()
        chunk = b"z" * (1024 * 1024)
        acks = 0
        for _ in range(3):
            peer.send(A_WRTE, 6, okay.arg0, chunk)
            acks += sum(1 for m in await peer.messages() if m.command == A_OKAY)
        assert acks == 2  # 3 MiB buffered is over the limit: the host must wait
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_a_reader_of_all_stdin_gets_everything_past_the_limit(tmp_path: Path) -> None:
    async def go() -> None:
        device = make_device(tmp_path)
        peer = Peer(device)
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 7, 0, b"exec:cat > /data/local/tmp/in.bin\0")
        (okay,) = await peer.messages()
        chunk = b"y" * (1024 * 1024)
        for _ in range(4):  # the host sends the next chunk only after the device's OKAY
            peer.send(A_WRTE, 7, okay.arg0, chunk)
            for _ in range(50):
                if any(m.command == A_OKAY for m in await peer.messages(0.02)):
                    break
            else:
                raise AssertionError("the device never acknowledged the chunk")
        peer.send(A_CLSE, 7, okay.arg0)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if device.fs.host("/data/local/tmp/in.bin").stat().st_size == 4 * len(chunk):
                break
        assert device.fs.host("/data/local/tmp/in.bin").read_bytes() == chunk * 4
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_a_host_that_writes_before_its_okay_is_dropped_with_little_buffered(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 6, 0, b"shell:sleep 5\0")
        (okay,) = await peer.messages()
        stream = peer.transport.streams[okay.arg0]
        chunk = b"z" * MAX_PAYLOAD
        for _ in range(40):  # 40 MiB at once, never waiting for an OKAY
            peer.send(A_WRTE, 6, okay.arg0, chunk)
        await asyncio.wait_for(peer.task, timeout=10)  # dropped, not buffering on
        assert peer.writer.closed
        assert stream.incoming.buffered <= INCOMING_LIMIT + MAX_PAYLOAD

    run(go())


def test_streams_per_transport_are_capped(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        for remote in range(1, MAX_STREAMS + 6):
            peer.send(A_OPEN, remote, 0, b"shell:sleep 5\0")
        replies = await peer.messages(0.3)
        assert sum(1 for m in replies if m.command == A_OKAY) == MAX_STREAMS
        refused = [m.arg1 for m in replies if m.command == A_CLSE and m.arg0 == 0]
        assert refused == list(range(MAX_STREAMS + 1, MAX_STREAMS + 6))
        peer.reader.feed_eof()
        await peer.task

    run(go())


def test_shell_v2_stdin_that_is_not_read_holds_the_host_back(tmp_path: Path) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages()
        peer.send(A_OPEN, 9, 0, b"shell,v2,raw:sleep 5\0")
        (okay,) = await peer.messages()
        payload = b"s" * (MAX_PAYLOAD - 5)
        packet = struct.pack("<BI", 0, len(payload)) + payload  # SHELL_STDIN
        acks = 0
        for _ in range(12):  # a well-behaved host: the next write only after an OKAY
            peer.send(A_WRTE, 9, okay.arg0, packet)
            got = sum(1 for m in await peer.messages(0.1) if m.command == A_OKAY)
            acks += got
            if not got:
                break
        # stdin holds ~2 MiB and the stream ~2 MiB more; then the device stops acknowledging.
        assert 3 <= acks <= 6
        peer.reader.feed_eof()
        await peer.task

    run(go())


MESSAGE = st.tuples(
    st.sampled_from([A_OPEN, A_WRTE, A_WRTE, A_WRTE, A_OKAY, A_CLSE]),
    st.integers(1, 4),  # host stream id
    st.integers(0, MAX_PAYLOAD),  # WRTE size
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(MESSAGE, max_size=80))
def test_no_message_sequence_makes_a_transport_hold_more_than_its_bound(
    tmp_path: Path, messages: list[tuple[int, int, int]]
) -> None:
    async def go() -> None:
        peer = Peer(make_device(tmp_path))
        peer.connect()
        await peer.messages(0)
        local: dict[int, int] = {}
        peak = 0
        for command, remote, size in messages:
            if peer.task.done():
                break
            if command == A_OPEN:
                peer.send(A_OPEN, remote, 0, b"shell:sleep 5\0")
            elif remote in local:
                data = b"w" * size if command == A_WRTE else b""
                peer.send(command, remote, local[remote], data)
            await asyncio.sleep(0)
            for m in await peer.messages(0):
                if m.command == A_OKAY:
                    local[m.arg1] = m.arg0
            held = sum(s.incoming.buffered for s in peer.transport.streams.values())
            peak = max(peak, held)
            assert len(peer.transport.streams) <= MAX_STREAMS
        assert peak <= TRANSPORT_LIMIT + MAX_PAYLOAD
        assert all(
            s.incoming.buffered <= INCOMING_LIMIT + MAX_PAYLOAD for s in peer.transport.streams.values()
        )
        peer.reader.feed_eof()
        await asyncio.wait_for(peer.task, timeout=10)

    run(go())


def test_a_command_at_the_exec_limit_is_refused_as_adbd_refuses_it(tmp_path: Path) -> None:
    """adbd execs `sh -c COMMAND`: Linux refuses a string of 128 KiB or more, terminator included,
    so adbd reports the failed exec (and status 126 on shell v2) and runs nothing. The real adb
    server sends requests of at most 64 KiB; a peer speaking the transport directly can send more."""

    async def output(peer: Peer, stream: int, service: bytes) -> bytes:
        peer.send(A_OPEN, stream, 0, service + b"\0")
        return await peer.output(stream)

    async def go() -> None:
        device = make_device(tmp_path)
        peer = Peer(device)
        peer.connect()
        await peer.messages()
        tail = b"; touch /data/local/tmp/ran; echo ran"
        fits = b": " + b"a" * (131071 - 2 - len(tail)) + tail
        assert await output(peer, 3, b"shell,v2,raw:" + fits) == (
            struct.pack("<BI", 1, 4) + b"ran\n" + struct.pack("<BI", 3, 1) + b"\x00"
        )
        device.fs.host("/data/local/tmp/ran").unlink()
        too_long = b": " + b"a" * (131072 - 2 - len(tail)) + tail
        message = b"error: exec '/system/bin/sh' failed: Argument list too long\n"
        assert await output(peer, 5, b"shell,v2,raw:" + too_long) == (
            struct.pack("<BI", 2, len(message)) + message + struct.pack("<BI", 3, 1) + b"\x7e"
        )
        assert await output(peer, 7, b"exec:" + too_long) == message
        assert await output(peer, 9, b"shell:" + too_long) == message
        assert not device.fs.host("/data/local/tmp/ran").exists()
        peer.reader.feed_eof()
        await peer.task

    run(go())
