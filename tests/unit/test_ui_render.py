"""Rendering: a fill in the background colour is skipped only while nothing else has been drawn, a
screen its first view fills keeps nothing of the frame drawn before, and a picture an app draws
itself shows as the same picture saved to a file would, and a picture file costs a frame (and its
worker's memory) what its pixels do, not what its bytes do."""

from __future__ import annotations

import io
import os
import random
import time
import tracemalloc
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from mgfarm.sim.ui import render as render_module
from mgfarm.sim.ui.kept import SETTLED_NS
from mgfarm.sim.ui.render import Canvas, render
from mgfarm.sim.ui.theme import LIGHT, Metrics
from mgfarm.sim.ui.views import Column, LayoutCtx, Picture, Stack, View, compute_clip


def laid_out(root: View, metrics: Metrics) -> View:
    root.layout(LayoutCtx(metrics), 0, 0, metrics.width, metrics.height)
    compute_clip(root, (0, 0, metrics.width, metrics.height))
    return root


def test_background_fills_show_over_what_was_drawn_before() -> None:
    m = Metrics(200, 400, 160)
    # The screen in the background colour, a primary panel, then a background-coloured band over it.
    root = Stack(
        bg="surface",
        children=[
            Stack(bg="primary"),
            Column(children=[Stack(bg="surface", height=100)]),
        ],
    )
    image = render([laid_out(root, m)], LayoutCtx(m), LIGHT)
    assert image.getpixel((100, 50)) == LIGHT.surface  # drawn: the panel is under it
    assert image.getpixel((100, 300)) == LIGHT.primary


def test_drawn_picture_shows_as_its_file_would(tmp_path: Path) -> None:
    m = Metrics(200, 400, 160)
    art = Image.new("RGB", (180, 300), (242, 239, 233))
    ImageDraw.Draw(art).ellipse((20, 40, 150, 200), fill=(230, 81, 0), outline=(255, 255, 255), width=3)
    art.save(tmp_path / "art.png")
    drawn_calls: list[int] = []

    def pixels() -> Image.Image:
        drawn_calls.append(1)
        return art

    def screen(picture: Picture) -> bytes:
        return render([laid_out(Stack(children=[picture]), m)], LayoutCtx(m), LIGHT).tobytes()

    from_file = screen(Picture(source=str(tmp_path / "art.png"), stamp="1", crop=True))
    drawn = Picture(pixels=pixels, stamp="test-drawn-art", crop=True)
    assert screen(drawn) == from_file
    assert screen(Picture(pixels=pixels, stamp="test-drawn-art", crop=True)) == from_file
    assert len(drawn_calls) == 1  # the scaled copy is kept for its stamp


def test_a_screen_filled_by_its_first_view_keeps_nothing_of_the_frame_before() -> None:
    m = Metrics(200, 400, 160)
    old = render(
        [laid_out(Stack(bg="primary", children=[Stack(bg="#123456", height=50)]), m)], LayoutCtx(m), LIGHT
    )
    for first in ("gradient:#3A4A7A,#C06C84", "#000000"):
        root = Stack(bg=first, children=[Stack(bg="surface", align="center", width=80, height=80)])
        fresh = render([laid_out(root, m)], LayoutCtx(m), LIGHT)
        assert render([root], LayoutCtx(m), LIGHT, into=old.copy()).tobytes() == fresh.tobytes()


def test_rectangles_fill_the_pixels_pillow_does() -> None:
    rng = random.Random(7)
    for _ in range(400):
        size = (rng.randint(20, 200), rng.randint(20, 200))
        x0, y0 = rng.randint(-30, size[0]), rng.randint(-30, size[1])
        box = (x0, y0, x0 + rng.randint(0, 160), y0 + rng.randint(0, 160))
        radius = rng.choice([0, 1, 2.5, 4, 12, 16, 28, 999, rng.uniform(0, 80)])
        fill = rng.choice([None, (200, 30, 40)])
        outline = rng.choice([(10, 120, 250), (200, 30, 40)] + ([None] if fill else []))
        width = rng.randint(1, 6)
        expected = Image.new("RGB", size, (9, 9, 9))
        if radius > 0:
            ImageDraw.Draw(expected).rounded_rectangle(box, radius, fill, outline, width)
        else:
            ImageDraw.Draw(expected).rectangle(box, fill, outline, width)
        cv = Canvas(Image.new("RGB", size, (9, 9, 9)), 0, 0, LIGHT, Metrics(size[0], size[1], 160))
        cv.rect((box[0], box[1], box[2] + 1, box[3] + 1), fill, radius, outline, width)
        assert cv.image.tobytes() == expected.tobytes(), (size, box, radius, fill, outline, width)


def picture_screen(path: Path, m: Metrics) -> Image.Image:
    return render([laid_out(Stack(children=[Picture(source=str(path), stamp="s")]), m)], LayoutCtx(m), LIGHT)


def jpeg(color: tuple[int, int, int], padding: int = 0) -> bytes:
    """A 64 x 64 JPEG of one colour, with `padding` bytes after its end (which readers ignore)."""
    out = io.BytesIO()
    Image.new("RGB", (64, 64), color).save(out, "JPEG")
    return out.getvalue() + os.urandom(padding)


def test_a_picture_file_is_read_once_for_each_version_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grid of large files was read whole on every frame (~0.5 s a frame for 20 MB thumbnails)."""
    m = Metrics(200, 400, 160)
    reads: list[int] = []
    real = render_module.file_sum

    def summed(data: bytes) -> bytes:
        reads.append(len(data))
        return real(data)

    monkeypatch.setattr(render_module, "file_sum", summed)
    art = tmp_path / "IMG_1.jpg"
    art.write_bytes(jpeg((200, 30, 30), 100_000))
    time.sleep(SETTLED_NS / 1e9)  # a file just written is read again each time (kept.settled)
    for _ in range(3):
        assert picture_screen(art, m).getpixel((100, 200))[0] > 150
    assert len(reads) == 2  # read to sum it, then to decode it
    art.write_bytes(jpeg((30, 30, 200), 100_000))  # the same size, other pixels
    time.sleep(SETTLED_NS / 1e9)
    assert picture_screen(art, m).getpixel((100, 200))[2] > 150
    assert len(reads) == 4


def test_pictures_are_kept_by_their_pixels_not_their_files_bytes(tmp_path: Path) -> None:
    """Scaled pictures were kept with their files' bytes as keys: a device's gallery of 70 files of
    20 MB held ~1.4 GB in its worker."""
    m = Metrics(200, 400, 160)
    tracemalloc.start()
    try:
        for i in range(40):
            art = tmp_path / f"IMG_{i}.jpg"
            art.write_bytes(jpeg((i * 6, 30, 30), 2 << 20))
            picture_screen(art, m)
            art.unlink()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 20 << 20  # 40 files of 2 MB were shown: none of them is still held


def test_an_image_of_too_many_pixels_draws_nothing(tmp_path: Path) -> None:
    """A PNG of one colour is a small file whatever its size: Pillow decoded 36 million pixels (~100
    MB, ~0.5 s) for a thumbnail; a large JPEG still draws, decoded at a reduced scale."""
    m = Metrics(200, 400, 160)
    big = Image.new("RGB", (6000, 6000), (200, 30, 30))
    png, jpg = tmp_path / "big.png", tmp_path / "big.jpg"
    big.save(png, "PNG")
    big.save(jpg, "JPEG")
    assert picture_screen(png, m).getpixel((100, 200)) == LIGHT.surface
    assert picture_screen(jpg, m).getpixel((100, 200))[0] > 150
