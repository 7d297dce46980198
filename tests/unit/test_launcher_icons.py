"""Launcher icons: every app in the drawer has its own artwork, so an agent can tell apps apart by it."""

from __future__ import annotations

import io
from itertools import combinations
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw

from tests.unit.sim_screen import BOUNDS, Screen, boot_device, nodes

LAUNCHER = "com.android.launcher3"


def drawer_icons(s: Screen) -> dict[str, Image.Image]:
    """Each app's icon disc as the app drawer shows it, by label (the disc is 56 dp, 4 dp below the top)."""
    s.wm.swipe(540, 2000, 540, 800, 200)
    shot = Image.open(io.BytesIO(s.wm.screencap_png())).convert("RGB")
    m = s.wm.metrics
    icons = {}
    for n in nodes(s.xml()):
        if n.attrs["resource-id"] != f"{LAUNCHER}:id/icon":
            continue
        match = BOUNDS.fullmatch(n.attrs["bounds"])
        assert match
        x0, y0, x1, _ = (int(v) for v in match.groups())
        left, top = (x0 + x1) // 2 - m.px(28), y0 + m.px(4)
        icons[n.attrs["content-desc"]] = shot.crop((left, top, left + m.px(56), top + m.px(56)))
    return icons


def share(mask: Image.Image) -> float:
    return mask.histogram()[255] / (mask.width * mask.height)


def visible(diff: Image.Image) -> Image.Image:
    """Pixels of a difference image that differ by more than 40 in some channel, as a 0/255 mask."""
    return diff.convert("L").point(lambda v: 255 if v > 40 else 0)


def emblem(icon: Image.Image) -> Image.Image:
    """What is drawn on the disc whatever its colours: the pixels unlike the disc's own colour."""
    background = max(icon.getcolors(icon.width * icon.height) or [(0, (0, 0, 0))])[1]
    mark = visible(ImageChops.difference(icon, Image.new("RGB", icon.size, background)))
    inner = Image.new("L", icon.size, 0)
    w = icon.width
    ImageDraw.Draw(inner).ellipse((w * 0.12, w * 0.12, w * 0.88, w * 0.88), fill=255)  # inside the rim
    return ImageChops.multiply(mark, inner)


def test_every_launcher_app_has_an_icon_of_its_own(tmp_path: Path) -> None:
    s = Screen(boot_device(tmp_path))
    labels = {a.label for a in s.device.services.apps.values() if a.in_launcher}
    icons = drawer_icons(s)
    assert set(icons) == labels and len(labels) >= 20
    pairs = list(combinations(sorted(icons), 2))
    same_pixels = [p for p in pairs if share(visible(ImageChops.difference(icons[p[0]], icons[p[1]]))) < 0.05]
    # Two apps with one glyph in two colours look alike to an agent reading shapes; emblems differ too.
    marks = {label: emblem(icon) for label, icon in icons.items()}
    same_emblem = [p for p in pairs if share(ImageChops.difference(marks[p[0]], marks[p[1]])) < 0.05]
    assert same_pixels == [] and same_emblem == []


def test_icons_are_drawn_once_per_size_and_unknown_apps_have_none() -> None:
    from mgfarm.sim.ui.appicons import app_art

    assert app_art("com.example.unknown", 147) is None  # the launcher then draws the app's glyph on a disc
    art = app_art("org.videolan.vlc", 147)
    assert art is not None and art.size == (147, 147)
    assert app_art("org.videolan.vlc", 147) is art
