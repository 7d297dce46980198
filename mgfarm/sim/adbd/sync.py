"""The `sync:` file service: STAT, STA2/LST2, LIST, SEND, RECV, QUIT, parsed as one pipelined byte stream.

Paths go through the device filesystem's descriptor-based calls: resolved beneath the device root
at the moment of use, device symlinks followed in device terms only.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import posixpath
import stat
import struct
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from mgfarm.sim.adbd.transport import Stream
from mgfarm.sim.io import ByteSource
from mgfarm.sim.system.fs import ROOT, SHELL, PathEscapeError, access_ns, change_ns

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.adbd")

REQUEST = struct.Struct("<4sI")
STAT_V1 = struct.Struct("<4sIII")
STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT = struct.Struct("<4sIIII")
MAX_PATH = 1024
MAX_DATA = 64 * 1024
DONE_LIST = b"DONE" + bytes(16)
OKAY_SEND = b"OKAY" + bytes(4)


class SyncFailure(Exception):
    """A request the device refuses with FAIL; the sync session then ends, as on adbd."""


def fail_packet(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + struct.pack("<I", len(data)) + data


async def serve_sync(device: SimDevice, stream: Stream) -> None:
    """Answer sync requests until QUIT, EOF, or a failure."""
    session = SyncSession(device, stream)
    try:
        await session.run()
    except SyncFailure as exc:
        log.info("%s: sync: %s", device.config.serial, exc)
        await stream.write(fail_packet(str(exc)))


class SyncSession:
    """One sync stream: reads requests and writes replies in order."""

    def __init__(self, device: SimDevice, stream: Stream) -> None:
        self.device = device
        self.stream = stream
        self.incoming: ByteSource = stream.incoming
        # adbd serves sync as the uid it runs as (`adb root`/`unroot`)
        self.fs = device.fs.as_user(ROOT if device.root_adbd else SHELL)

    async def run(self) -> None:
        while True:
            header = await self.incoming.read_exactly(REQUEST.size)
            if header is None:
                return
            ident, length = REQUEST.unpack(header)
            if ident == b"QUIT":
                return
            if length > MAX_PATH:
                raise SyncFailure(f"path too long: {length} bytes")
            raw = await self.incoming.read_exactly(length)
            if raw is None:
                return
            arg = raw.decode("utf-8", errors="replace")
            if ident == b"STAT":
                await self.stream.write(self.stat_v1(arg))
            elif ident in (b"STA2", b"LST2"):
                await self.stream.write(self.stat_v2(arg, follow=ident == b"STA2", ident=ident))
            elif ident == b"LIST":
                await self.stream.write(self.listing(arg))
            elif ident == b"RECV":
                await self.recv(arg)
            elif ident == b"SEND":
                await self.send(arg)
            else:
                raise SyncFailure(f"unknown command {ident!r}")

    def stat_v1(self, path: str) -> bytes:
        try:
            st = self.fs.lstat(path)
        except (OSError, PathEscapeError):
            return STAT_V1.pack(b"STAT", 0, 0, 0)
        size = self.size(path, st)
        return STAT_V1.pack(b"STAT", st.st_mode & 0xFFFFFFFF, size & 0xFFFFFFFF, int(st.st_mtime))

    def size(self, path: str, st: os.stat_result) -> int:
        """A link's size is its device target's length (the host's carries the LINK_DIR prefix)."""
        if stat.S_ISLNK(st.st_mode):
            with contextlib.suppress(OSError, PathEscapeError):
                return len(self.fs.readlink(path).encode())
        return st.st_size

    def stat_v2(self, path: str, follow: bool, ident: bytes) -> bytes:
        try:
            st = self.fs.stat(path, follow=follow)
        except PathEscapeError:
            return STAT_V2.pack(ident, errno.EACCES, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        except OSError as exc:
            return STAT_V2.pack(ident, exc.errno or errno.ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return STAT_V2.pack(
            ident,
            0,
            st.st_dev,
            st.st_ino,
            st.st_mode,
            st.st_nlink,
            0,  # the simulated device owns everything as root
            0,
            self.size(path, st),
            access_ns(st) // 1_000_000_000,
            int(st.st_mtime),
            change_ns(st, self.device.device_ns) // 1_000_000_000,
        )

    def listing(self, path: str) -> bytes:
        out = bytearray()
        fs = self.fs
        try:
            own = fs.stat(path)
            entries = [(".", own), ("..", own), *fs.entries(path)]
        except (OSError, PathEscapeError):
            return DONE_LIST
        for name, st in entries:
            encoded = name.encode("utf-8", errors="surrogateescape")
            size = self.size(posixpath.join(path, name), st)
            out += DENT.pack(b"DENT", st.st_mode, size & 0xFFFFFFFF, int(st.st_mtime), len(encoded))
            out += encoded
        return bytes(out + DONE_LIST)

    async def recv(self, path: str) -> None:
        try:
            fd = self.fs.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except PathEscapeError as exc:
            raise SyncFailure(f"{path}: permission denied") from exc
        except FileNotFoundError as exc:
            raise SyncFailure("open failed: No such file or directory") from exc
        except OSError as exc:
            raise SyncFailure(f"open failed: {exc.strerror}") from exc
        try:
            # Chunk by chunk, each write waiting for the host's flow control: a large file is never
            # held in memory whole.
            out = bytearray()
            while True:
                try:
                    chunk = os.read(fd, MAX_DATA)
                except IsADirectoryError as exc:
                    raise SyncFailure("read failed: Is a directory") from exc
                except OSError as exc:
                    raise SyncFailure(f"read failed: {exc.strerror}") from exc
                if not chunk:
                    break
                out += b"DATA" + struct.pack("<I", len(chunk)) + chunk
                if len(out) >= 4 * MAX_DATA:
                    await self.stream.write(bytes(out))
                    out = bytearray()
            out += b"DONE" + bytes(4)
            await self.stream.write(bytes(out))
        finally:
            os.close(fd)

    async def send(self, spec: str) -> None:
        path, comma, mode_text = spec.rpartition(",")
        if not comma:
            path, mode_text = spec, "420"
        try:
            mode = int(mode_text)
        except ValueError as exc:
            raise SyncFailure(f"bad file mode {mode_text!r}") from exc
        if stat.S_ISLNK(mode):
            raise SyncFailure(f"{path}: symlinks cannot be pushed to this device")
        fs = self.fs
        if fs.is_dir(path):
            raise SyncFailure(f"{path}: is a directory")
        staging = self.device.config.data_dir / "sync-staging"
        staging.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=staging)
        tmp = Path(tmp_name)
        received = [0]  # bytes held in the device's space while they are outside its root
        try:
            with os.fdopen(fd, "wb") as fh:
                mtime = await self.receive_data(fh, received)
            if mtime is None:
                return  # the client went away mid-transfer: the destination is untouched
            try:
                os.chmod(tmp, (mode & 0o7777) | 0o600)
                parent = posixpath.dirname(fs.normalize(path))
                fs.mkdir(parent, parents=True)
                # Renamed into the folder's descriptor, resolved now beneath the root. adbd sets the
                # mtime the client sent (adb push sends the local file's); a client that sends none
                # (0) gets the device clock's time rather than 1970.
                fs.place(tmp, path, mtime or None)
                fs.space.add(received[0], 1)  # beneath the root now; `finally` lets go of the hold
                self.device.changed()
            except PathEscapeError as exc:
                raise SyncFailure(f"{path}: permission denied") from exc
            except OSError as exc:
                if exc.errno in (errno.EROFS, errno.EACCES):  # adbd's words for a file it may not create
                    raise SyncFailure(f"couldn't create file: {exc.strerror}") from exc
                raise SyncFailure(f"{path}: {exc.strerror or exc}") from exc
            await self.stream.write(OKAY_SEND)
        finally:
            self.fs.space.release(received[0])
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    async def receive_data(self, fh: BinaryIO, received: list[int]) -> int | None:
        """Write DATA chunks to fh until DONE, each held in the device's space first (adding to
        `received`); the DONE mtime, or None at EOF."""
        while True:
            header = await self.incoming.read_exactly(REQUEST.size)
            if header is None:
                return None
            ident, length = REQUEST.unpack(header)
            if ident == b"DONE":
                return length
            if ident != b"DATA":
                raise SyncFailure(f"unexpected {ident!r} inside SEND")
            if length > MAX_DATA:
                raise SyncFailure(f"DATA chunk of {length} bytes exceeds {MAX_DATA}")
            chunk = await self.incoming.read_exactly(length)
            if chunk is None:
                return None
            try:
                self.fs.space.hold(len(chunk))
            except OSError as exc:
                raise SyncFailure(f"write failed: {exc.strerror}") from exc
            received[0] += len(chunk)
            fh.write(chunk)
