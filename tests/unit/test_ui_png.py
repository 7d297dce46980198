"""The screen PNG encoder: valid PNGs, identical pixels, and the same bytes with or without reused bands."""

from __future__ import annotations

import io
import zlib

import numpy as np
from PIL import Image, ImageDraw

from mgfarm.sim.ui.png import PngEncoder, adler32_combine, encode_png


def screen(label: str) -> Image.Image:
    image = Image.new("RGB", (360, 800), (248, 249, 252))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((20, 40, 340, 120), radius=30, fill=(11, 87, 208))
    draw.text((40, 300), label, fill=(27, 28, 31))
    rng = np.random.default_rng(1)
    image.paste(Image.fromarray(rng.integers(0, 255, (50, 360, 3), dtype=np.uint8)), (0, 700))
    return image


def test_decodes_to_the_same_pixels() -> None:
    image = screen("hello")
    decoded = Image.open(io.BytesIO(encode_png(image)))
    assert decoded.mode == "RGB" and decoded.size == image.size
    assert np.array_equal(np.asarray(decoded), np.asarray(image))


def test_reused_bands_give_the_same_bytes_as_a_fresh_encode() -> None:
    enc = PngEncoder()
    enc.encode(screen("before"))
    after = screen("after")
    incremental = enc.encode(after)
    assert incremental == encode_png(after)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(incremental))), np.asarray(after))


def test_adler32_combine_matches_zlib() -> None:
    a, b = b"screen rows " * 100, bytes(range(256)) * 50
    assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)
