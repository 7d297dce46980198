"""Fuzzing the transport framing, the sync parser and the console: the device survives and stays intact."""

from __future__ import annotations

import asyncio
import os
import struct
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgfarm.sim.adbd.protocol import A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_STLS, A_WRTE, Message, encode
from mgfarm.sim.console import Console, ConsoleSession
from mgfarm.sim.device import SimDevice
from tests.unit.test_sim_transport import Peer, make_device

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

commands = st.sampled_from([A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS, 0x12345678])
ids = st.integers(min_value=0, max_value=6) | st.integers(min_value=0, max_value=0xFFFFFFFF)
payloads = st.sampled_from(
    [b"shell:echo hi\0", b"sync:\0", b"exec:cat\0", b"tcp:9008\0", b"shell,v2,raw:echo x\0", b""]
) | st.binary(max_size=300)
message = st.tuples(commands, ids, ids, payloads)


def tree(root: Path) -> list[tuple[str, int]]:
    found = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            found.append((str(path.relative_to(root)), path.lstat().st_size))
    return sorted(found)


async def still_serves(device: SimDevice) -> bool:
    peer = Peer(device)
    peer.connect()
    await peer.messages(0.01)
    peer.send(A_OPEN, 1, 0, b"shell:echo alive\0")
    batch = await peer.messages(0.05)
    peer.reader.feed_eof()
    await asyncio.wait_for(peer.task, 2)
    return b"".join(m.data for m in batch if m.command == A_WRTE) == b"alive\n"


@FUZZ
@given(msgs=st.lists(message, max_size=12), tail=st.binary(max_size=64), garble=st.booleans())
def test_transport_survives_arbitrary_messages(
    tmp_path: Path, msgs: list[tuple[int, int, int, bytes]], tail: bytes, garble: bool
) -> None:
    device = make_device(tmp_path)
    before = tree(device.fs.root)

    async def go() -> None:
        peer = Peer(device)
        peer.connect()
        for command, arg0, arg1, data in msgs:
            raw = encode(Message(command, arg0, arg1, data))
            if garble:
                raw = raw[:20] + bytes([raw[20] ^ 0xFF]) + raw[21:]  # corrupt the magic
            peer.reader.feed_data(raw)
        peer.reader.feed_data(tail)
        peer.reader.feed_eof()
        await asyncio.wait_for(peer.task, 5)
        assert await still_serves(device)

    asyncio.run(go())
    assert tree(device.fs.root) == before


sync_ids = st.sampled_from(
    [b"STAT", b"STA2", b"LST2", b"LIST", b"RECV", b"SEND", b"DATA", b"DONE", b"QUIT", b"XXXX"]
)
sync_paths = st.sampled_from(
    [
        b"/sdcard/f",
        b"/../../etc/passwd",
        b"/data/local/tmp/new/x,33188",
        b"",
        b"/sdcard/f,abc",
        b"/sdcard,16877",
    ]
) | st.binary(max_size=40)
sync_request = st.tuples(sync_ids, sync_paths, st.booleans())


@FUZZ
@given(reqs=st.lists(sync_request, max_size=10), cut=st.integers(min_value=0, max_value=400))
def test_sync_parser_survives_arbitrary_requests(
    tmp_path: Path, reqs: list[tuple[bytes, bytes, bool]], cut: int
) -> None:
    device = make_device(tmp_path)
    device.fs.host("/sdcard/f").write_bytes(b"keep")
    raw = b""
    for ident, arg, lie in reqs:
        length = len(arg) + (1_000_000 if lie else 0)  # a length field that disagrees with the data
        raw += ident + struct.pack("<I", length & 0xFFFFFFFF) + arg
    raw = raw[: max(cut, 8)] if cut < len(raw) else raw

    async def go() -> None:
        peer = Peer(device)
        peer.connect()
        await peer.messages(0)
        peer.send(A_OPEN, 2, 0, b"sync:\0")
        okay = (await peer.messages(0.01))[0]
        peer.send(A_WRTE, 2, okay.arg0, raw)
        await peer.messages(0.02)
        peer.send(A_CLSE, 2, okay.arg0)
        peer.reader.feed_eof()
        await asyncio.wait_for(peer.task, 5)
        assert await still_serves(device)

    asyncio.run(go())
    outside = {p.name for p in tmp_path.iterdir()}
    assert outside <= {"root", "sync-staging", "snaps"}
    staging = tmp_path / "sync-staging"
    assert not staging.exists() or list(staging.iterdir()) == []
    # any SEND that completed wrote a whole file; the seeded file is either intact or fully replaced
    assert device.fs.host("/sdcard/f").exists()


@FUZZ
@given(
    lines=st.lists(
        st.text(max_size=60) | st.sampled_from(["avd snapshot save x", "kill", "auth t"]), max_size=8
    )
)
def test_console_session_never_raises_and_respects_auth(tmp_path: Path, lines: list[str]) -> None:
    device = make_device(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text("secret")
    device.config.token_file = token_file
    session = ConsoleSession(Console(device, "127.0.0.1", 0), authed=False)
    for line in lines:
        reply, _close = session.handle(line.replace("\n", " "))
        assert reply == "" or reply.endswith("\r\n")
        assert not session.authed
    assert not (tmp_path / "snaps").exists()
    assert not session.kill_requested
