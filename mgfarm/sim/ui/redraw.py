"""Redrawing only the bands of the screen that changed since the last frame this thread rendered.

A step usually changes a few views (a digit in the dial pad's number, a toggle, a field's text) and
leaves the rest of the screen as it was, so drawing every view again (~3 ms at 1080x2400) mostly
repeats the last frame. Each view of the new frame is compared with the view at the same place in
the last frame's trees (its type and every attribute, bounds and clip included, as the frame
signature names them); the rows the changed views can reach become full-width bands, and only the
views that reach a band are drawn again, onto a scratch image whose bands were cleared, and the
bands are pasted into the last frame. The result is the image `render` draws, pixel for pixel
(tests/unit/test_ui_redraw.py compares them): outside the bands the last frame already holds those
pixels, and inside them every view that can touch them is drawn, in order, as a full render does.

Any other change (another number of views, another palette, size or background) draws the whole
screen, onto the last frame's image (its pages are mapped already). The last frame and the scratch
image are kept per thread (two full-size images, ~20 MB at 1080x2400): the image `render_frame`
returns is overwritten by the thread's next call, so a caller encodes or copies it before it renders
again. A caller that names its frames (`tag`, the frame digest) learns from `drawn_since` which rows
changed since the frame before, so the shared frame file gets only those rows (`mgfarm-frame`).
`MGFARM_SIM_REDRAW=0` always draws the whole screen.

A worker draws all its devices on one thread, so the thread's last frame is mostly another
device's. Each device therefore keeps what decided its own last frame (`Seen`: no image, a few
KB), and `draw_over` draws its new frame's bands against that one, onto the thread's scratch
image alone: only those rows of the scratch are the new frame's, which is all a frame file that
holds the device's last frame needs. The thread's image stays the frame it was, untouched.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass, field

from PIL import Image

from mgfarm.sim.ui.render import Canvas, draw_view, render
from mgfarm.sim.ui.theme import Palette, hex_color
from mgfarm.sim.ui.views import EditText, LayoutCtx, Text, View

ENABLED = os.environ.get("MGFARM_SIM_REDRAW", "1") != "0"
# Bands over this share of the screen's height draw the whole screen (cheaper than many views' checks).
MAX_SHARE = 0.5
# How far past its bounds a view may draw (a field's floating label, antialiasing, a dial's hand).
REACH_DP = 32
TEXT_REACH_DP = 8  # a plain text's glyphs past its lines' boxes

Band = tuple[int, int]  # rows y0 (included) to y1 (excluded)


@dataclass
class Last:
    """The frame a thread rendered last: its image, what decided it, and each view's rows."""

    image: Image.Image | None = None
    scratch: Image.Image | None = None
    head: tuple[object, ...] = ()
    keys: list[str] = field(default_factory=list)
    rows: list[Band] = field(default_factory=list)
    tag: bytes = b""  # what the caller named the frame `image` holds (b"": unnamed)
    since: bytes = b""  # the named frame `image` held before `drawn` was drawn over it (b"": none)
    drawn: list[Band] = field(default_factory=list)  # the only rows that differ from frame `since`


@dataclass
class Seen:
    """What decided one device's last frame (no image): enough to tell which bands of its next
    frame differ from it (`draw_over`)."""

    head: tuple[object, ...] = ()
    keys: list[str] = field(default_factory=list)
    rows: list[Band] = field(default_factory=list)
    tag: bytes = b""  # the frame's name (b"": none known)


_local = threading.local()


def _last() -> Last:
    last: Last | None = getattr(_local, "last", None)
    if last is None:
        last = _local.last = Last()
    return last


def forget() -> None:
    """Drop this thread's kept images (an idle worker gives their memory back)."""
    _local.last = Last()


def drawn_since(tag: bytes) -> list[Band] | None:
    """The only rows in which this thread's last image differs from the frame named `tag`, when
    that frame is the one it was drawn over; else None (any row may differ)."""
    last = _last()
    if not tag or last.since != tag:
        return None
    return list(last.drawn)


def last_tag() -> bytes:
    """The name of the frame this thread's image holds (b"": none)."""
    return _last().tag


def last_image() -> Image.Image | None:
    """The image this thread's last `render_frame` returned, while it keeps it."""
    return _last().image


def view_keys(roots: list[View]) -> list[str]:
    """What decides each view's own pixels and node, in drawing order: its type and every attribute
    but its children, handlers only as set or not (the frame signature is made of these)."""
    return [_view_key(v) for v in flatten(roots)]


_DEFAULTS: dict[type, dict[str, object]] = {}  # each view class's fields' default values


