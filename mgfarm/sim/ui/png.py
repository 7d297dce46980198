"""A fast PNG encoder for screens: the "Up" filter with numpy, deflate in pieces, known pieces reused.

Screens are mostly runs of identical rows and flat colour, which the Up filter turns into zeros.
A run of all-zero rows is written from deflate pieces of up to 64 such rows, each made once and
kept; the other rows are compressed in bands of at most 32 rows, each ended by a full flush so it
needs no earlier data, and the bands of the previous frame whose bytes did not change are reused
as they are: typing into a field or flipping a switch re-compresses a few bands, not the screen.
Bands are deflated with Intel ISA-L (`isal`) when installed, ~7x faster than zlib at the same
ratio, else with zlib. Output is a standard 8-bit RGB PNG, and the same pixels decode from it.
Compare frames by their pixels, not their bytes: with ISA-L a few frames of equal pixels were seen
to differ in bytes (not with zlib; not reproduced in isolation, neither by what was compressed
before a band nor by the alignment of its buffer).
"""

from __future__ import annotations

import functools
import importlib
import struct
import zlib
from types import ModuleType
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:
    import numpy as np

# numpy is imported by the functions that use it: importing it was ~40 % of a worker's CPU until
# `ready`, and no screen is encoded before then.


def _fastest_zlib() -> ModuleType:
    """Intel ISA-L's zlib (`isal`) when installed: deflate ~7x, checksums 5-15x faster than zlib."""
    try:
        return importlib.import_module("isal.isal_zlib")
    except ImportError:  # optional speed-up; zlib writes the same format
        return zlib


FAST = _fastest_zlib()

SIGNATURE = b"\x89PNG\r\n\x1a\n"
FILTER_NONE, FILTER_UP = 0, 2
BAND_ROWS = 32
ZERO_RUN = 64  # rows of the longest zero-row piece
ADLER_BASE = 65521
ZLIB_HEADER = b"\x78\x01"  # deflate, 32K window, fastest
FINAL_BLOCK = b"\x03\x00"  # an empty final block with fixed Huffman codes: ends the deflate stream


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", FAST.crc32(data, FAST.crc32(kind)))


def adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """Adler-32 of A+B from the checksums of A and B (zlib's adler32_combine)."""
    rem = len2 % ADLER_BASE
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % ADLER_BASE
    sum1 += (adler2 & 0xFFFF) + ADLER_BASE - 1
    sum2 += ((adler1 >> 16) & 0xFFFF) + ((adler2 >> 16) & 0xFFFF) + ADLER_BASE - rem
    sum1 %= ADLER_BASE
    sum2 %= ADLER_BASE
    return sum1 | (sum2 << 16)


def filtered_rows(image: Image.Image) -> np.ndarray:
    """The PNG scanlines: a filter byte then the Up-filtered RGB bytes of each row."""
    import numpy as np

    if image.mode != "RGB":
        image = image.convert("RGB")
    pixels = np.asarray(image)
    h, w, _ = pixels.shape
    rows = pixels.reshape(h, w * 3)
    out = np.empty((h, w * 3 + 1), dtype=np.uint8)
    out[0, 0] = FILTER_NONE
    out[0, 1:] = rows[0]
    out[1:, 0] = FILTER_UP
    np.subtract(rows[1:], rows[:-1], out=out[1:, 1:])  # uint8 arithmetic wraps modulo 256, as PNG wants
    return out


@functools.cache
def zero_rows(stride: int, count: int) -> tuple[bytes, int]:
    """`count` (<= ZERO_RUN) Up-filtered rows equal to the row above: (deflate fragment, adler32)."""
    data = (bytes([FILTER_UP]) + bytes(stride - 1)) * count
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)  # made once per length: the smallest is worth it
    return comp.compress(data) + comp.flush(zlib.Z_FULL_FLUSH), zlib.adler32(data)


class PngEncoder:
    """Encodes successive frames of one screen, reusing the compressed bands that did not change."""

    def __init__(self, level: int = 1) -> None:
        self.level = level
        # Previous frame: band checksum (crc32, length) -> (deflate bytes, adler32 of the band).
        self._bands: dict[tuple[int, int], tuple[bytes, int]] = {}

    def encode(self, image: Image.Image) -> bytes:
        import numpy as np

        scan = filtered_rows(image)
        h, stride = scan.shape
        changed = np.empty(h, dtype=bool)
        changed[0] = True  # the first row is unfiltered
        np.any(scan[1:, 1:], axis=1, out=changed[1:])
        edges = (np.flatnonzero(changed[1:] != changed[:-1]) + 1).tolist()
        comp = FAST.compressobj(self.level, zlib.DEFLATED, -15)  # one per frame: setting one up costs
        parts: list[bytes] = [ZLIB_HEADER]
        adler = 1
        fresh: dict[tuple[int, int], tuple[bytes, int]] = {}
        for top, end in zip([0, *edges], [*edges, h], strict=True):
            if not changed[top]:
                # Longer runs are made of standalone pieces, so each piece is compressed only once.
                for piece_top in range(top, end, ZERO_RUN):
                    rows = min(ZERO_RUN, end - piece_top)
                    fragment, run_adler = zero_rows(stride, rows)
                    parts.append(fragment)
                    adler = adler32_combine(adler, run_adler, rows * stride)
                continue
            for band_top in range(top, end, BAND_ROWS):
                band = scan[band_top : min(band_top + BAND_ROWS, end)].data.cast("B")  # a view, no copy
                key = (FAST.crc32(band), band.nbytes)
                hit = self._bands.get(key) or fresh.get(key)
                if hit is None:
                    # The full flush ends the band byte-aligned and forgets it: the bytes stand alone.
                    hit = (comp.compress(band) + comp.flush(zlib.Z_FULL_FLUSH), FAST.adler32(band))
                fresh[key] = hit
                parts.append(hit[0])
                adler = adler32_combine(adler, hit[1], band.nbytes)
        parts.append(FINAL_BLOCK + struct.pack(">I", adler))
        self._bands = fresh
        header = struct.pack(">IIBBBBB", (stride - 1) // 3, h, 8, 2, 0, 0, 0)
        return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", b"".join(parts)) + _chunk(b"IEND", b"")

    def forget(self) -> None:
        self._bands = {}


def encode_png(image: Image.Image, level: int = 1) -> bytes:
    """PNG bytes of one image, with no state kept."""
    return PngEncoder(level).encode(image)
