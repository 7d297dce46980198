"""The device's side of the shared frame file (the client's is mgfarm/device/framebuffer.py, same layout).

The farm creates one file per device (0600, in its own folder) and passes the folder with `--frames`;
the worker sizes and maps each file before it confines itself and closes the descriptor, so a
confined device can write pixels into its mapping but cannot open, resize or replace any host file.
`mgfarm-frame` (mgfarm/sim/shell/ui_cmd.py) writes the current screen here and replies with where
it is; a seqlock (odd sequence number while writing) lets a reader tell a torn frame. A frame that
differs from the one the file holds in a few rows only gets those rows written (`write_rows`).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import stat
import struct
import time
from pathlib import Path
from typing import Any

from mgfarm.sim.ui.kept import Kept

MAGIC = b"MGFRAME1"
HEADER = struct.Struct("<8sQIII4x16s16x")  # magic, seq, width, height, channels, signature
SEQ = struct.Struct("<Q")
SEQ_OFFSET = 8
CHANNELS = 3
# Raw frames a worker keeps for its devices, by (digest, scale): going back to a recent screen copies
# it (~0.7 ms) instead of rendering it again (~3.5 ms). 7.8 MB each at 1080x2400, dropped when idle.
RAW_KEPT = 3
# A worker of one device: the newest is the screen the client shows (it gets `same`, never a copy),
# so its hits are the screen before (back): in the bench's workloads every hit was the second newest.
RAW_KEPT_ALONE = 2
# Digests a client may name with `mgfarm-frame --since D1,D2,...` (its last frame and the ones it
# kept before it): more is a usage error, so a reply's cost never grows with what a client sends.
MAX_SINCE = 4
# madvise(2)'s MADV_POPULATE_WRITE (Linux 5.14; the mmap module has no name for it): the pages of a new or
# released file come in in one call, ~1.2 ms less than a fault each for a 1080x2400 frame.
MADV_POPULATE_WRITE = 23


class FrameBuffer:
    """A mapped frame file: `write` puts one RGB frame in it; the last signature written is known."""

    def __init__(self, mapping: mmap.mmap) -> None:
        self._map = mapping
        self.capacity = len(mapping) - HEADER.size  # bytes of pixels it holds
        self.seq = 0
        self.signature = b""  # of the frame the file holds
        self.size = (0, 0)  # its width and height
        self.scale = 1  # how many screen pixels a side one of its pixels stands for
        self.used_at = 0.0  # time.monotonic() of the last `mgfarm-frame` answered from this file

    @classmethod
    def open(cls, path: Path, width: int, height: int) -> FrameBuffer:
        """Size the farm's file for a `width`x`height` screen (either way round) and map it."""
        size = HEADER.size + width * height * CHANNELS
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{path} is not a regular file")
            os.ftruncate(fd, size)
            mapping = mmap.mmap(fd, size)
        finally:
            os.close(fd)  # the mapping stays; the device keeps no handle that could resize the file
        buffer = cls(mapping)
        HEADER.pack_into(mapping, 0, MAGIC, 0, 0, 0, CHANNELS, bytes(16))
        return buffer

    def touch(self) -> None:
        """A client was just told about the frame this file holds (it reads it now)."""
        self.used_at = time.monotonic()

    def quiet_for(self, seconds: float) -> bool:
        """Whether no client was told about this file's frame in the last `seconds`."""
        return time.monotonic() - self.used_at >= seconds

    def fits(self, width: int, height: int) -> bool:
        return width * height * CHANNELS <= self.capacity

    def write(
        self, pixels: bytes | memoryview, width: int, height: int, signature: bytes, scale: int = 1
    ) -> int:
        """Write one frame (RGB rows, `width*height*3` bytes); returns its sequence number (even)."""
        odd = self.seq + 1
        SEQ.pack_into(self._map, SEQ_OFFSET, odd)  # readers now see a frame being written
        if not self.signature:  # a new or released file: its pixel pages are holes
            self._populate(HEADER.size + len(pixels))
        self._map[HEADER.size : HEADER.size + len(pixels)] = pixels
        self.seq = odd + 1
        HEADER.pack_into(self._map, 0, MAGIC, self.seq, width, height, CHANNELS, signature)
        self.signature = signature
        self.size = (width, height)
        self.scale = scale
        return self.seq

    def write_rows(self, image: Any, rows: list[tuple[int, int]], signature: bytes) -> int:
        """Write only rows `y0..y1` (excluded) of an RGB Pillow image, for a frame that differs from
        the one the file holds in those rows alone (same size and scale); returns its sequence number.

        A changed band of a 1080x2400 screen is ~200 rows: packing and copying them costs a tenth of
        the whole frame's ~2.4 ms. Readers see the sequence odd meanwhile, as for `write`."""
        width, height = image.size
        assert (width, height) == self.size, "rows only over a frame of the same size"
        odd = self.seq + 1
        SEQ.pack_into(self._map, SEQ_OFFSET, odd)
        for y0, y1 in rows:
            start = HEADER.size + y0 * width * CHANNELS
            data = rgb_rows(image, y0, y1)
            self._map[start : start + len(data)] = data
        self.seq = odd + 1
        HEADER.pack_into(self._map, 0, MAGIC, self.seq, width, height, CHANNELS, signature)
        self.signature = signature
        return self.seq

    def release(self) -> None:
        """Give the file's pixel pages back (an idle device's frame costs nothing while nobody reads).

        The header then names no frame (signature zero), so the next `mgfarm-frame` writes the
        screen again; a client that holds the pixels still gets `same`. Pages are freed whole, so
        the first page (header and first pixels) stays."""
        if not self.signature:
            return
        odd = self.seq + 1
        SEQ.pack_into(self._map, SEQ_OFFSET, odd)  # a reader meanwhile sees a frame being written
        start = mmap.PAGESIZE
        try:
            if len(self._map) > start:
                self._map.madvise(mmap.MADV_REMOVE, start, len(self._map) - start)
        except OSError:  # a filesystem that cannot punch holes: the frame stays, unchanged
            SEQ.pack_into(self._map, SEQ_OFFSET, self.seq)
            return
        self.seq = odd + 1
        HEADER.pack_into(self._map, 0, MAGIC, self.seq, 0, 0, CHANNELS, bytes(16))
        self.signature = b""
        self.size = (0, 0)

    def _populate(self, end: int) -> None:
        """Bring the pages up to `end` in, in one call (where the kernel cannot, the write faults
        them in)."""
        start = mmap.PAGESIZE
        if end > start:
            with contextlib.suppress(OSError):
                self._map.madvise(MADV_POPULATE_WRITE, start, end - start)


