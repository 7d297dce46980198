"""The sync service in memory: escapes refused, half transfers never land, bad requests end the session."""

from __future__ import annotations

import asyncio
import stat
import struct
from pathlib import Path

from mgfarm.sim.adbd.protocol import A_CLSE, A_OPEN, A_WRTE
from mgfarm.sim.device import SimDevice
from tests.unit.test_sim_transport import Peer, make_device


def req(ident: bytes, arg: bytes) -> bytes:
    return ident + struct.pack("<I", len(arg)) + arg


async def sync_exchange(device: SimDevice, payload: bytes, close: bool = False) -> tuple[bytes, bool]:
    """Send payload on a sync stream; (device's reply bytes, whether the device closed the stream)."""
    peer = Peer(device)
    peer.connect()
    await peer.messages()
    peer.send(A_OPEN, 2, 0, b"sync:\0")
    (okay,) = await peer.messages()
    peer.send(A_WRTE, 2, okay.arg0, payload)
    if close:  # the host goes away after the device started on the payload
        await peer.messages()
        peer.send(A_CLSE, 2, okay.arg0)
    out, closed = bytearray(), False
    for _ in range(10):
        batch = await peer.messages(0.02)
        for msg in batch:
            if msg.command == A_WRTE:
                out += msg.data
                peer.send(0x59414B4F, 2, okay.arg0)
            closed = closed or msg.command == A_CLSE
        if closed or close:
            break
    peer.reader.feed_eof()
    await peer.task
    return bytes(out), closed


def test_send_outside_the_root_fails_and_writes_nothing(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    path = b"/../../../data/local/tmp/escape.txt"
    payload = req(b"SEND", path + b",33188") + b"DATA" + struct.pack("<I", 2) + b"hi"
    payload += b"DONE" + bytes(4)
    reply, _ = asyncio.run(sync_exchange(device, payload))
    # `..` cannot climb above /, so this lands at /data/local/tmp/escape.txt inside the root
    assert reply == b"OKAY" + bytes(4)
    assert (device.fs.root / "data/local/tmp/escape.txt").read_bytes() == b"hi"
    assert not (tmp_path.parent / "data/local/tmp/escape.txt").exists()


def test_send_through_a_symlink_out_of_the_root_stays_inside(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    # A link planted on the host with a host path: the device reads its target as a device path,
    # resolved beneath the device root (chroot semantics), so the file lands inside the root.
    (device.fs.root / "data/local/tmp/link").symlink_to(outside)
    device.fs.mkdir(str(outside), parents=True)  # the same path inside the device
    payload = req(b"SEND", b"/data/local/tmp/link/x,33188") + b"DATA" + struct.pack("<I", 1) + b"x"
    payload += b"DONE" + bytes(4)
    reply, _ = asyncio.run(sync_exchange(device, payload))
    # There it is a folder of the device's read-only system image (the host's tmp path is not /data).
    assert reply.startswith(b"FAIL") and reply.endswith(b"couldn't create file: Read-only file system")
    assert list(outside.iterdir()) == []
    assert not (device.fs.root / str(outside).lstrip("/") / "x").exists()


def test_client_dying_mid_send_leaves_the_old_file(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    target = device.fs.host("/sdcard/keep.txt")
    target.write_bytes(b"original")
    payload = req(b"SEND", b"/sdcard/keep.txt,33188") + b"DATA" + struct.pack("<I", 100) + b"partial"
    asyncio.run(sync_exchange(device, payload, close=True))
    assert target.read_bytes() == b"original"
    assert (tmp_path / "sync-staging").is_dir()  # the transfer had started
    assert list((tmp_path / "sync-staging").iterdir()) == []


def test_oversized_data_chunk_and_unknown_request_fail(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    payload = req(b"SEND", b"/sdcard/a,33188") + b"DATA" + struct.pack("<I", 10_000_000)
    reply, closed = asyncio.run(sync_exchange(device, payload))
    assert reply.startswith(b"FAIL") and closed
    assert not device.fs.host("/sdcard/a").exists()
    reply, closed = asyncio.run(sync_exchange(device, req(b"ZZZZ", b"x")))
    assert reply.startswith(b"FAIL") and closed


def test_list_has_dot_entries_and_ends_with_done(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    device.fs.host("/sdcard/Download/f.txt").write_bytes(b"abc")
    reply, _ = asyncio.run(sync_exchange(device, req(b"LIST", b"/sdcard/Download")))
    names = []
    pos = 0
    while reply[pos : pos + 4] == b"DENT":
        _id, _mode, size, _mtime, namelen = struct.unpack_from("<4sIIII", reply, pos)
        names.append((reply[pos + 20 : pos + 20 + namelen].decode(), size))
        pos += 20 + namelen
    assert reply[pos:] == b"DONE" + bytes(16)
    assert [n for n, _ in names] == [".", "..", "f.txt"] and names[2][1] == 3


def test_stat_v2_reports_enoent_and_sizes(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    device.fs.host("/sdcard/s.txt").write_bytes(b"12345")
    reply, _ = asyncio.run(
        sync_exchange(device, req(b"STA2", b"/sdcard/s.txt") + req(b"LST2", b"/sdcard/none"))
    )
    fields = struct.unpack_from("<4sIQQIIIIQqqq", reply)
    assert fields[0] == b"STA2" and fields[1] == 0 and fields[8] == 5
    missing = struct.unpack_from("<4sIQQIIIIQqqq", reply, 72)
    assert missing[0] == b"LST2" and missing[1] == 2  # ENOENT


def test_links_list_and_stat_with_their_device_target(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    device.fs.symlink("/sdcard/Music", "/sdcard/Download/l")
    reply, _ = asyncio.run(
        sync_exchange(device, req(b"LIST", b"/sdcard/Download") + req(b"LST2", b"/sdcard/Download/l"))
    )
    _id, mode, size, _mtime, namelen = struct.unpack_from("<4sIIII", reply, 2 * 20 + 3)  # after . and ..
    assert reply[2 * 20 + 3 + 20 : 2 * 20 + 3 + 20 + namelen] == b"l"
    assert stat.S_ISLNK(mode) and size == len("/sdcard/Music")
    lst2 = struct.unpack_from("<4sIQQIIIIQqqq", reply, reply.index(b"LST2"))
    assert stat.S_ISLNK(lst2[4]) and lst2[8] == len("/sdcard/Music")
