"""File transfer through the sync service with the real adb binary and adbutils."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

from tests.integration.conftest import AdbServer, SimHandle


def test_push_then_pull_5mb_is_byte_exact(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    data = os.urandom(5 * 1024 * 1024 + 7)
    src, back = tmp_path / "big.bin", tmp_path / "back.bin"
    src.write_bytes(data)
    push = adb_server.adb("-s", sim_device.serial, "push", str(src), "/sdcard/new/dir/big.bin")
    assert push.returncode == 0, push.stderr
    pull = adb_server.adb("-s", sim_device.serial, "pull", "/sdcard/new/dir/big.bin", str(back))
    assert pull.returncode == 0, pull.stderr
    assert back.read_bytes() == data
    # the same file through the alias path, seen by the shell
    ls = adb_server.adb("-s", sim_device.serial, "shell", "ls /storage/emulated/0/new/dir")
    assert ls.stdout.split() == ["big.bin"]


def test_pull_of_a_missing_file_fails_clearly(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    proc = adb_server.adb("-s", sim_device.serial, "pull", "/sdcard/nope.txt", str(tmp_path / "x"))
    assert proc.returncode != 0
    assert "No such file or directory" in proc.stderr + proc.stdout


def test_adbutils_sync_push_pull_stat_list(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    device = adb_server.client().device(sim_device.serial)
    payload = os.urandom(300_000)
    device.sync.push(payload, "/data/local/tmp/deep/a.bin")
    assert device.sync.read_bytes("/data/local/tmp/deep/a.bin") == payload
    info = device.sync.stat("/data/local/tmp/deep/a.bin")
    assert info.size == len(payload)
    assert device.sync.stat("/data/local/tmp/missing").mode == 0
    names = {entry.path for entry in device.sync.list("/data/local/tmp/deep")}
    assert "a.bin" in names
    local = tmp_path / "pulled.bin"
    device.sync.pull("/data/local/tmp/deep/a.bin", local)
    assert local.read_bytes() == payload


def sync_request(ident: bytes, arg: bytes) -> bytes:
    return ident + struct.pack("<I", len(arg)) + arg


def test_pipelined_requests_are_answered_in_order(adb_server: AdbServer, sim_device: SimHandle) -> None:
    device = adb_server.client().device(sim_device.serial)
    device.sync.push(b"hello", "/sdcard/p.txt")
    conn = device.open_transport()
    conn.send_command("sync:")
    conn.check_okay()
    body = b"/sdcard/p.txt,33188"
    burst = (
        sync_request(b"STAT", b"/sdcard/p.txt")
        + sync_request(b"SEND", body)
        + b"DATA"
        + struct.pack("<I", 3)
        + b"new"
        + b"DONE"
        + struct.pack("<I", 1700000000)
        + sync_request(b"RECV", b"/sdcard/p.txt")
        + sync_request(b"QUIT", b"")
    )
    conn.conn.sendall(burst)
    sock: socket.socket = conn.conn
    reply = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        reply += chunk
    stat_id, mode, size, _mtime = struct.unpack_from("<4sIII", reply)
    assert stat_id == b"STAT" and size == 5 and mode & 0o170000 == 0o100000
    assert reply[16:24] == b"OKAY" + bytes(4)
    assert reply[24:] == b"DATA" + struct.pack("<I", 3) + b"new" + b"DONE" + bytes(4)
    conn.close()