def _view_key(v: View) -> str:
    """Its type and every attribute that is not its field's default object, as `name=repr` (a
    handler as its name): an attribute left out holds that very object, so equal keys still mean
    equal attributes. Most attributes are defaults (None, False, ""): leaving them out makes the
    keys of a screen ~0.2 ms cheaper."""
    cls = type(v)
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        fields = dataclasses.fields(cls)
        defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
        _DEFAULTS[cls] = defaults
    parts = [cls.__name__]
    for k, val in v.__dict__.items():
        if defaults.get(k, defaults) is val or k == "children":
            continue
        # A handler by its name alone: that it is set (clickable) shows, which one it is does not.
        parts.append(k if callable(val) else f"{k}={val!r}")
    return "\x1f".join(parts)


def reach(v: View, ctx: LayoutCtx) -> Band:
    """The rows a view's own drawing may touch: its bounds and a margin. A plain text draws only
    its lines, centred in its box: past the box by antialiasing, or by half of what its lines
    (up to `lines` of them) overflow a box too short for them."""
    y0, y1 = v.bounds[1], v.bounds[3]
    if type(v) is Text:
        margin = ctx.px(TEXT_REACH_DP) + max(0, v.line_height(ctx) * max(1, v.lines) - (y1 - y0)) // 2
    else:
        margin = ctx.px(REACH_DP)
    return (y0 - margin, y1 + margin)


def flatten(roots: list[View]) -> list[View]:
    """Every view in drawing order (`draw_view`'s order, `View.walk`'s): a loop over a stack, not
    nested generators (one per view: ~0.1 ms a frame, twice a step)."""
    out: list[View] = []
    stack = roots[::-1]
    while stack:
        v = stack.pop()
        out.append(v)
        if v.children:
            stack.extend(v.children[::-1])
    return out


def merge(bands: list[Band], height: int) -> list[Band]:
    """Bands clipped to the screen, overlapping or touching ones joined, top to bottom."""
    out: list[Band] = []
    for y0, y1 in sorted((max(0, a), min(height, b)) for a, b in bands):
        if y1 <= y0:
            continue
        if out and y0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], y1))
        else:
            out.append((y0, y1))
    return out


def overlaps(band: Band, bands: list[Band]) -> bool:
    return any(band[0] < b1 and b0 < band[1] for b0, b1 in bands)


def _decided(
    roots: list[View], ctx: LayoutCtx, palette: Palette, keys: list[str] | None, background: str
) -> tuple[list[View], list[str], list[Band], tuple[object, ...]]:
    """What decides a frame's pixels: its views in drawing order, their keys (`keys` when known)
    and rows, and the head (size, density and colours: any change draws the whole screen)."""
    views = flatten(roots)
    keys = [_view_key(v) for v in views] if keys is None else keys
    return views, keys, [reach(v, ctx) for v in views], (ctx.metrics, palette, background)


def render_frame(
    roots: list[View],
    ctx: LayoutCtx,
    palette: Palette,
    keys: list[str] | None = None,
    background: str = "surface",
    tag: bytes = b"",
    seen: Seen | None = None,
) -> Image.Image:
    """The screen `render` draws for these laid-out trees (`keys`: their `view_keys`, when known;
    `tag`: a name for the frame, equal names for equal pixels, see `drawn_since`; `seen`: the
    device's record of its last frame, now this one); the image is this thread's until its next
    call."""
    m = ctx.metrics
    views, keys, rows, head = _decided(roots, ctx, palette, keys, background)
    last = _last()
    if seen is not None and ENABLED:
        seen.head, seen.keys, seen.rows, seen.tag = head, keys, rows, tag
    bands = None
    if ENABLED and last.image is not None:
        bands = _damage(last.head, last.keys, last.rows, head, views, keys, rows, m.height)
    if bands is None:
        image = render(roots, ctx, palette, background, into=last.image)
        scratch = last.scratch if last.scratch is not None and last.scratch.size == image.size else None
        _local.last = Last(image if ENABLED else None, scratch, head, keys, rows, tag if ENABLED else b"")
        return image
    assert last.image is not None
    if bands:
        if last.scratch is None or last.scratch.size != last.image.size:
            last.scratch = Image.new("RGB", last.image.size)
        _draw_bands(last.image, last.scratch, bands, roots, ctx, palette, background)
    if bands or tag != last.tag:  # else the same frame again: what it was drawn over still holds
        last.since, last.drawn, last.tag = last.tag, bands, tag
    last.keys, last.rows = keys, rows
    return last.image


