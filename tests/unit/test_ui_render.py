"""Rendering: a fill in the background colour is skipped only while nothing else has been drawn."""

from __future__ import annotations

from mgfarm.sim.ui.render import render
from mgfarm.sim.ui.theme import LIGHT, Metrics
from mgfarm.sim.ui.views import Column, LayoutCtx, Stack, View, compute_clip


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
