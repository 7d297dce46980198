"""Rendering: a fill in the background colour is skipped only while nothing else has been drawn, a
screen its first view fills keeps nothing of the frame drawn before, and a picture an app draws
itself shows as the same picture saved to a file would."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw

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
