"""Frames as raw pixels through a shared file: the client's side (the sim's is mgfarm/sim/framebuffer.py).

When the trainer and a simulated device share a host, the device writes its screen as raw RGB into a
file the farm created for it (0600, in the farm's own folder; the worker maps it before it confines
itself) and the client reads it with `pread`, instead of a PNG encoded, sent over adb and decoded.

The device is untrusted: everything in the file is checked before it is believed. The file holds a
64-byte header, then the pixels:

    0  magic  b"MGFRAME1"
    8  seq    u64, odd while the device writes (a seqlock), even when the frame is whole
    16 width, height, channels  u32 each (channels is 3: RGB)
    28 4 bytes zero
    32 signature  16 bytes, the device's digest of what decides the pixels
    48 16 bytes zero

A reader takes the header, the pixels, then the header again: a frame is believed only when both
headers are equal, even, and say what the device's reply said (seq, size, signature). The pixels
are read with `pread` into the client's own array, never through a mapping, so a file the device
shrank gives a short read (an error), never SIGBUS, and an oversized header is refused before any
allocation.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mgfarm.errors import MgfarmError

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"MGFRAME1"
HEADER = struct.Struct("<8sQIII4x16s16x")
HEADER_SIZE = HEADER.size  # 64
CHANNELS = 3
MAX_SIDE = 8192  # no device screen is larger; a header saying more is refused
# Digests `mgfarm-frame --since D1,D2,...` takes at most (the sim refuses more: a usage error).
MAX_SINCE = 4
# The device's reply to `mgfarm-frame`: a new frame in the file, or the one the client already has.
_REPLY = re.compile(rb"^(?:frame (\d{1,20}) (\d{1,5}) (\d{1,5}) ([0-9a-f]{32})|same ([0-9a-f]{32}))\n")


class FrameError(MgfarmError):
    """The device's frame file or reply is not a whole frame of the expected size."""


@dataclass(frozen=True)
class Header:
    seq: int
    width: int
    height: int
    signature: bytes  # 16 bytes

    @property
    def nbytes(self) -> int:
        return self.width * self.height * CHANNELS


@dataclass(frozen=True)
class Reply:
    """What `mgfarm-frame` answered: `same` (header None) or the header the file must hold."""

    header: Header | None
    signature: bytes
    rest: bytes  # what follows the first line: the UI hierarchy when asked for


def parse_header(data: bytes, width: int, height: int) -> Header:
    """The header in `data` (64 bytes), checked: FrameError unless it is a whole `width`x`height` frame."""
    if len(data) < HEADER_SIZE:
        raise FrameError(f"the frame header is {len(data)} bytes, not {HEADER_SIZE}")
    magic, seq, w, h, channels, signature = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise FrameError(f"the frame file starts with {magic!r}, not {MAGIC!r}")
    if seq % 2:
        raise FrameError(f"frame {seq} is being written (odd sequence number)")
    if channels != CHANNELS:
        raise FrameError(f"the frame has {channels} channels, not {CHANNELS}")
    if not (0 < w <= MAX_SIDE and 0 < h <= MAX_SIDE) or (w, h) != (width, height):
        raise FrameError(f"the frame is {w}x{h}, the screen {width}x{height}")
    return Header(seq, w, h, signature)


def parse_reply(data: bytes) -> Reply:
    """The first line of `mgfarm-frame`'s output; FrameError when it is anything else."""
    m = _REPLY.match(data)
    if m is None:
        raise FrameError(f"mgfarm-frame answered {data[:120]!r}")
    rest = data[m.end() :]
    if m.group(5) is not None:
        return Reply(None, bytes.fromhex(m.group(5).decode()), rest)
    seq, w, h = int(m.group(1)), int(m.group(2)), int(m.group(3))
    signature = bytes.fromhex(m.group(4).decode())
    return Reply(Header(seq, w, h, signature), signature, rest)


class FrameFile:
    """One device's frame file, opened read-only; `read` returns the frame a reply announced."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._fd = -1
        self.reopen()

    def reopen(self) -> None:
        """Open the path again: a restarted replica's farm made a new file there."""
        self.close()
        try:
            self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError as exc:
            raise FrameError(f"cannot open the frame file {self.path} ({exc.strerror})") from exc
        if not stat.S_ISREG(os.fstat(self._fd).st_mode):
            self.close()
            raise FrameError(f"the frame file {self.path} is not a regular file")

    def read(self, expected: Header, screen: tuple[int, int]) -> np.ndarray:
        """A new read-only (height, width, 3) array holding the frame `expected` describes.

        FrameError when the frame is not the screen's (width, height), when the file holds another
        frame, a torn one (the device wrote meanwhile) or fewer bytes than the frame needs.
        """
        # here: the farm's watchdog imports this module for `create` only, without numpy
        from mgfarm.device.frames import POOL

        before = os.pread(self._fd, HEADER_SIZE, 0)
        header = parse_header(before, *screen)
        if header != expected:
            raise FrameError(f"the frame file holds frame {header.seq}, the reply named {expected.seq}")
        pixels = POOL.empty((header.height, header.width, CHANNELS))
        got = os.preadv(self._fd, [pixels.data.cast("B")], HEADER_SIZE)
        if got != header.nbytes:
            raise FrameError(f"the frame file holds {got} bytes of pixels, the frame needs {header.nbytes}")
        if os.pread(self._fd, HEADER_SIZE, 0) != before:
            raise FrameError(f"frame {header.seq} changed while it was read")
        pixels.flags.writeable = False
        return pixels

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def create(path: Path) -> None:
    """A new, empty frame file only this user can open (0600), replacing any earlier one.

    The farm makes it; the worker sizes and maps it before confining itself. A new inode each time,
    so a worker from before (a restart) can never write the new device's frames.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    os.close(fd)
