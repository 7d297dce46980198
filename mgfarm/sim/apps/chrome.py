"""Chrome (com.android.chrome) as far as AndroidWorld's browser tasks need: local pages, rendered by
the host's headless Chromium (mgfarm.sim.system.chromium).

A `VIEW` intent for a local file (file: URI of an HTML file, as the Files app sends for
task.html) opens it in `com.google.android.apps.chrome.Main`. The page is a copy of the device file
loaded in a private headless Chromium without network; its screenshot fills the content area under
the URL bar, and its visible texts, buttons, form fields and canvases are views with their text and
bounds, so `uiautomator dump` sees what the page shows ("Success!"). A tap on a button clicks it, a
swipe over a canvas draws (mouse press, moves, release), text typed into a field sets the field's
value (with an `input` event). The page is 1 CSS pixel per dp, as Chrome on a phone shows a page with
a `width=device-width` viewport (pages without one are not zoomed out as a phone would). Chromium
starts with the first page and is killed when the app stops (force-stop, `pm clear`) or the worker
exits (its pipe closes). Without Chromium on the host the page says what is missing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import unquote, urlsplit

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.system.chromium import Browser, BrowserError, Node, binary
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.intents import DEFAULT, IntentFilter
from mgfarm.sim.ui.views import Column, DrawingPad, EditText, Icon, LayoutCtx, Picture, Row, Stack, Text, View

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

PKG = "com.android.chrome"
MAIN = "com.google.android.apps.chrome.Main"
BROWSABLE = "android.intent.category.BROWSABLE"
VIEW = "android.intent.action.VIEW"
SHOT = f"/data/data/{PKG}/cache/page.png"
TOOLBAR_DP = 56
REFRESH_S = 1.0  # a page left alone is re-read this often (timers may change it)
# Browsers started for one page before it shows an error: the host's Chromium, not the phone's
# Chrome, can fail to start (its pipe closed under a loaded host's memory or CPU), and a second
# one usually starts, where the page would stay an error until the agent opened it again.
STARTS = 2
MISSING = (
    "This device cannot show web pages: the host has no Chromium (looked for /usr/lib/chromium/chromium). "
    "Install the chromium package on the host (apt-get install chromium) and restart the device."
)
STROKE_STEPS = 12  # mouse moves along a swipe over a canvas


@dataclass(eq=False, kw_only=True)
class WebText(View):
    """A run of page text: seen by accessibility, drawn by the page's screenshot underneath."""

    klass: ClassVar[str] = "android.widget.TextView"


@dataclass(eq=False, kw_only=True)
class WebButton(View):
    klass: ClassVar[str] = "android.widget.Button"


@dataclass(eq=False, kw_only=True)
class WebPage(View):
    """The page: its screenshot at the viewport's size; each other child sits at its `spots` entry
    (dp, top left). The screenshot keeps that size when the keyboard shortens the view, as Chrome
    keeps the page's layout, so the page's fields and buttons stay where their pixels are."""

    klass: ClassVar[str] = "android.webkit.WebView"
    spots: list[tuple[float, float]] = field(default_factory=list)
    viewport: tuple[float, float] = (0.0, 0.0)  # dp

    def layout_children(self, ctx: LayoutCtx) -> None:
        x0, y0, x1, y1 = self.bounds
        for i, c in enumerate(self.children):
            if i == 0:
                c.layout(ctx, x0, y0, ctx.px(self.viewport[0]), ctx.px(self.viewport[1]))
                continue
            left, top = self.spots[i - 1]
            x, y = x0 + ctx.px(left), y0 + ctx.px(top)
            w, h = ctx.px(c.width or 0), ctx.px(c.height or 0)
            c.layout(ctx, x, y, max(0, min(w, x1 - x)), max(0, min(h, y1 - y)))


@dataclass
class Shown:
    """The page as last read from the browser."""

    url: str
    title: str = ""
    nodes: list[Node] = field(default_factory=list)
    stamp: int = 0  # when the pixels were taken: a picture's cache key, unique across pages and tasks
    read_at: float = 0.0
    error: str = ""


