"""The retained view tree: widgets with layout in dp, laid out to screen pixels.

Apps build a tree of these from their state on every frame; the window manager lays it out, renders
it (`render.py`), dumps it as uiautomator XML (`xmldump.py`) and hit-tests input against it.
Sizes are in dp, text sizes in sp (font scale 1); `bounds` and `clip` are screen pixels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from mgfarm.sim.ui.fonts import text_width, wrap
from mgfarm.sim.ui.theme import Metrics

if TYPE_CHECKING:
    from PIL import Image

Handler = Callable[[], None]
Rect = tuple[int, int, int, int]
EMPTY: Rect = (0, 0, 0, 0)


@dataclass
class LayoutCtx:
    """What layout needs besides sizes: density, scroll offsets and the focused field."""

    metrics: Metrics
    scroll: dict[str, int] = field(default_factory=dict)
    focus: str | None = None

    def px(self, dp: float) -> int:
        # Metrics.px inlined (the same expression, so the same pixels): layout calls this ~1,500
        # times for a month view, and a second call level was ~0.2 ms of it.
        return round(dp * self.metrics.density / 160.0)


def intersect(a: Rect, b: Rect) -> Rect:
    r = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return r if r[0] < r[2] and r[1] < r[3] else EMPTY


@dataclass(eq=False, kw_only=True)
class View:
    """A plain view; subclasses say how they measure, draw and appear to accessibility."""

    klass: ClassVar[str] = "android.view.View"
    id: str = ""  # resource name: "name" (app package) or "pkg:id/name"
    text: str = ""
    desc: str = ""
    width: float | None = None  # dp; None = fill the parent (or intrinsic in a Row)
    height: float | None = None  # dp; None = wrap the content
    weight: float = 0.0
    pad: tuple[float, float, float, float] = (0, 0, 0, 0)  # left, top, right, bottom in dp
    bg: str | None = None  # palette role or "#rrggbb"
    radius: float = 0.0
    border: str | None = None
    align: str = ""  # position inside a Stack: center, top, bottom, bottom_end, ...
    on_click: Handler | None = None
    on_long_click: Handler | None = None
    enabled: bool = True
    selected: bool = False
    blocks: bool = False  # swallows taps that hit no clickable child (dialog cards)
    children: list[View] = field(default_factory=list)
    bounds: Rect = EMPTY
    clip: Rect = EMPTY

    # ---- accessibility properties (uiautomator attributes)
    @property
    def checkable(self) -> bool:
        return False

    @property
    def checked(self) -> bool:
        return False

    @property
    def clickable(self) -> bool:
        return self.on_click is not None

    @property
    def long_clickable(self) -> bool:
        return self.on_long_click is not None

    @property
    def focusable(self) -> bool:
        return self.clickable

    @property
    def focused(self) -> bool:
        return False

    @property
    def scrollable(self) -> bool:
        return False

    @property
    def password(self) -> bool:
        return False

    @property
    def a11y_text(self) -> str:
        return self.text

    # ---- layout
    def padding_px(self, ctx: LayoutCtx) -> tuple[int, int, int, int]:
        left, top, right, bottom = self.pad
        if not (left or top or right or bottom):
            return (0, 0, 0, 0)  # most views have no padding: four conversions of 0 saved
        return ctx.px(left), ctx.px(top), ctx.px(right), ctx.px(bottom)

    def intrinsic_width(self, ctx: LayoutCtx) -> int:
        """Width wanted in a Row when `width` is unset; 0 means "share the rest"."""
        if self.width is not None:
            return ctx.px(self.width)
        pl, _, pr, _ = self.padding_px(ctx)
        widths = [c.intrinsic_width(ctx) for c in self.children]
        return pl + pr + max(widths, default=0)

    def measure(self, ctx: LayoutCtx, w: int) -> int:
        """Height in pixels for width `w`."""
        if self.height is not None:
            return ctx.px(self.height)
        return self.content_height(ctx, w)

    def content_height(self, ctx: LayoutCtx, w: int) -> int:
        pl, pt, pr, pb = self.padding_px(ctx)
        inner = w - pl - pr
        return pt + pb + max((c.measure(ctx, inner) for c in self.children), default=0)

    def layout(self, ctx: LayoutCtx, x: int, y: int, w: int, h: int) -> None:
        self.bounds = (x, y, x + w, y + h)
        self.layout_children(ctx)

    def layout_children(self, ctx: LayoutCtx) -> None:
        """Default: children stacked on top of each other (FrameLayout)."""
        x0, y0, x1, y1 = self.inner(ctx)
        for c in self.children:
            if c.width is not None:
                cw = min(ctx.px(c.width), x1 - x0)
            else:  # aligned children (FAB, snackbar) wrap their content; the rest fill
                cw = min(c.intrinsic_width(ctx), x1 - x0) if c.align else x1 - x0
            ch = min(c.measure(ctx, cw), y1 - y0) if c.height is not None or c.align else y1 - y0
            cx, cy = place(c.align, (x0, y0, x1, y1), cw, ch, ctx.px(16))
            c.layout(ctx, cx, cy, cw, ch)

    def inner(self, ctx: LayoutCtx) -> Rect:
        pl, pt, pr, pb = self.padding_px(ctx)
        x0, y0, x1, y1 = self.bounds
        return (x0 + pl, y0 + pt, x1 - pr, y1 - pb)

    def walk(self) -> Iterator[View]:
        yield self
        for c in self.children:
            yield from c.walk()


def place(align: str, box: Rect, w: int, h: int, margin: int) -> tuple[int, int]:
    """Top-left corner of a w x h child aligned inside `box` (FrameLayout gravity)."""
    x0, y0, x1, y1 = box
    x = x0
    y = y0
    if "center" in align or align in ("top", "bottom"):
        x = x0 + (x1 - x0 - w) // 2
    if "end" in align:
        x = x1 - w - margin
    if align == "center" or align.startswith("center"):
        y = y0 + (y1 - y0 - h) // 2
    if align.startswith("bottom"):
        y = y1 - h - margin
    if align.startswith("top") and align != "top":
        y = y0 + margin
    return x, y


@dataclass(eq=False, kw_only=True)
class Stack(View):
    """FrameLayout: children fill it, or sit where `align` says (FAB, dialog, snackbar)."""

    klass: ClassVar[str] = "android.widget.FrameLayout"


@dataclass(eq=False, kw_only=True)
class Scrim(Stack):
    """The dimmed layer behind a dialog; tapping it (outside the card) dismisses the dialog."""

    dim: float = 0.32


@dataclass(eq=False, kw_only=True)
class Column(View):
    """Vertical LinearLayout; children with `weight` share the height left over."""

    klass: ClassVar[str] = "android.widget.LinearLayout"
    spacing: float = 0.0
    center: bool = False  # centre children horizontally when they have a fixed width

    def content_height(self, ctx: LayoutCtx, w: int) -> int:
        pl, pt, pr, pb = self.padding_px(ctx)
        inner = w - pl - pr
        hs = [c.measure(ctx, self.child_width(ctx, c, inner)) for c in self.children]
        return pt + pb + sum(hs) + ctx.px(self.spacing) * max(0, len(hs) - 1)

    @staticmethod
    def child_width(ctx: LayoutCtx, c: View, inner: int) -> int:
        return min(ctx.px(c.width), inner) if c.width is not None else inner

    def layout_children(self, ctx: LayoutCtx) -> None:
        x0, y0, x1, y1 = self.inner(ctx)
        inner = x1 - x0
        gap = ctx.px(self.spacing)
        widths = [self.child_width(ctx, c, inner) for c in self.children]
        fixed = [0 if c.weight else c.measure(ctx, cw) for c, cw in zip(self.children, widths, strict=True)]
        total_weight = sum(c.weight for c in self.children)
        spare = max(0, (y1 - y0) - sum(fixed) - gap * max(0, len(self.children) - 1))
        y = y0
        for c, cw, fh in zip(self.children, widths, fixed, strict=True):
            ch = int(spare * c.weight / total_weight) if c.weight else fh
            cx = x0 + (inner - cw) // 2 if self.center else x0
            c.layout(ctx, cx, y, cw, ch)
            y += ch + gap


@dataclass(eq=False, kw_only=True)
class Row(View):
    """Horizontal LinearLayout; children are vertically centred, or at its top or bottom (`valign`)."""

    klass: ClassVar[str] = "android.widget.LinearLayout"
    spacing: float = 0.0
    justify: str = "start"  # start, center, end, between
    valign: str = "center"  # center, top, bottom

    def widths(self, ctx: LayoutCtx, inner: int) -> list[int]:
        gap = ctx.px(self.spacing)
        wants = [0 if c.weight else c.intrinsic_width(ctx) for c in self.children]
        total_weight = sum(c.weight for c in self.children)
        spare = max(0, inner - sum(wants) - gap * max(0, len(self.children) - 1))
        return [
            int(spare * c.weight / total_weight) if c.weight else wv
            for c, wv in zip(self.children, wants, strict=True)
        ]

    def intrinsic_width(self, ctx: LayoutCtx) -> int:
        if self.width is not None:
            return ctx.px(self.width)
        pl, _, pr, _ = self.padding_px(ctx)
        gap = ctx.px(self.spacing)
        return (
            pl
            + pr
            + sum(c.intrinsic_width(ctx) for c in self.children)
            + gap * max(0, len(self.children) - 1)
        )

    def content_height(self, ctx: LayoutCtx, w: int) -> int:
        pl, pt, pr, pb = self.padding_px(ctx)
        ws = self.widths(ctx, w - pl - pr)
        return pt + pb + max((c.measure(ctx, cw) for c, cw in zip(self.children, ws, strict=True)), default=0)

    def layout_children(self, ctx: LayoutCtx) -> None:
        x0, y0, x1, y1 = self.inner(ctx)
        ws = self.widths(ctx, x1 - x0)
        gap = ctx.px(self.spacing)
        used = sum(ws) + gap * max(0, len(ws) - 1)
        x = x0
        if self.justify == "center":
            x = x0 + (x1 - x0 - used) // 2
        elif self.justify == "end":
            x = x1 - used
        elif self.justify == "between" and len(ws) > 1:
            gap = (x1 - x0 - sum(ws)) // (len(ws) - 1)
        for c, cw in zip(self.children, ws, strict=True):
            ch = min(c.measure(ctx, cw), y1 - y0)
            if self.valign == "center":
                y = y0 + (y1 - y0 - ch) // 2
            else:
                y = y0 if self.valign == "top" else y1 - ch
            c.layout(ctx, x, y, cw, ch)
            x += cw + gap


class Rows:
    """A list's rows made as a RecyclerView's adapter binds them: `count` rows, row i made by
    `make(i)` only when the list measures or shows it. An app hands these to `Scroll(rows=...)` for
    a list a shell can fill with rows by the hundred thousand (its rows hold no text fields)."""

    def __init__(self, count: int, make: Callable[[int], View]) -> None:
        self.count = count
        self.make = make

    @classmethod
    def of(cls, makers: Sequence[Callable[[], View]]) -> Rows:
        """Rows each made by its own maker (a `functools.partial` of the app's row builder)."""
        return cls(len(makers), lambda i: makers[i]())


@dataclass(eq=False, kw_only=True)
class Scroll(Column):
    """A scrolling list (RecyclerView) or ScrollView; its offset lives in the activity's UI state.
    Its rows are its children, or `rows` made on demand (laid out, only the rows in view remain
    children, and `rows` is dropped). A list that keeps its end in view (`from_end`, a chat)
    keeps its offset as the distance of the view's bottom from the list's end, and measures rows
    from the end up, so a thread of 20,000 messages opened at its newest costs what the newest do.
    A list with no rows shows `empty` instead, if given."""

    klass: ClassVar[str] = "androidx.recyclerview.widget.RecyclerView"
    key: str = "list"
    view_class: str = ""
    offset: int = 0  # from the top, whichever way the state keeps it
    content_h: int = 0
    rows: Rows | None = None
    from_end: bool = False
    empty: View | None = None  # the list's one child when it has no rows (an app's empty state)

    def __post_init__(self) -> None:
        if self.rows is not None and self.rows.count == 0:
            self.rows = None
        if self.rows is None and not self.children and self.empty is not None:
            self.children = [self.empty]
        self.empty = None  # taken: a view's attributes make its frame key

    @property
    def scrollable(self) -> bool:
        return self.content_h > self.bounds[3] - self.bounds[1]

    @property
    def max_offset(self) -> int:
        return max(0, self.content_h - (self.bounds[3] - self.bounds[1]))

    def kept(self, offset: int) -> int:
        """The state's value for an offset from the top (from the end, for a `from_end` list)."""
        return self.max_offset - offset if self.from_end else offset

    def layout_children(self, ctx: LayoutCtx) -> None:
        """As a RecyclerView: only the rows in view are laid out and kept as children, and rows are
        measured from the start (the top, or the end for `from_end`) only as far as the furthest
        swipe from here can reach (two screens, a fling); the list's height past them is estimated
        from their average, as a RecyclerView estimates its scroll range. So laying out a note of
        20,000 lines or a list of 100,000 rows costs what the rows before the view and a few screens
        do, and scrolling clamps exactly: a swipe that could reach the far end finds it measured. A
        row holding the focused field stays, so typing still reaches a field scrolled out of view."""
        x0, y0, x1, y1 = self.bounds
        pl, pt, pr, pb = self.padding_px(ctx)
        inner = x1 - x0 - pl - pr
        gap = ctx.px(self.spacing)
        # Distances along the list from its start edge; a swipe travels at most twice the screen's side.
        wanted = max(0, ctx.scroll.get(self.key, 0))
        horizon = wanted + (y1 - y0) + 2 * max(ctx.metrics.width, ctx.metrics.height)
        rows = self.rows or Rows(len(self.children), self.children.__getitem__)
        order = range(rows.count - 1, -1, -1) if self.from_end else range(rows.count)
        start_pad, end_pad = (pb, pt) if self.from_end else (pt, pb)
        placed: list[tuple[View, int, int, int]] = []  # child, width, height, start distance
        along = start_pad
        for i in order:
            if placed and along > horizon:
                break
            c = rows.make(i)
            cw = self.child_width(ctx, c, inner)
            ch = c.measure(ctx, cw)
            placed.append((c, cw, ch, along))
            along += ch + gap
        rest = rows.count - len(placed)
        measured = along - gap if placed else start_pad
        if rest:
            measured += round(rest * (measured - start_pad + gap) / len(placed))
        self.content_h = measured + end_pad
        near = min(wanted, self.max_offset)  # the view's start edge, from the list's start edge
        self.offset = self.max_offset - near if self.from_end else near
        attached: list[View] = []
        for c, cw, ch, at in placed:
            top = self.content_h - at - ch if self.from_end else at  # from the list's top
            y = y0 + top - self.offset  # a list shorter than its view starts at the top either way
            if (y < y1 and y + ch > y0) or (ctx.focus is not None and holds_field(c, ctx.focus)):
                c.layout(ctx, x0 + pl, y, cw, ch)
                attached.append(c)
        if ctx.focus is not None and self.rows is None:
            unmeasured = (
                self.children[: len(self.children) - len(placed)]
                if self.from_end
                else self.children[len(placed) :]
            )
            for c in unmeasured:  # past everything measured, so out of view: laid out there
                if holds_field(c, ctx.focus):
                    cw = self.child_width(ctx, c, inner)
                    ch = c.measure(ctx, cw)
                    c.layout(ctx, x0 + pl, y0 - ch if self.from_end else y1, cw, ch)
                    attached.append(c)
        if self.from_end:
            attached.sort(key=lambda v: v.bounds[1])  # the dump numbers rows from the top
        self.children, self.rows = attached, None


def holds_field(view: View, key: str) -> bool:
    """Whether the text field bound to `key` is `view` or one of its descendants."""
    stack = [view]
    while stack:
        v = stack.pop()
        if isinstance(v, EditText) and v.key == key:
            return True
        stack.extend(v.children)
    return False


@dataclass(eq=False, kw_only=True)
class Text(View):
    """TextView. `size` in sp; long text wraps up to `lines`, then ellipsizes."""

    klass: ClassVar[str] = "android.widget.TextView"
    size: float = 14.0
    medium: bool = False
    color: str = "on_surface"
    gravity: str = "left"  # left, center, right
    lines: int = 1

    def font_px(self, ctx: LayoutCtx) -> int:
        return ctx.px(self.size)

    def line_height(self, ctx: LayoutCtx) -> int:
        return round(self.font_px(ctx) * 1.45)

    def intrinsic_width(self, ctx: LayoutCtx) -> int:
        if self.width is not None:
            return ctx.px(self.width)
        pl, _, pr, _ = self.padding_px(ctx)
        longest = max(self.shown_text().split("\n"), key=len)
        return pl + pr + text_width(longest, self.font_px(ctx), self.medium) + 1

    def shown_text(self) -> str:
        return self.text

    def wrapped(self, ctx: LayoutCtx, w: int) -> list[str]:
        pl, _, pr, _ = self.padding_px(ctx)
        if w - pl - pr < 1:
            # TextView draws inside its padding, clipped: with no room it shows nothing, and wrapping
            # a title a character a line costs a measure each (a week of 20,000 overlapping events)
            return [""]
        return wrap(self.shown_text(), self.font_px(ctx), self.medium, w - pl - pr, self.lines)

    def content_height(self, ctx: LayoutCtx, w: int) -> int:
        _, pt, _, pb = self.padding_px(ctx)
        return pt + pb + self.line_height(ctx) * len(self.wrapped(ctx, w))


@dataclass(eq=False, kw_only=True)
class Button(Text):
    """Material 3 button: filled, tonal, outlined or text."""

    klass: ClassVar[str] = "android.widget.Button"
    style: str = "filled"
    medium: bool = True
    height: float | None = 40
    gravity: str = "center"
    icon: str = ""

    def intrinsic_width(self, ctx: LayoutCtx) -> int:
        if self.width is not None:
            return ctx.px(self.width)
        extra = 48 if self.style != "text" else 24
        if self.icon:
            extra += 26
        return text_width(self.text, self.font_px(ctx), True) + ctx.px(extra)


@dataclass(eq=False, kw_only=True)
class EditText(Text):
    """A Material outlined text field bound to a field of the activity's UI state by `key`."""

    klass: ClassVar[str] = "android.widget.EditText"
    key: str = ""
    hint: str = ""
    secret: bool = False
    multiline: bool = False
    style: str = "outlined"  # outlined, search, plain
    on_submit: Handler | None = None
    height: float | None = 56
    size: float = 16.0
    has_focus: bool = False

    @property
    def clickable(self) -> bool:
        return self.enabled

    @property
    def focusable(self) -> bool:
        return True

    @property
    def focused(self) -> bool:
        return self.has_focus

    @property
    def long_clickable(self) -> bool:
        return self.enabled

    @property
    def password(self) -> bool:
        return self.secret

    @property
    def a11y_text(self) -> str:
        # Since API 26 an empty field reports its hint as its text (isShowingHintText).
        if not self.text:
            return self.hint
        return "•" * len(self.text) if self.secret else self.text

    def layout(self, ctx: LayoutCtx, x: int, y: int, w: int, h: int) -> None:
        self.has_focus = bool(self.key) and ctx.focus == self.key
        super().layout(ctx, x, y, w, h)


@dataclass(eq=False, kw_only=True)
class Toggle(View):
    """A Material 3 switch (android.widget.Switch) or a checkbox."""

    klass: ClassVar[str] = "android.widget.Switch"
    on: bool = False
    kind: str = "switch"  # switch, checkbox
    tint: str | None = None  # a checkbox's colour instead of the theme's (Tasks colours it by priority)
    width: float | None = 52
    height: float | None = 32

    @property
    def checkable(self) -> bool:
        return True

    @property
    def checked(self) -> bool:
        return self.on

    @property
    def a11y_text(self) -> str:
        if self.kind == "switch" and not self.text:
            return "ON" if self.on else "OFF"
        return self.text


@dataclass(eq=False, kw_only=True)
class CheckBox(Toggle):
    klass: ClassVar[str] = "android.widget.CheckBox"
    kind: str = "checkbox"
    width: float | None = 40
    height: float | None = 40


@dataclass(eq=False, kw_only=True)
class RadioButton(CheckBox):
    """A round choice with its label beside it; in a Row, radios share the width."""

    klass: ClassVar[str] = "android.widget.RadioButton"
    kind: str = "radio"
    width: float | None = None
    height: float | None = 48

    def intrinsic_width(self, ctx: LayoutCtx) -> int:
        """The ring, a gap and the label (render.draw_toggle draws them so), plus a trailing gap."""
        if self.width is not None:
            return ctx.px(self.width)
        return ctx.px(44) + text_width(self.text, ctx.px(16))


@dataclass(eq=False, kw_only=True)
class DrawingPad(View):
    """A finger-painting surface: each swipe over it adds a straight stroke through `on_stroke`.

    Strokes are (x1, y1, x2, y2) as fractions of the pad's size, so they survive a relayout.
    """

    strokes: tuple[tuple[float, float, float, float], ...] = ()
    color: str = "#000000"
    on_stroke: Callable[[float, float, float, float], None] | None = None

    @property
    def clickable(self) -> bool:
        return self.on_stroke is not None

    def fraction(self, x: int, y: int) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bounds
        fx = (x - x0) / max(1, x1 - x0)
        fy = (y - y0) / max(1, y1 - y0)
        return min(1.0, max(0.0, fx)), min(1.0, max(0.0, fy))


@dataclass(eq=False, kw_only=True)
class Picture(View):
    """An ImageView showing an image file's pixels, scaled to fit (fitCenter) or to fill (centerCrop).

    `source` is the file's host path and `stamp` its size and mtime, so a changed file is a new frame.
    An app that draws the picture itself (OsmAnd's map) gives `pixels` instead of a file: called when
    the view is drawn and no scaled copy is kept, and `stamp` then names those pixels process-wide
    (equal stamps, equal pixels), since devices of a worker share the kept copies.
    """

    klass: ClassVar[str] = "android.widget.ImageView"
    source: str = ""
    stamp: str = ""
    crop: bool = False
    pixels: Callable[[], Image.Image] | None = None


@dataclass(eq=False, kw_only=True)
class Icon(View):
    """ImageView, or ImageButton when clickable; `size` is the glyph size in dp."""

    klass: ClassVar[str] = "android.widget.ImageView"
    name: str = ""
    size: float = 24.0
    tint: str = "on_surface_variant"
    circle: str | None = None  # background disc colour role (app icons, FAB-like buttons)

    def __post_init__(self) -> None:
        if self.width is None:
            self.width = 48.0 if self.on_click else self.size
        if self.height is None:
            self.height = self.width


@dataclass(eq=False, kw_only=True)
class IconButton(Icon):
    klass: ClassVar[str] = "android.widget.ImageButton"


@dataclass(eq=False, kw_only=True)
class Avatar(View):
    """A round letter avatar (QuickContactBadge in Contacts)."""

    klass: ClassVar[str] = "android.widget.QuickContactBadge"
    letter: str = ""
    color: str = "#7E57C2"
    width: float | None = 40
    height: float | None = 40


@dataclass(eq=False, kw_only=True)
class Spacer(View):
    """Empty space; with `weight` it pushes siblings apart."""


@dataclass(eq=False, kw_only=True)
class Slider(View):
    """SeekBar: a value between `low` and `high`; taps and drags set it through `on_change`."""

    klass: ClassVar[str] = "android.widget.SeekBar"
    value: int = 0
    low: int = 0
    high: int = 100
    on_change: Callable[[int], None] | None = None
    height: float | None = 48

    @property
    def clickable(self) -> bool:
        return self.on_change is not None

    @property
    def focusable(self) -> bool:
        return True

    def track(self, ctx: LayoutCtx) -> tuple[int, int]:
        x0, _, x1, _ = self.bounds
        return x0 + ctx.px(12), x1 - ctx.px(12)

    def value_at(self, ctx: LayoutCtx, x: int) -> int:
        t0, t1 = self.track(ctx)
        frac = min(1.0, max(0.0, (x - t0) / max(1, t1 - t0)))
        return round(self.low + frac * (self.high - self.low))


@dataclass(eq=False, kw_only=True)
class Tab(Text):
    """One tab of a TabLayout; `selected` draws the indicator."""

    klass: ClassVar[str] = "android.widget.TextView"
    icon: str = ""
    medium: bool = True
    gravity: str = "center"
    height: float | None = 48


@dataclass(eq=False, kw_only=True)
class AppIcon(Text):
    """A launcher icon: a BubbleTextView whose text is the app label, icon drawn above it."""

    glyph: str = "apps"
    color: str = "#5F6368"
    art: str = ""  # the app's own icon in ui.appicons, drawn instead of `glyph` on a `color` disc
    art_text: str = ""  # what the icon shows that changes (Calendar's day of the month)
    size: float = 12.0
    gravity: str = "center"
    height: float | None = 92
    label_color: str = "#FFFFFF"


def find(root: View, pred: Callable[[View], bool]) -> View | None:
    for v in root.walk():
        if pred(v):
            return v
    return None


def compute_clip(view: View, clip: Rect) -> None:
    """Visible part of every view on screen (scroll containers clip their children)."""
    view.clip = intersect(view.bounds, clip)
    inner = view.clip if isinstance(view, Scroll) else clip
    for c in view.children:
        compute_clip(c, inner)