Raw = tuple[int, int, bytes]  # width, height, RGB rows


def parse_since(value: str) -> list[str] | None:
    """The digests of `--since D1,D2,...` (1 to MAX_SINCE of 32 lowercase hex digits each, the
    client's last frame first), or None when `value` is anything else (a usage error)."""
    digests = value.split(",")
    if not 1 <= len(digests) <= MAX_SINCE:
        return None
    if not all(len(d) == 32 and all(c in "0123456789abcdef" for c in d) for d in digests):
        return None
    return digests


def rgb_rows(image: Any, y0: int = 0, y1: int | None = None) -> bytes:
    """Rows `y0..y1` (excluded; default all) of an RGB Pillow image as packed RGB bytes, in one
    piece: `tobytes` encodes 64 KiB at a time and joins the pieces, which took twice as long for
    a 1080x2400 screen (~2.4 ms against ~1.1)."""
    from PIL import Image  # imported by the first frame, not by a worker that never renders

    y1 = image.height if y1 is None else y1
    size = image.width * (y1 - y0) * CHANNELS
    if size <= 0:
        return b""
    encoder = Image._getencoder("RGB", "raw", ("RGB", 0, 1))
    encoder.setimage(image.im, (0, y0, image.width, y1))
    _, status, data = encoder.encode(size)
    if status == 1 and len(data) == size:
        return bytes(data)
    return bytes(image.crop((0, y0, image.width, y1)).tobytes())


# By (digest, scale); a count, each frame costing 1. Shared frames off: none kept.
RAW: Kept[tuple[bytes, int], Raw] = Kept(
    RAW_KEPT if os.environ.get("MGFARM_SIM_SHARED_FRAMES", "1") != "0" else 0, lambda _frame: 1
)


def open_buffers(folder: Path, serials: list[str], width: int, height: int) -> dict[str, FrameBuffer]:
    """The frame buffers of the devices whose file the farm created in `folder` (`SERIAL.frame`)."""
    buffers = {}
    for serial in serials:
        path = folder / f"{serial}.frame"
        if path.is_file():
            buffers[serial] = FrameBuffer.open(path, width, height)
    return buffers
