"""Pillow rendering of a laid-out view tree, in the look of stock Android 14 (Material 3)."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable

from PIL import Image, ImageDraw

from mgfarm.sim.ui.appicons import app_art
from mgfarm.sim.ui.fonts import ellipsize, font, shapeable, tail, wrap
from mgfarm.sim.ui.icons import draw_icon
from mgfarm.sim.ui.kept import Kept, parsed_file, read_bounded
from mgfarm.sim.ui.pickers import Dial
from mgfarm.sim.ui.theme import Color, Metrics, Palette, blend, hex_color
from mgfarm.sim.ui.views import (
    EMPTY,
    AppIcon,
    Avatar,
    Button,
    Column,
    DrawingPad,
    EditText,
    Icon,
    LayoutCtx,
    Picture,
    Rect,
    Row,
    Scrim,
    Scroll,
    Slider,
    Spacer,
    Stack,
    Tab,
    Text,
    Toggle,
    View,
)

# Views that draw nothing but their background (Scroll is a Column; Scrim, a Stack, dims what is below).
CONTAINERS = (Stack, Column, Row, Spacer)


class Canvas:
    """An image plus the screen position of its top-left corner (scroll containers draw offscreen)."""

    def __init__(self, image: Image.Image, ox: int, oy: int, palette: Palette, metrics: Metrics) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.ox = ox
        self.oy = oy
        self.pal = palette
        self.m = metrics
        # The one colour of a fresh canvas until something is drawn: a fill in that colour is skipped
        # (apps fill the screen with the background colour, which costs ~1 ms at 1080x2400).
        self.untouched: Color | None = None
        # Views whose own drawing is left out (mgfarm/sim/ui/redraw.py draws only what reaches its bands).
        self.skip: Callable[[View], bool] | None = None
        # The only rows whose pixels are kept, when not all are: a long rectangle is drawn cut to them.
        self.rows: tuple[int, int] | None = None

    def color(self, role: str) -> Color:
        if role.startswith("#"):
            return hex_color(role)
        value = getattr(self.pal, role)
        assert isinstance(value, tuple)
        return value

    def box(self, r: Rect) -> Rect:
        return (r[0] - self.ox, r[1] - self.oy, r[2] - self.ox, r[3] - self.oy)

    def rect(
        self, r: Rect, fill: Color | None, radius: float = 0, outline: Color | None = None, width: int = 1
    ) -> None:
        x0, y0, x1, y1 = self.box(r)
        if x1 <= x0 or y1 <= y0:
            return
        rad = min(radius, (x1 - x0) / 2, (y1 - y0) / 2)
        if self.rows is not None and y1 - y0 > 2 * rad + 3:
            # Its rows past the corners' are alike, so one cut a corner's height beyond the kept
            # rows draws the same pixels there (Pillow: two corners' height more keeps it one shape).
            m = int(2 * rad) + width + 4
            y0, y1 = max(y0, self.rows[0] - m), min(y1, self.rows[1] + m)
            if y1 <= y0:
                return
        whole = all(type(c) is int for c in (x0, y0, x1, y1))  # the faster paths match Pillow there
        if rad > 0 and whole:
            self.rounded((x0, y0, x1 - 1, y1 - 1), rad, fill, outline, width)
        elif rad > 0:
            self.draw.rounded_rectangle(
                (x0, y0, x1 - 1, y1 - 1), radius=rad, fill=fill, outline=outline, width=width
            )
        elif whole and outline is None and fill is not None:
            self.fill((x0, y0, x1 - 1, y1 - 1), fill)
        else:
            self.draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill, outline=outline, width=width)

    def fill(self, box: Rect, color: Color) -> None:
        """`ImageDraw.rectangle(box, fill=color)` (edges included): the same pixels, filled by
        Image.paste, which is several times faster (~0.5 ms against ~1.5 ms for a whole screen)."""
        x0, y0, x1, y1 = box
        if x1 >= x0 and y1 >= y0:
            self.image.paste(color, (x0, y0, x1 + 1, y1 + 1))
        else:
            self.draw.rectangle(box, fill=color)

    def rounded(
        self, box: Rect, radius: float, fill: Color | None, outline: Color | None, width: int
    ) -> None:
        """`ImageDraw.rounded_rectangle(box, radius, fill, outline, width)` for integer corners, its
        steps taken in the same order (Pillow 10-13), the straight parts filled by `fill`: the
        same pixels (tests/unit/test_ui_render.py compares them), ~2x faster for a card."""
        x0, y0, x1, y1 = box
        d = min(x1 - x0, y1 - y0, radius * 2)
        full_x = d >= x1 - x0 - 1
        if full_x:
            d = x1 - x0
        full_y = d >= y1 - y0 - 1
        if full_y:
            d = y1 - y0
        if (full_x and full_y) or d == 0 or x1 < x0 or y1 < y0:
            self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)
            return
        r = int(d // 2)
        parts: list[tuple[tuple[float, float, float, float], int, int]]
        if full_x:
            parts = [((x0, y0, x0 + d, y0 + d), 180, 360), ((x0, y1 - d, x0 + d, y1), 0, 180)]
        elif full_y:
            parts = [((x0, y0, x0 + d, y0 + d), 90, 270), ((x1 - d, y0, x1, y0 + d), 270, 90)]
        else:
            parts = [
                ((x0, y0, x0 + d, y0 + d), 180, 270),
                ((x1 - d, y0, x1, y0 + d), 270, 360),
                ((x1 - d, y1 - d, x1, y1), 0, 90),
                ((x0, y1 - d, x0 + d, y1), 90, 180),
            ]
        if fill is not None:
            for corner, start, end in parts:
                self.draw.pieslice(corner, start, end, fill=fill)
            if full_x:
                self.fill((x0, y0 + r + 1, x1, y1 - r - 1), fill)
            elif x1 - r - 1 >= x0 + r + 1:
                self.fill((x0 + r + 1, y0, x1 - r - 1, y1), fill)
            if not full_x and not full_y:
                self.fill((x0, y0 + r + 1, x0 + r, y1 - r - 1), fill)
                self.fill((x1 - r, y0 + r + 1, x1, y1 - r - 1), fill)
        if outline is not None and outline != fill and width != 0:
            for corner, start, end in parts:
                self.draw.arc(corner, start, end, fill=outline, width=width)
            if not full_x:
                self.fill((x0 + r + 1, y0, x1 - r - 1, y0 + width - 1), outline)
                self.fill((x0 + r + 1, y1 - width + 1, x1 - r - 1, y1), outline)
            if not full_y:
                self.fill((x0, y0 + r + 1, x0 + width - 1, y1 - r - 1), outline)
                self.fill((x1 - width + 1, y0 + r + 1, x1, y1 - r - 1), outline)

    def text(
        self,
        xy: tuple[float, float],
        s: str,
        size: int,
        color: Color,
        medium: bool = False,
        anchor: str = "lm",
    ) -> None:
        if not s:
            return
        mask, dx, dy = text_mask(s, size, medium, anchor)
        x, y = round(xy[0] - self.ox), round(xy[1] - self.oy)
        self.draw.bitmap((x + dx, y + dy), mask, fill=color)

    def icon(self, name: str, r: Rect, color: Color) -> None:
        draw_icon(self.draw, name, self.box(r), color)


# Text masks kept for every device of the process, by bytes: a label's mask is ~30 kB, a paragraph's
# can be a megabyte, and 1024 of them by count held ~32 MiB in a worker of 32 devices.
TEXT_MASK_BYTES = 8 * 1024 * 1024
Mask = tuple[Image.Image, int, int]
_masks: Kept[tuple[str, int, bool, str], Mask] = Kept(TEXT_MASK_BYTES, lambda m: m[0].width * m[0].height)


def text_mask(s: str, size: int, medium: bool, anchor: str) -> Mask:
    """The antialiased coverage of a text run and its offset from the anchor point.

    Shared by every device in the process: labels repeat across frames and devices, and drawing
    a cached mask costs a fraction of laying out the glyphs again.
    """
    key = (s, size, medium, anchor)
    found = _masks.get(key)
    if found is None:
        found = _masks.put(key, _draw_text_mask(s, size, medium, anchor))
    return found


def _draw_text_mask(s: str, size: int, medium: bool, anchor: str) -> Mask:
    f = font(size, medium)
    s = shapeable(s)
    left, top, right, bottom = (int(v) for v in f.getbbox(s, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(mask).text((-left, -top), s, font=f, fill=255, anchor=anchor)
    return mask, left, top


def render(
    roots: list[View],
    ctx: LayoutCtx,
    palette: Palette,
    background: str = "surface",
    into: Image.Image | None = None,
) -> Image.Image:
    """Draw laid-out trees (in order, later ones on top) onto a new RGB screen image, or onto `into`
    (an RGB image of the screen's size, cleared first): filling pages already mapped costs less
    than half of a new image's (~0.9 ms against ~2 ms at 1080x2400)."""
    m = ctx.metrics
    fill = hex_color(background) if background.startswith("#") else getattr(palette, background)
    covered = covers_screen(roots, m.width, m.height)
    if into is not None and into.mode == "RGB" and into.size == (m.width, m.height):
        image = into
        if not covered:
            image.paste(fill, (0, 0, m.width, m.height))
    else:
        image = Image.new("RGB", (m.width, m.height), fill)
    cv = Canvas(image, 0, 0, palette, m)
    cv.untouched = None if covered else fill
    for root in roots:
        draw_view(cv, root, ctx)
    return image


def covers_screen(roots: list[View], width: int, height: int) -> bool:
    """Whether the first thing drawn is an opaque fill of the whole screen (the launcher's wallpaper,
    the camera's black): clearing the screen before it (~1 ms) would be drawn over at once. Only
    plain containers that draw nothing may come before it (a Scroll keeps strips of what is below)."""
    v = roots[0] if roots else None
    while v is not None and not (v.bg or v.border):
        plain = type(v) in (Stack, Column, Row) and v.clip != EMPTY
        v = v.children[0] if plain and v.children else None
    if v is None or v.border or v.radius or isinstance(v, Scrim) or v.clip == EMPTY:
        return False
    x0, y0, x1, y1 = v.bounds
    return x0 <= 0 and y0 <= 0 and x1 >= width and y1 >= height


def draw_view(cv: Canvas, v: View, ctx: LayoutCtx) -> None:
    if v.clip == EMPTY:
        return
    if cv.skip is None or not cv.skip(v):
        draw_self(cv, v, ctx)
    if isinstance(v, Scroll):
        draw_scroll(cv, v, ctx)
        return
    for c in v.children:
        draw_view(cv, c, ctx)


def draw_scroll(cv: Canvas, v: Scroll, ctx: LayoutCtx) -> None:
    """Children drawn in place; what spills over the list's edges is put back from saved strips.

    Saving two thin strips is far cheaper than drawing the list offscreen and pasting it back.
    """
    x0, y0, x1, y1 = v.clip
    visible = [c for c in v.children if c.clip != EMPTY]
    if not visible:
        return
    above = max(0, y0 - min(c.bounds[1] for c in visible))
    below = max(0, max(c.bounds[3] for c in visible) - y1)
    strips: list[tuple[Rect, Image.Image]] = []
    for box in ((x0, y0 - above, x1, y0), (x0, y1, x1, y1 + below)):
        b = cv.box(box)
        b = (b[0], max(0, b[1]), b[2], min(cv.image.height, b[3]))
        if b[3] > b[1]:
            strips.append((b, cv.image.crop(b)))
    for c in visible:
        draw_view(cv, c, ctx)
    for b, strip in strips:
        cv.image.paste(strip, b[:2])


def draw_self(cv: Canvas, v: View, ctx: LayoutCtx) -> None:
    if not isinstance(v, CONTAINERS) or isinstance(v, Scrim):
        cv.untouched = None  # draws something of its own
    if isinstance(v, Scrim):
        box = cv.box(v.clip)
        region = cv.image.crop(box)
        cv.image.paste(Image.blend(region, Image.new("RGB", region.size, (0, 0, 0)), v.dim), box[:2])
    if v.bg and v.bg.startswith("gradient:"):
        draw_gradient(cv, v.bounds, v.bg)
        cv.untouched = None
    elif v.bg or v.border:
        fill = cv.color(v.bg) if v.bg else None
        if v.border or fill != cv.untouched:
            cv.rect(
                v.bounds,
                fill,
                ctx.px(v.radius),
                outline=cv.color(v.border) if v.border else None,
                width=max(1, ctx.px(1)),
            )
            cv.untouched = None
    if isinstance(v, AppIcon):
        draw_app_icon(cv, v, ctx)
    elif isinstance(v, Button):
        draw_button(cv, v, ctx)
    elif isinstance(v, EditText):
        draw_edit(cv, v, ctx)
    elif isinstance(v, Tab):
        draw_tab(cv, v, ctx)
    elif isinstance(v, Text):
        draw_text(cv, v, ctx)
    elif isinstance(v, Toggle):
        draw_toggle(cv, v, ctx)
    elif isinstance(v, Icon):
        draw_icon_view(cv, v, ctx)
    elif isinstance(v, Avatar):
        draw_avatar(cv, v, ctx)
    elif isinstance(v, Slider):
        draw_slider(cv, v, ctx)
    elif isinstance(v, DrawingPad):
        draw_pad(cv, v, ctx)
    elif isinstance(v, Picture):
        draw_picture(cv, v)
    elif isinstance(v, Dial):
        draw_dial_hand(cv, v, ctx)


def draw_text(cv: Canvas, v: Text, ctx: LayoutCtx, color: Color | None = None) -> None:
    x0, y0, x1, y1 = v.inner(ctx)
    lines = v.wrapped(ctx, v.bounds[2] - v.bounds[0])
    lh = v.line_height(ctx)
    size = v.font_px(ctx)
    col = color or cv.color(v.color)
    if not v.enabled:
        col = blend(col, cv.pal.surface, 0.6)
    top = y0 + (y1 - y0 - lh * len(lines)) // 2
    for i, line in enumerate(lines):
        cy = top + lh * i + lh // 2
        if v.gravity == "center":
            cv.text(((x0 + x1) / 2, cy), line, size, col, v.medium, "mm")
        elif v.gravity == "right":
            cv.text((x1, cy), line, size, col, v.medium, "rm")
        else:
            cv.text((x0, cy), line, size, col, v.medium, "lm")


def draw_button(cv: Canvas, v: Button, ctx: LayoutCtx) -> None:
    p = cv.pal
    fg = p.primary
    if v.style == "filled":
        cv.rect(v.bounds, p.primary, 999)
        fg = p.on_primary
    elif v.style == "tonal":
        cv.rect(v.bounds, p.secondary_container, 999)
        fg = p.on_secondary_container
    elif v.style == "outlined":
        cv.rect(v.bounds, None, 999, outline=p.outline, width=max(1, ctx.px(1)))
    elif v.style == "key":
        fg = p.on_surface
    if not v.enabled:
        fg = blend(fg, p.surface, 0.6)
    x0, y0, x1, y1 = v.bounds
    size = v.font_px(ctx)
    label = ellipsize(v.text, size, True, max(1, x1 - x0 - ctx.px(16)))
    cx = (x0 + x1) / 2
    if v.icon:
        isz = ctx.px(18)
        tw = font(size, True).getlength(label)
        left = cx - (tw + isz + ctx.px(8)) / 2
        cv.icon(v.icon, (int(left), (y0 + y1 - isz) // 2, int(left) + isz, (y0 + y1 + isz) // 2), fg)
        cx = left + isz + ctx.px(8) + tw / 2
    cv.text((cx, (y0 + y1) / 2), label, size, fg, True, "mm")


def draw_edit(cv: Canvas, v: EditText, ctx: LayoutCtx) -> None:
    p = cv.pal
    x0, y0, x1, y1 = v.bounds
    size = v.font_px(ctx)
    if v.style == "pill":
        cv.rect(v.bounds, p.surface_container_high, 999)
        tx = x0 + ctx.px(20)
    elif v.style == "search":
        cv.rect(v.bounds, p.surface_container_high, 999)
        tx = x0 + ctx.px(52)
        cv.icon(
            "search",
            (x0 + ctx.px(16), (y0 + y1) // 2 - ctx.px(12), x0 + ctx.px(40), (y0 + y1) // 2 + ctx.px(12)),
            p.on_surface_variant,
        )
    elif v.style == "outlined":
        border = p.primary if v.has_focus else p.outline
        cv.rect(
            v.bounds, None, ctx.px(4), outline=border, width=ctx.px(2) if v.has_focus else max(1, ctx.px(1))
        )
        tx = x0 + ctx.px(16)
    else:
        tx = x0 + ctx.px(4)
    shown = "•" * len(v.text) if v.secret else v.text
    label_up = bool(shown) or v.has_focus
    if v.style == "outlined" and label_up and v.hint:
        # The label floats onto the outline, on a patch of surface colour that cuts the border.
        lsize = ctx.px(12)
        lw = int(font(lsize).getlength(v.hint))
        bx, by = cv.box((tx, max(0, y0 - lsize), tx, y0))[:2]
        under = cv.image.getpixel((max(0, bx), max(0, by)))  # whatever the field sits on: page or dialog
        patch: Color = (
            (int(under[0]), int(under[1]), int(under[2])) if isinstance(under, tuple) else p.surface
        )
        cv.rect((tx - ctx.px(4), y0 - lsize // 2, tx + lw + ctx.px(4), y0 + lsize // 2 + 1), patch)
        cv.text((tx, y0), v.hint, lsize, p.primary if v.has_focus else p.on_surface_variant, anchor="lm")
    cy = (y0 + y1) / 2
    avail = max(1, x1 - tx - ctx.px(12))
    if v.multiline and shown:
        # A multi-line editor (a note) wraps from its top; the cursor stays at the end of the text.
        lh = v.line_height(ctx)
        lines = wrap(shown, size, False, avail, max(1, (y1 - y0 - ctx.px(16)) // lh))
        for i, line in enumerate(lines):
            cv.text((tx, y0 + ctx.px(8) + lh * i + lh // 2), line, size, p.on_surface)
        cy = y0 + ctx.px(8) + lh * (len(lines) - 1) + lh // 2
        end = tx + font(size).getlength(lines[-1])
    elif shown:
        # Keep the end of long input visible, as a single-line field scrolls to the cursor.
        s = tail(shown, size, False, avail)
        cv.text((tx, cy), s, size, p.on_surface)
        end = tx + font(size).getlength(s)
    else:
        if not (v.style == "outlined" and v.has_focus):
            cv.text((tx, cy), ellipsize(v.hint, size, False, avail), size, p.on_surface_variant)
        end = tx
    if v.has_focus:
        cv.rect(
            (
                int(end) + 1,
                int(cy - size * 0.6),
                int(end) + 1 + max(2, ctx.px(2) // 2 + 1),
                int(cy + size * 0.6),
            ),
            p.primary,
        )


def draw_tab(cv: Canvas, v: Tab, ctx: LayoutCtx) -> None:
    p = cv.pal
    x0, y0, x1, y1 = v.bounds
    col = p.primary if v.selected else p.on_surface_variant
    if v.icon:
        isz = ctx.px(24)
        cx = (x0 + x1) // 2
        cv.icon(v.icon, (cx - isz // 2, y0 + ctx.px(8), cx + isz // 2, y0 + ctx.px(8) + isz), col)
        cv.text((cx, y1 - ctx.px(14)), v.text, ctx.px(12), col, True, "mm")
    else:
        draw_text(cv, v, ctx, col)
    if v.selected:
        w = max(ctx.px(24), int(font(v.font_px(ctx), True).getlength(v.text)))
        cx = (x0 + x1) // 2
        cv.rect((cx - w // 2, y1 - ctx.px(3), cx + w // 2, y1), p.primary, ctx.px(3))


def draw_toggle(cv: Canvas, v: Toggle, ctx: LayoutCtx) -> None:
    p = cv.pal
    x0, y0, x1, y1 = v.bounds
    cy = (y0 + y1) // 2
    if v.kind == "checkbox":
        s = ctx.px(18)
        cx = (x0 + x1) // 2
        r = (cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2)
        tint = cv.color(v.tint) if v.tint else None
        if v.on:
            cv.rect(r, tint or p.primary, ctx.px(2))
            cv.icon("check", (r[0] + 1, r[1] + 1, r[2] - 1, r[3] - 1), p.on_primary)
        else:
            cv.rect(r, None, ctx.px(2), outline=tint or p.on_surface_variant, width=ctx.px(2))
        return
    if v.kind == "radio":
        rad, cx = ctx.px(10), x0 + ctx.px(14)
        cv.rect(
            (cx - rad, cy - rad, cx + rad, cy + rad),
            None,
            rad,
            outline=p.primary if v.on else p.on_surface_variant,
            width=ctx.px(2),
        )
        if v.on:
            d = ctx.px(5)
            cv.rect((cx - d, cy - d, cx + d, cy + d), p.primary, d)
        cv.text((cx + rad + ctx.px(10), cy), v.text, ctx.px(16), p.on_surface)
        return
    tw, th = ctx.px(52), ctx.px(32)
    tx = x1 - tw
    track = (tx, cy - th // 2, x1, cy + th // 2)
    if v.on:
        cv.rect(track, p.primary, th // 2)
        knob = ctx.px(12)
        kx = x1 - ctx.px(16)
        cv.rect((kx - knob, cy - knob, kx + knob, cy + knob), p.on_primary, knob)
        cv.icon("check", (kx - ctx.px(8), cy - ctx.px(8), kx + ctx.px(8), cy + ctx.px(8)), p.primary)
    else:
        cv.rect(track, p.surface_container_high, th // 2, outline=p.outline, width=ctx.px(2))
        knob = ctx.px(8)
        kx = tx + ctx.px(16)
        cv.rect((kx - knob, cy - knob, kx + knob, cy + knob), p.outline, knob)


def draw_icon_view(cv: Canvas, v: Icon, ctx: LayoutCtx) -> None:
    x0, y0, x1, y1 = v.bounds
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    tint = cv.color(v.tint)
    if v.circle:
        r = min(x1 - x0, y1 - y0) // 2
        cv.rect((cx - r, cy - r, cx + r, cy + r), cv.color(v.circle), r)
    s = ctx.px(v.size) // 2
    cv.icon(v.name, (cx - s, cy - s, cx + s, cy + s), tint)


def draw_avatar(cv: Canvas, v: Avatar, ctx: LayoutCtx) -> None:
    x0, y0, x1, y1 = v.bounds
    cv.rect(v.bounds, cv.color(v.color), (x1 - x0) // 2)
    cv.text(
        ((x0 + x1) / 2, (y0 + y1) / 2),
        v.letter[:1].upper(),
        int((y1 - y0) * 0.45),
        (255, 255, 255),
        True,
        "mm",
    )


def draw_slider(cv: Canvas, v: Slider, ctx: LayoutCtx) -> None:
    p = cv.pal
    _, y0, _, y1 = v.bounds
    cy = (y0 + y1) // 2
    t0, t1 = v.track(ctx)
    frac = (v.value - v.low) / max(1, v.high - v.low)
    kx = int(t0 + frac * (t1 - t0))
    h = ctx.px(16)
    cv.rect((t0, cy - h // 2, t1, cy + h // 2), p.secondary_container, h // 2)
    cv.rect((t0, cy - h // 2, max(kx, t0 + h), cy + h // 2), p.primary, h // 2)
    cv.rect((kx - ctx.px(2), cy - ctx.px(22), kx + ctx.px(2), cy + ctx.px(22)), p.primary, ctx.px(2))


def draw_dial_hand(cv: Canvas, v: Dial, ctx: LayoutCtx) -> None:
    """The time picker's hand, from the centre to the chosen number (whose disc its child draws)."""
    if v.hand is None:
        return
    x0, y0, x1, y1 = v.bounds
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    hx, hy = v.point(v.hand, ctx)
    col = cv.pal.primary
    cv.draw.line([cv.box((cx, cy, 0, 0))[:2], cv.box((hx, hy, 0, 0))[:2]], fill=col, width=max(1, ctx.px(2)))
    d = ctx.px(4)
    cv.rect((cx - d, cy - d, cx + d, cy + d), col, d)
    r = ctx.px(20)
    cv.rect((hx - r, hy - r, hx + r, hy + r), col, r)


def draw_pad(cv: Canvas, v: DrawingPad, ctx: LayoutCtx) -> None:
    x0, y0, x1, y1 = cv.box(v.bounds)
    w, h = x1 - x0, y1 - y0
    for fx1, fy1, fx2, fy2 in v.strokes:
        line = (x0 + fx1 * w, y0 + fy1 * h, x0 + fx2 * w, y0 + fy2 * h)
        cv.draw.line(line, fill=cv.color(v.color), width=max(1, ctx.px(4)))


MAX_PICTURE_BYTES = 32 * 1024 * 1024  # a larger file draws nothing rather than stall every frame
# An image larger than this once decoded (after a JPEG's reduced decode) draws nothing: a PNG of one
# colour and 170 million pixels is a small file that Pillow decodes into half a gigabyte.
MAX_PICTURE_PIXELS = 1 << 25

# Scaled pictures by the sum of their file's bytes, not its path (replicas of one task show the same
# pictures from their own files, and a grid of thumbnails is redrawn on every change of the screen),
# within a budget of pixel bytes; `(None,)` for a file that is not an image Pillow reads. The sum is
# kept for each version of a file, so a file is read once a version, not on every frame: a grid of
# 20 MB files was read whole on each frame (~0.5 s), and an lru_cache keyed by the files' bytes held
# them (~1.4 GB in a worker whose device showed 70 of them).
SCALED_BYTES = 32 * 1024 * 1024
_scaled: Kept[tuple[bytes, int, int, bool], tuple[Image.Image | None]] = Kept(
    SCALED_BYTES, lambda kept: 256 + (kept[0].width * kept[0].height * 3 if kept[0] else 0)
)


def file_sum(data: bytes) -> bytes:
    return hashlib.sha1(data).digest()


def scaled_picture(path: str, w: int, h: int, crop: bool) -> Image.Image | None:
    """The image file at host `path` scaled to fit inside w x h (or to cover it, centre-cropped); None
    if it cannot be read, is over MAX_PICTURE_BYTES or is not an image Pillow reads."""
    digest = parsed_file(path, MAX_PICTURE_BYTES, file_sum)
    kept = None if digest is None else _scaled.get((digest, w, h, crop))
    if kept is None:
        data = read_bounded(path, MAX_PICTURE_BYTES)  # keyed by what is read now, changed or not
        if data is None:
            return None
        kept = _scaled.put((file_sum(data), w, h, crop), (decoded(data, w, h, crop),))
    return kept[0]


def decoded(data: bytes, w: int, h: int, crop: bool) -> Image.Image | None:
    """An image file's bytes decoded and scaled to w x h; None if Pillow does not read it."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.draft("RGB", (w, h))  # JPEG decodes at a reduced scale when that is enough
            if img.width * img.height > MAX_PICTURE_PIXELS:
                return None
            rgb = img.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return fitted(rgb, w, h, crop)


def fitted(rgb: Image.Image, w: int, h: int, crop: bool) -> Image.Image:
    """An RGB image scaled to fit inside w x h (or to cover it, centre-cropped)."""
    scale = (max if crop else min)(w / rgb.width, h / rgb.height)
    size = (max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale)))
    out = rgb.resize(size, Image.Resampling.BILINEAR)
    if crop:
        left, top = (size[0] - w) // 2, (size[1] - h) // 2
        out = out.crop((left, top, left + w, top + h))
    return out


# Pictures apps draw themselves (`Picture.pixels`), scaled, by stamp and size: a few, since each
# is a screenful (a map: ~10 MB) and a new one comes with every pan of the map; three keep the
# camera's scene while two devices pan maps. Keeping one in a worker of one device cost the
# bench's mixed workload ~60 % more sim CPU a step (pictures drawn again on most frames).
# Dropped when the worker idles (`forget_drawn`).
DRAWN_KEPT = 3
_drawn: Kept[tuple[str, int, int, bool], Image.Image] = Kept(DRAWN_KEPT, lambda _picture: 1)


def drawn_picture(v: Picture, w: int, h: int) -> Image.Image:
    """The pixels `v.pixels` draws scaled to w x h, drawn again only for a stamp or size not kept."""
    assert v.pixels is not None
    key = (v.stamp, w, h, v.crop)
    pic = _drawn.get(key)
    if pic is None:
        drawn = v.pixels()
        pic = _drawn.put(key, fitted(drawn if drawn.mode == "RGB" else drawn.convert("RGB"), w, h, v.crop))
    return pic


def forget_drawn() -> None:
    """Drop the drawn pictures (an idle worker gives their memory back; drawn again on next use)."""
    _drawn.clear()


def draw_picture(cv: Canvas, v: Picture) -> None:
    x0, y0, x1, y1 = cv.box(v.bounds)
    if x1 <= x0 or y1 <= y0:
        return
    if v.pixels is not None:
        pic: Image.Image | None = drawn_picture(v, x1 - x0, y1 - y0)
    else:
        if not v.source:
            return
        pic = scaled_picture(v.source, x1 - x0, y1 - y0, v.crop)
    if pic is not None:
        cv.image.paste(pic, (x0 + (x1 - x0 - pic.width) // 2, y0 + (y1 - y0 - pic.height) // 2))


def draw_gradient(cv: Canvas, r: Rect, spec: str) -> None:
    """A vertical two-colour gradient (the wallpaper) drawn in bands, cheaper than per-pixel blending."""
    top, bottom = (hex_color(c) for c in spec.split(":", 1)[1].split(","))
    x0, y0, x1, y1 = cv.box(r)
    bands = 48
    h = max(1, (y1 - y0) / bands)
    for i in range(bands):
        # Pasting a colour fills what the rectangle (x0, y0, x1, y1), edges included, would, in
        # half the time (~0.7 ms against ~1.5 ms a screen).
        cv.image.paste(
            blend(top, bottom, i / (bands - 1)), (x0, int(y0 + i * h), x1 + 1, int(y0 + (i + 1) * h) + 1)
        )


def draw_app_icon(cv: Canvas, v: AppIcon, ctx: LayoutCtx) -> None:
    x0, y0, x1, _y1 = v.bounds
    d = ctx.px(56)
    cx = (x0 + x1) // 2
    top = y0 + ctx.px(4)
    art = app_art(v.art, d, v.art_text) if v.art else None
    if art is not None:
        x, y, _, _ = cv.box((cx - d // 2, top, cx + d // 2, top + d))
        cv.image.paste(art, (x, y), art)
    else:
        cv.rect((cx - d // 2, top, cx + d // 2, top + d), cv.color(v.color), d // 2)
        g = ctx.px(30)
        cy = top + d // 2
        cv.icon(v.glyph, (cx - g // 2, cy - g // 2, cx + g // 2, cy + g // 2), (255, 255, 255))
    size = v.font_px(ctx)
    label = ellipsize(v.text, size, False, x1 - x0 - ctx.px(4))
    cv.text((cx, top + d + ctx.px(14)), label, size, cv.color(v.label_color), False, "mm")