class Chrome(App):
    package = PKG
    label = "Chrome"
    main_activity = MAIN
    icon = "chrome"
    icon_color = "#1A73E8"
    version_name = "120.0.6099.230"
    intent_filters = (
        IntentFilter(
            MAIN,
            (VIEW,),
            (DEFAULT, BROWSABLE),
            mime_types=("text/html", "application/xhtml+xml"),  # text/plain stays with Markor
            schemes=("file", "content"),
        ),
        IntentFilter(MAIN, (VIEW,), (DEFAULT, BROWSABLE), schemes=("http", "https")),
    )

    def __init__(self, device: SimDevice) -> None:
        super().__init__(device)
        self.browser: Browser | None = None
        self.shown: Shown | None = None

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    # ---- lifecycle
    def create_data(self) -> None:
        self.stopped()  # `pm clear` ends the app's process

    def stopped(self) -> None:
        if self.browser is not None:
            self.browser.close()
        self.browser, self.shown = None, None

    # ---- the page
    def viewport(self) -> tuple[int, int, float]:
        """The content area in dp (CSS pixels) and the device pixels per dp."""
        m = self.device.services.window.metrics
        width = round(m.width / m.scale)
        height = round((m.height - m.status_bar - m.nav_bar) / m.scale) - TOOLBAR_DP
        return width, height, m.scale

    def load(self, url: str) -> Shown:
        shown = Shown(url)
        parts = urlsplit(url)
        exe = binary()
        if parts.scheme != "file":
            shown.error = f"{url} cannot be opened: this device has no network."
            return shown
        if exe is None:
            shown.error = MISSING
            return shown
        try:
            source = self.device.fs.host(unquote(parts.path))
        except PathEscapeError:
            source = None
        if source is None or not source.is_file():
            shown.error = (
                f"Your file couldn't be accessed. It may have been moved, edited or deleted. ({url})"
            )
            return shown
        for attempt in range(1, STARTS + 1):
            try:
                if self.browser is None:
                    self.browser = Browser(exe, *self.viewport())
                self.browser.open(source)
                break
            except (BrowserError, OSError) as e:
                self.stopped()
                if attempt == STARTS:
                    shown.error = f"This page can't be shown: {e}"
        return shown

    def read(self, shown: Shown) -> None:
        """Title, nodes and pixels of the page, now."""
        if self.browser is None or shown.error:
            return
        try:
            shown.title, shown.nodes = self.browser.scan()
            png = self.browser.screenshot()
        except BrowserError as e:
            self.stopped()
            shown.error = f"This page can't be shown: {e}"
            return
        fs = self.device.fs
        fs.mkdir(SHOT.rsplit("/", 1)[0], parents=True)
        fs.write_bytes(SHOT, png)
        shown.stamp = time.monotonic_ns()
        shown.read_at = time.monotonic()

    def current(self, ctx: ScreenContext) -> Shown | None:
        """The page this activity shows, loaded and read as needed."""
        url = str(ctx.state.get("url") or ctx.extras.get("data") or "")
        if not url:
            return None
        ctx.state["url"] = url
        shown = self.shown
        if shown is None or shown.url != url:
            shown = self.shown = self.load(url)
            self.read(shown)
        elif time.monotonic() - shown.read_at > REFRESH_S:
            self.read(shown)
        return shown  # a page that failed shows its error (the browser and self.shown are gone)

    def act(self, ctx: ScreenContext, action: str, node: Node, *args: float) -> None:
        """Do something to the page, then read it again."""
        shown = self.shown
        if self.browser is None or shown is None:
            return
        x, y, w, h = node.box
        try:
            if action == "click":
                self.browser.click(x + w / 2, y + h / 2)
            elif action == "stroke":
                fx1, fy1, fx2, fy2 = args
                points = [
                    (
                        x + w * (fx1 + (fx2 - fx1) * i / STROKE_STEPS),
                        y + h * (fy1 + (fy2 - fy1) * i / STROKE_STEPS),
                    )
                    for i in range(STROKE_STEPS + 1)
                ]
                self.browser.drag(points)
        except BrowserError as e:
            self.stopped()
            ctx.toast(f"Chrome: {e}")
            return
        self.read(shown)

    def sync_fields(self, ctx: ScreenContext, shown: Shown) -> None:
        """Text typed into a field's view becomes the page field's value."""
        if self.browser is None:
            return
        changed = False
        for node in shown.nodes:
            key = f"web{node.index}"
            if node.kind == "input" and key in ctx.state.get("fields", {}) and ctx.field(key) != node.text:
                try:
                    self.browser.set_value(node.index, ctx.field(key))
                except BrowserError:
                    continue
                changed = True
        if changed:
            self.read(shown)

    # ---- screen
    def main(self, ctx: ScreenContext) -> View:
        shown = self.current(ctx)
        if shown is not None:
            self.sync_fields(ctx, shown)
        url = shown.url if shown is not None else ""
        bar = Row(
            id="toolbar",
            height=TOOLBAR_DP,
            bg="surface_container",
            pad=(8, 6, 8, 6),
            spacing=8,
            children=[
                Icon(id="home_button", name="nav_home", desc="Home", size=24),
                Text(
                    id="url_bar",
                    text=url or "Search or type URL",
                    size=16,
                    color="on_surface" if url else "on_surface_variant",
                    bg="surface",
                    radius=22,
                    pad=(16, 10, 16, 10),
                    weight=1,
                ),
            ],
        )
        if shown is None:
            content: View = Column(
                id="ntp_content",
                pad=(24, 96, 24, 0),
                weight=1,
                children=[Text(text="Chrome", size=32, gravity="center", color="primary")],
            )
        elif shown.error:
            content = Column(
                id="error_page",
                pad=(24, 48, 24, 0),
                weight=1,
                children=[Text(id="error_text", text=shown.error, size=16, lines=8)],
            )
        else:
            content = self.page(ctx, shown)
        return Stack(bg="surface", children=[Column(children=[bar, content])])

    def page(self, ctx: ScreenContext, shown: Shown) -> View:
        children: list[View] = [
            Picture(id="page_pixels", source=str(self.device.fs.host(SHOT)), stamp=f"page{shown.stamp}")
        ]
        spots: list[tuple[float, float]] = []
        for node in shown.nodes:
            x, y, w, h = node.box
            view: View
            if node.kind == "text":
                view = WebText(text=node.text, width=w, height=h)
            elif node.kind == "button":
                view = WebButton(
                    text=node.text, desc=node.label, width=w, height=h, on_click=self.clicker(ctx, node)
                )
            elif node.kind == "input":
                key = f"web{node.index}"
                value = ctx.field(key, node.text)
                view = EditText(
                    key=key, hint=node.hint, text=value, style="plain", bg="#FFFFFF", width=w, height=h
                )
            else:
                view = DrawingPad(desc=node.label, width=w, height=h, on_stroke=self.stroker(ctx, node))
            children.append(view)
            spots.append((x, y))
        width, height, _ = self.viewport()
        return WebPage(
            id="compositor_view_holder", weight=1, children=children, spots=spots, viewport=(width, height)
        )

    def clicker(self, ctx: ScreenContext, node: Node) -> Callable[[], None]:
        return lambda: self.act(ctx, "click", node)

    def stroker(self, ctx: ScreenContext, node: Node) -> Callable[[float, float, float, float], None]:
        return lambda x1, y1, x2, y2: self.act(ctx, "stroke", node, x1, y1, x2, y2)
