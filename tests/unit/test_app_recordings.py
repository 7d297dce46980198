"""The files Audio Recorder and Simple Draw Pro write: a playable M4A's boxes, images that decode."""

from __future__ import annotations

import io
import struct
import xml.etree.ElementTree as ET

from PIL import Image

from mgfarm.sim.apps.audiorecorder import m4a
from mgfarm.sim.apps.simpledraw import IMAGE_SIZE, image_bytes


def child(data: bytes, path: list[bytes]) -> bytes:
    """The body of the box at `path` (container boxes walked in order)."""
    for kind in path:
        i = 0
        while True:
            size, found = struct.unpack(">I4s", data[i : i + 8])
            assert 8 <= size <= len(data) - i
            if found == kind:
                data = data[i + 8 : i + size]
                break
            i += size
    return data


def test_m4a_has_its_duration_and_points_at_its_samples() -> None:
    data = m4a(2.0)
    assert child(data, [b"ftyp"])[:4] == b"M4A "
    _vf, _c, _m, timescale, duration = struct.unpack(">IIIII", child(data, [b"moov", b"mvhd"])[:20])
    assert timescale == 1000 and abs(duration - 2000) < 30
    stbl = [b"moov", b"trak", b"mdia", b"minf", b"stbl"]
    _vf, _size, count = struct.unpack(">III", child(data, [*stbl, b"stsz"])[:12])
    _vf, _n, offset = struct.unpack(">III", child(data, [*stbl, b"stco"]))
    mdat = child(data, [b"mdat"])
    assert count * 4 == len(mdat) and data[offset : offset + len(mdat)] == mdat
    assert b"mp4a" in child(data, [*stbl, b"stsd"])


def test_drawings_decode_as_their_type() -> None:
    stroke = [(0.1, 0.1, 0.9, 0.9)]
    for kind, fmt in (("png", "PNG"), ("jpg", "JPEG")):
        with Image.open(io.BytesIO(image_bytes(stroke, kind))) as image:
            assert (image.format, image.size) == (fmt, IMAGE_SIZE)
            assert image.convert("L").getpixel((IMAGE_SIZE[0] // 2, IMAGE_SIZE[1] // 2)) < 64  # on the stroke
    svg = ET.fromstring(image_bytes(stroke, "svg"))
    assert svg.tag.endswith("svg") and len([e for e in svg if e.tag.endswith("path")]) == 1
