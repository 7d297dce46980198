"""Launcher icons: each app's own artwork (shape, colours, glyph), drawn once per size and cached.

A Pixel launcher masks adaptive icons to a circle, so most icons here are a coloured disc with the
app's emblem on it, like the real app's icon (Contacts' person on blue, Chrome's ring, VLC's cone);
an agent tells apps apart by them as on a phone. Each is drawn on a 24-unit grid, oversampled and
reduced for smooth edges, then kept: a frame pastes a cached image instead of drawing shapes again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw

from mgfarm.sim.ui.fonts import font
from mgfarm.sim.ui.icons import ICONS, Pen
from mgfarm.sim.ui.theme import hex_color

OVERSAMPLE = 3
WHITE = "#FFFFFF"
RIM = "#DADCE0"  # the outline that keeps a white icon visible on a white app drawer


def _ink(p: Pen, color: str) -> Pen:
    """The same pen with another colour (the pen draws everything in its current colour)."""
    p.c = hex_color(color)
    return p


def _disc(p: Pen, color: str) -> None:
    _ink(p, color).circle(12, 12, 12)
    if color.upper() in (WHITE, "#F8F9FA"):
        _ink(p, RIM).circle(12, 12, 11.8, fill=False, width=0.35)


def _glyph(p: Pen, name: str, cx: float, cy: float, size: float, color: str) -> None:
    """A toolkit glyph (icons.ICONS) `size` units wide centred on (cx, cy)."""
    (x0, y0), (x1, y1) = p.p(cx - size / 2, cy - size / 2), p.p(cx + size / 2, cy + size / 2)
    ICONS[name](Pen(p.d, (round(x0), round(y0), round(x1), round(y1)), hex_color(color)))


def _text(p: Pen, s: str, cx: float, cy: float, size: float, color: str) -> None:
    p.d.text(p.p(cx, cy), s, font=font(max(1, round(size * p.s)), True), fill=hex_color(color), anchor="mm")


def _contacts(p: Pen, _: str) -> None:
    _disc(p, "#1A73E8")
    _glyph(p, "person", 12, 12.6, 14, WHITE)


def _phone(p: Pen, _: str) -> None:
    _disc(p, "#34A853")
    _glyph(p, "phone", 12, 12, 13, WHITE)


def _messages(p: Pen, _: str) -> None:
    _disc(p, "#D3E3FD")
    _ink(p, "#0B57D0").rect(5.5, 6, 18.5, 15.5, r=3.5)
    p.poly([(8, 14), (7.5, 19), (12.5, 15)])
    _ink(p, WHITE)
    for x in (8.8, 12, 15.2):
        p.circle(x, 10.8, 1.1)


def _chrome(p: Pen, _: str) -> None:
    box = (p.p(0, 0), p.p(24, 24))
    for color, start in (("#EA4335", 210), ("#FBBC04", 330), ("#34A853", 90)):
        p.d.pieslice(box, start, start + 120, fill=hex_color(color))
    _ink(p, WHITE).circle(12, 12, 5.6)
    _ink(p, "#4285F4").circle(12, 12, 4.3)


def _clock(p: Pen, _: str) -> None:
    _disc(p, "#0B57D0")
    _ink(p, WHITE).circle(12, 12, 8.3)
    _ink(p, "#C2D7FA")
    for i in range(12):
        a = math.radians(i * 30)
        p.circle(12 + 6.9 * math.cos(a), 12 + 6.9 * math.sin(a), 0.45 if i % 3 else 0.75)
    _ink(p, "#0B57D0").line([(12, 12), (8.6, 9.8)], 1.5)  # ten past ten
    p.line([(12, 12), (16.6, 9.2)], 1.1)
    _ink(p, "#EA4335").circle(12, 12, 1)


def _calendar(p: Pen, day: str) -> None:
    _disc(p, WHITE)
    _ink(p, "#1A73E8").rect(5.5, 5.5, 18.5, 18.5, r=1.8, fill=False, width=1.4)
    p.rect(5.5, 5.5, 18.5, 8.6, r=1.5)
    _ink(p, "#34A853").poly([(5.5, 15.5), (8.5, 18.5), (5.5, 18.5)])
    _ink(p, "#FBBC04").poly([(18.5, 15.5), (15.5, 18.5), (18.5, 18.5)])
    _text(p, day or "31", 12, 13.4, 7, "#1A73E8")


def _camera(p: Pen, _: str) -> None:
    _disc(p, "#3C4043")
    _glyph(p, "camera", 12, 12, 15, WHITE)
    _ink(p, "#3C4043").circle(12, 13.1, 3.4)
    _ink(p, "#8AB4F8").circle(12, 13.1, 2.3)


def _files(p: Pen, _: str) -> None:
    _disc(p, WHITE)
    _ink(p, "#1A73E8").poly([(5, 6.5), (10, 6.5), (11.5, 8), (19, 8), (19, 17.5), (5, 17.5)])
    _ink(p, "#8AB4F8").rect(5, 10, 19, 17.5, r=0.8)


def _settings(p: Pen, _: str) -> None:
    _disc(p, "#5F6368")
    _glyph(p, "settings", 12, 12, 15, WHITE)


def _markor(p: Pen, _: str) -> None:
    _disc(p, "#37474F")
    _ink(p, WHITE).rect(6.5, 5, 15.5, 19, r=1)
    _ink(p, "#90A4AE")
    for y in (8.5, 11, 13.5, 16):
        p.line([(8.5, y), (13.5, y)], 0.9)
    _ink(p, "#FFB300").poly([(12.6, 16.6), (17.8, 9.2), (19.6, 10.6), (14.4, 18), (12.3, 18.8)])


def _joplin(p: Pen, _: str) -> None:
    _disc(p, "#1071D3")
    _text(p, "J", 11.6, 12.2, 15, WHITE)


def _tasks(p: Pen, _: str) -> None:
    _disc(p, "#1E88E5")
    _ink(p, WHITE).circle(12, 12, 7.2, fill=False, width=1.6)
    _glyph(p, "check", 12.2, 12.2, 11, WHITE)


def _broccoli(p: Pen, _: str) -> None:
    _disc(p, "#E8F5E9")
    _ink(p, "#8BC34A").poly([(10.4, 12), (13.6, 12), (14.2, 19.5), (9.8, 19.5)])
    _ink(p, "#2E7D32")
    for x, y, r in ((8, 10.5, 3.2), (16, 10.5, 3.2), (12, 7.6, 3.6), (12, 11.5, 3)):
        p.circle(x, y, r)


def _retromusic(p: Pen, _: str) -> None:
    _disc(p, "#E91E63")
    _ink(p, "#212121").circle(12, 12, 7.6)
    _ink(p, "#616161").circle(12, 12, 5.6, fill=False, width=0.4)
    p.circle(12, 12, 4, fill=False, width=0.4)
    _ink(p, "#FFCDD2").circle(12, 12, 2.4)
    _ink(p, "#212121").circle(12, 12, 0.6)


def _vlc(p: Pen, _: str) -> None:
    _disc(p, WHITE)
    top, bottom, left, right = 4.5, 17.5, (10.8, 6.6), (13.2, 17.4)

    def edge(y: float) -> tuple[float, float]:
        t = (y - top) / (bottom - top)
        return left[0] + (left[1] - left[0]) * t, right[0] + (right[1] - right[0]) * t

    _ink(p, "#FF8800").poly([(10.8, top), (13.2, top), (17.4, bottom), (6.6, bottom)])
    _ink(p, WHITE)
    for y0, y1 in ((8.3, 10), (12.6, 14.3)):
        (a0, b0), (a1, b1) = edge(y0), edge(y1)
        p.poly([(a0, y0), (b0, y0), (b1, y1), (a1, y1)])
    _ink(p, "#E65100").rect(5, 17.3, 19, 19.6, r=0.8)


def _osmand(p: Pen, _: str) -> None:
    _disc(p, "#FF8800")
    _ink(p, WHITE).circle(12, 10, 5.4)
    p.poly([(7.4, 12.6), (16.6, 12.6), (12, 19.5)])
    _ink(p, "#1565C0").circle(12, 10, 2.4)


def _opentracks(p: Pen, _: str) -> None:
    _disc(p, "#263238")
    _ink(p, WHITE).line([(6.5, 17), (9, 12.5), (13, 14.5), (15, 9.5), (17.5, 7)], 1.5)
    _ink(p, "#66BB6A").circle(6.5, 17, 1.6)
    _ink(p, "#EF5350").circle(17.5, 7, 1.6)


def _expense(p: Pen, _: str) -> None:
    _disc(p, "#00897B")
    _ink(p, WHITE).rect(5, 7.5, 19, 17.5, r=1.8)
    _ink(p, "#00695C").rect(13.5, 10.5, 19.5, 14.5, r=1)
    _ink(p, WHITE).circle(15.6, 12.5, 0.9)
    _ink(p, "#B2DFDB").line([(6.5, 9.3), (12, 9.3)], 0.8)


def _clipper(p: Pen, _: str) -> None:
    _disc(p, "#6D4C41")
    _ink(p, WHITE).rect(7, 6, 17, 19, r=1.4)
    _ink(p, "#3E2723").rect(9.5, 4.6, 14.5, 7.6, r=0.8)
    _ink(p, "#A1887F")
    for y in (10.5, 13, 15.5):
        p.line([(9, y), (15, y)], 0.9)


def _simple_gallery(p: Pen, _: str) -> None:
    _disc(p, "#F57C00")
    _ink(p, WHITE).rect(5.5, 6.5, 18.5, 17.5, r=1.5)
    _ink(p, "#F57C00").poly([(7, 16), (10.5, 11), (13, 14), (14.8, 12.2), (17, 16)])
    _ink(p, "#FFB74D").circle(15, 9.3, 1.3)


def _simple_calendar(p: Pen, _: str) -> None:
    _disc(p, "#EF6C00")
    _ink(p, WHITE).rect(6, 7, 18, 18, r=1.5)
    p.rect(8.2, 5.2, 9.4, 8.5, r=0.5)
    p.rect(14.6, 5.2, 15.8, 8.5, r=0.5)
    _ink(p, "#EF6C00")
    for row in range(3):
        for col in range(4):
            p.rect(7.4 + col * 2.5, 10.2 + row * 2.5, 8.9 + col * 2.5, 11.7 + row * 2.5)


def _smsmessenger(p: Pen, _: str) -> None:
    _disc(p, "#FB8C00")
    _ink(p, WHITE).rect(5.5, 6, 18.5, 15.5, r=1.5)
    p.poly([(14, 15), (17.5, 19), (17.5, 15)])
    _ink(p, "#FB8C00")
    for y, x1 in ((9, 15.5), (12, 13)):
        p.line([(8.5, y), (x1, y)], 1.1)


def _simple_draw(p: Pen, _: str) -> None:
    _disc(p, "#FFA000")
    _ink(p, WHITE).poly([(15.5, 5.2), (18.8, 8.5), (11.6, 15.7), (8.3, 12.4)])
    _ink(p, "#5D4037").poly([(8.1, 12.8), (11.2, 15.9), (8.4, 18.4), (5, 19), (5.6, 15.6)])


def _audio_recorder(p: Pen, _: str) -> None:
    _disc(p, "#D32F2F")
    _glyph(p, "mic", 12, 12, 14, WHITE)


# By the app's role where its package follows the device profile, else by package.
ART: dict[str, Callable[[Pen, str], None]] = {
    "contacts": _contacts,
    "dialer": _phone,
    "clock": _clock,
    "files": _files,
    "com.android.messaging": _messages,
    "com.android.chrome": _chrome,
    "com.android.calendar": _calendar,
    "com.android.camera2": _camera,
    "com.android.settings": _settings,
    "net.gsantner.markor": _markor,
    "net.cozic.joplin": _joplin,
    "org.tasks": _tasks,
    "com.flauschcode.broccoli": _broccoli,
    "code.name.monkey.retromusic": _retromusic,
    "org.videolan.vlc": _vlc,
    "net.osmand": _osmand,
    "de.dennisguse.opentracks": _opentracks,
    "com.arduia.expense": _expense,
    "ca.zgrs.clipper": _clipper,
    "com.simplemobiletools.gallery.pro": _simple_gallery,
    "com.simplemobiletools.calendar.pro": _simple_calendar,
    "com.simplemobiletools.smsmessenger": _smsmessenger,
    "com.simplemobiletools.draw.pro": _simple_draw,
    "com.dimowner.audiorecorder": _audio_recorder,
}


@lru_cache(maxsize=256)  # a few dozen apps at one or two sizes; shared by every device in the process
def app_art(name: str, size: int, text: str = "") -> Image.Image | None:
    """Icon `name` as an RGBA image `size` pixels square (`text`: the day on Calendar), None if unknown."""
    fn = ART.get(name)
    if fn is None or size <= 0:
        return None
    big = Image.new("RGBA", (size * OVERSAMPLE, size * OVERSAMPLE), (0, 0, 0, 0))
    fn(Pen(ImageDraw.Draw(big), (0, 0, big.width, big.height), (255, 255, 255)), text)
    return big.reduce(OVERSAMPLE)