def draw_over(
    seen: Seen,
    over: bytes,
    roots: list[View],
    ctx: LayoutCtx,
    palette: Palette,
    keys: list[str] | None = None,
    background: str = "surface",
    tag: bytes = b"",
    align: int = 1,
) -> tuple[Image.Image, list[Band]] | None:
    """This frame's bands that differ from the device's last frame `seen`, drawn onto this
    thread's scratch image (the image `render` draws, in those rows only; this thread's until its
    next call), when that frame is `over`; None when it is not, or the whole screen must be drawn.
    Each band starts and ends on a multiple of `align` rows (or the screen's end), so a copy made
    `align` times smaller from those rows alone is whole. `seen` is this frame's from now on."""
    if not ENABLED or not over or seen.tag != over:
        return None
    m = ctx.metrics
    views, keys, rows, head = _decided(roots, ctx, palette, keys, background)
    bands = _damage(seen.head, seen.keys, seen.rows, head, views, keys, rows, m.height)
    if bands is None:
        return None
    if align > 1:
        bands = merge([(y0 // align * align, -(-y1 // align) * align) for y0, y1 in bands], m.height)
    last = _last()
    if last.scratch is None or last.scratch.size != (m.width, m.height):
        last.scratch = Image.new("RGB", (m.width, m.height))
    if bands:
        _draw_scratch(last.scratch, bands, roots, ctx, palette, background)
    seen.head, seen.keys, seen.rows, seen.tag = head, keys, rows, tag
    return last.scratch, bands


def note(
    seen: Seen,
    roots: list[View],
    ctx: LayoutCtx,
    palette: Palette,
    keys: list[str] | None = None,
    background: str = "surface",
    tag: bytes = b"",
) -> None:
    """Record in `seen` what decides this frame, whose pixels came from elsewhere (a copy of an
    equal frame), so that the device's next frame can be drawn over it."""
    if ENABLED:
        _, seen.keys, seen.rows, seen.head = _decided(roots, ctx, palette, keys, background)
        seen.tag = tag


def _damage(
    head0: tuple[object, ...],
    keys0: list[str],
    rows0: list[Band],
    head: tuple[object, ...],
    views: list[View],
    keys: list[str],
    rows: list[Band],
    height: int,
) -> list[Band] | None:
    """The bands to draw again over a frame that `head0`, `keys0` and `rows0` decided, or None
    when the whole screen must be drawn."""
    if head0 != head or len(keys0) != len(keys):
        return None
    changed = [i for i, (a, b) in enumerate(zip(keys0, keys, strict=True)) if a != b]
    bands = merge([rows0[i] for i in changed] + [rows[i] for i in changed], height)
    # A field's floating label takes its patch's colour from the pixel it sits on: a field whose
    # reach meets a band is drawn again whole, with its rows added, until no band grows.
    fields = [i for i, v in enumerate(views) if isinstance(v, EditText)]
    grew = True
    while grew and fields:
        grew = False
        for i in fields:
            if overlaps(rows[i], bands) and merge([*bands, rows[i]], height) != bands:
                bands = merge([*bands, rows[i]], height)
                grew = True
    if sum(y1 - y0 for y0, y1 in bands) > MAX_SHARE * height:
        return None
    return bands


def _draw_bands(
    image: Image.Image,
    scratch: Image.Image,
    bands: list[Band],
    roots: list[View],
    ctx: LayoutCtx,
    palette: Palette,
    background: str,
) -> None:
    """Draw every view that reaches a band onto the scratch image (its bands cleared to the
    background first), then copy the bands into `image`."""
    _draw_scratch(scratch, bands, roots, ctx, palette, background)
    width = image.width
    for y0, y1 in bands:
        box = (0, y0, width, y1)
        image.paste(scratch.crop(box), box)


def _draw_scratch(
    scratch: Image.Image,
    bands: list[Band],
    roots: list[View],
    ctx: LayoutCtx,
    palette: Palette,
    background: str,
) -> None:
    """Draw every view that reaches a band onto the scratch image, its bands cleared to the
    background first: inside the bands it then holds what `render` draws."""
    fill = hex_color(background) if background.startswith("#") else getattr(palette, background)
    width = scratch.width
    for y0, y1 in bands:
        scratch.paste(fill, (0, y0, width, y1))
    cv = Canvas(scratch, 0, 0, palette, ctx.metrics)
    cv.untouched = fill  # true inside the bands, the only pixels kept
    cv.skip = lambda v: not overlaps(reach(v, ctx), bands)
    cv.rows = (bands[0][0], bands[-1][1])
    for root in roots:
        draw_view(cv, root, ctx)
