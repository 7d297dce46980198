"""The window manager: composes system bars, the resumed activity and the keyboard; input and output.

A frame is composed from app state and kept until the device notes a change (`SimDevice.changed`:
any write through the shell, sync, input, uiautomator2 or the console), the clock's second turns or
the window manager's own state moves, so a change made behind the UI's back (`content insert`,
`settings put`, a snapshot load) always shows while a screenshot, a dump and the next tap share one
composition. What is expensive, rendering, PNG encoding and XML, is kept by the frame's signature
in a cache that all devices of the process share. Rendering draws again only the bands of the
screen that changed since the last frame the thread drew (`ui/redraw.py`, which keeps that frame),
or, for the frame file, since this device's last frame (the thread's is mostly another device's).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from mgfarm.sim.apps.base import MINUTE_MS, ScreenContext, now_ms
from mgfarm.sim.system.clock import local_time
from mgfarm.sim.ui import keyboard as kb
from mgfarm.sim.ui.framecache import SHARED, Screen
from mgfarm.sim.ui.pickers import Dial
from mgfarm.sim.ui.png import PngEncoder
from mgfarm.sim.ui.redraw import (
    Seen,
    draw_over,
    drawn_since,
    flatten,
    last_image,
    last_tag,
    merge,
    note,
    render_frame,
    view_keys,
)
from mgfarm.sim.ui.shade import quick_settings
from mgfarm.sim.ui.systembars import SYSTEMUI, clock_text, nav_bar, status_bar
from mgfarm.sim.ui.theme import DARK, LIGHT, NAV_BAR_DP, Metrics, Palette
from mgfarm.sim.ui.views import (
    DrawingPad,
    EditText,
    LayoutCtx,
    Scrim,
    Scroll,
    Slider,
    Stack,
    Text,
    View,
    compute_clip,
)
from mgfarm.sim.ui.xmldump import dump

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice
    from mgfarm.sim.system.activities import ActivityManager, ActivityRecord

KEY_HOME, KEY_BACK, KEY_ENTER, KEY_DEL, KEY_APP_SWITCH = 3, 4, 66, 67, 187
KEY_POWER, KEY_SLEEP, KEY_WAKEUP = 26, 223, 224
KEY_SPACE, KEY_TAB = 62, 61
KEY_ENDCALL = 6
LONG_PRESS_MS = 500
RECENTS_ACTIVITY = "com.android.quickstep.RecentsActivity"
LAUNCHER = "com.android.launcher3"
LOG = logging.getLogger(__name__)
V = TypeVar("V", bound="View")

BLOCKED = Stack()  # hit-test result for a tap swallowed by a dialog card


@dataclass
class Frame:
    """One composed screen: laid-out trees plus what input handling needs."""

    ctx: ScreenContext | None
    lctx: LayoutCtx
    palette: Palette
    app_root: View
    package: str
    status: View
    nav: View
    keyboard: View | None
    light_bars: bool
    shade: View | None = None  # the notification shade, over everything but the bars

    def input_roots(self) -> list[View]:
        """Top-most first, for hit testing."""
        if self.shade is not None:
            return [self.nav, self.status, self.shade]
        roots = [self.nav, self.status]
        if self.keyboard is not None:
            roots.insert(1, self.keyboard)
        return [*roots, self.app_root]

    def draw_roots(self) -> list[View]:
        roots = [self.app_root]
        if self.keyboard is not None:
            roots.append(self.keyboard)
        if self.shade is not None:
            roots.append(self.shade)
        return [*roots, self.status, self.nav]


def _deepest(view: View, x: int, y: int, pick: Callable[[View], V | None]) -> V | None:
    """What `pick` finds in the deepest view under (x, y) that it accepts, top-most sibling first."""
    x0, y0, x1, y1 = view.clip
    if not (x0 <= x < x1 and y0 <= y < y1):
        return None
    for child in reversed(view.children):
        found = _deepest(child, x, y, pick)
        if found is not None:
            return found
    return pick(view)


def _clickable(view: View) -> View | None:
    if view.enabled and (view.clickable or view.long_clickable):
        return view
    if view.blocks:
        return BLOCKED
    return None


def _scrollable(view: View) -> Scroll | None:
    return view if isinstance(view, Scroll) and view.scrollable else None


def hit(view: View, x: int, y: int) -> View | None:
    """The deepest clickable view under (x, y), top-most sibling first."""
    return _deepest(view, x, y, _clickable)


def scroll_at(view: View, x: int, y: int) -> Scroll | None:
    """The deepest scrollable view under (x, y), top-most sibling first."""
    return _deepest(view, x, y, _scrollable)


def modal_at(view: View, x: int, y: int) -> Scrim | None:
    """The dialog (its scrim) a touch at (x, y) lands in, if one is shown there: like a dialog's
    window, it takes every touch, so nothing beneath it scrolls or takes a gesture."""
    return _deepest(view, x, y, lambda v: v if isinstance(v, Scrim) else None)


def signature(keys: list[str], extra: str) -> str:
    """Everything that decides the pixels of a frame, as one string (the cache key), from what
    decides each view's (`redraw.view_keys`)."""
    return "\x1f".join([extra, *keys])


def reduced(
    image: Any, scale: int, rows: list[tuple[int, int]] | None
) -> tuple[Any, list[tuple[int, int]] | None]:
    """`image.reduce(scale)`, and the rows of it that `rows` of `image` make. With rows known, only
    those are made: each band widened to whole blocks of `scale` rows is reduced on its own, which
    gives the rows the whole image's reduce gives (the blocks are the same), for a fraction of it."""
    from PIL import Image

    if rows is None:
        return image.reduce(scale), None
    width, height = image.size
    out = Image.new("RGB", (-(-width // scale), -(-height // scale)))
    made: list[tuple[int, int]] = []
    for y0, y1 in rows:
        top, bottom = y0 // scale, -(-y1 // scale)
        band = image.crop((0, top * scale, width, min(height, bottom * scale))).reduce(scale)
        out.paste(band, (0, top))
        made.append((top, top + band.height))
    return out, merge(made, out.height)


def _input(method: Callable[..., None]) -> Callable[..., None]:
    """An input event: the device notes a change when it is over, unless the event found that it
    could do nothing (`_no_effect`: a tap beside every control, a scroll past a list's end)."""

    @functools.wraps(method)
    def run(self: WindowManager, *args: Any) -> None:
        self._no_effect = False
        try:
            method(self, *args)
        finally:
            if not self._no_effect:
                self.device.changed()
            self._no_effect = False

    return run


class WindowManager:
    """`device.services.window`: input events in, screenshots and uiautomator XML out."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        cfg = device.config
        self.physical = Metrics(cfg.width, cfg.height, cfg.density)  # the panel, natural (portrait) way up
        self.metrics = self.physical  # the display as apps see it: width and height swap in landscape
        self.rotation = 0  # Surface.ROTATION_*: quarter turns of the content counter-clockwise
        self.ime_visible = False
        self.shade_open = False
        self.shifted = False
        self.screen_on = True
        self.toast: str | None = None
        self._no_effect = False  # set by an input event that found nothing to do (see `_input`)
        self._frame: Frame | None = None
        self._frame_key: tuple[object, ...] = ()
        self._sig = ""  # signature of the kept frame, "" until asked for
        self._keys: list[str] = []  # what decides each of its views' pixels, in drawing order
        self._seen = Seen()  # what decided the last frame drawn for this device (redraw's, no image)
        self._screen_sig = ""
        self._screen = Screen()
        self._digest = b""  # 16-byte digest of `_screen_sig` (`frame_digest`)
        self._encoder = PngEncoder()
        self._last_resumed: str | None = None

    # ---- properties of the display
    @property
    def size(self) -> tuple[int, int]:
        """The physical size (`wm size`), whatever the rotation."""
        return (self.physical.width, self.physical.height)

    @property
    def display_size(self) -> tuple[int, int]:
        """The display's size in its current rotation (screenshots, dumps and `input` coordinates)."""
        self.frame()
        return (self.metrics.width, self.metrics.height)

    def current_rotation(self) -> int:
        """The display's rotation, 0-3, as the current frame shows it."""
        self.frame()
        return self.rotation

    def keyboard_shown(self) -> bool:
        """Whether the soft keyboard is on screen (`dumpsys input_method`'s mInputShown)."""
        return self.frame().keyboard is not None

    def _wanted_rotation(self, package: str | None) -> int:
        """DisplayRotation.rotationForOrientation (Android 13) for the sim's activities.

        Launcher3 on a phone requests SCREEN_ORIENTATION_NOSENSOR (home rotation is off), which
        ignores both the sensor and the user's lock: the natural rotation. Every other activity leaves
        its orientation unspecified, so the display follows `user_rotation` while
        `accelerometer_rotation` is 0 and the sensor (console `rotate`, gRPC physical rotation)
        otherwise; a phone never turns upside down by the sensor, it keeps the rotation it had.
        """
        if package == LAUNCHER:
            return 0
        if self.device.services.settings.get_int("system", "accelerometer_rotation", 0) != 0:
            # The sensor counts the device's clockwise quarter turns; the content turns back.
            sensor = -self.device.services.telephony.radio.rotation % 4
            return self.rotation if sensor == 2 else sensor
        user = self.device.services.settings.get_int("system", "user_rotation", 0)
        return user if 0 <= user <= 3 else 0

    @property
    def density(self) -> int:
        return self.metrics.density

    @property
    def am(self) -> ActivityManager:
        return self.device.services.activities

    def palette(self) -> Palette:
        night = self.device.services.settings.get("secure", "ui_night_mode")
        return DARK if night == "2" else LIGHT

    # ---- composing a frame
    def build(self) -> Frame:
        rec = self.am.resumed_record()
        self.rotation = self._wanted_rotation(rec.package if rec is not None else None)
        p = self.physical
        self.metrics = Metrics(p.height, p.width, p.density) if self.rotation % 2 else p
        m = self.metrics
        resumed_key = f"{rec.package}/{rec.activity}#{rec.serial}" if rec else None
        if resumed_key != self._last_resumed:
            # A different activity came forward: its window starts without the keyboard.
            self._last_resumed = resumed_key
            self.ime_visible = False
        if rec is not None and rec.state.pop("show_ime", False):
            self.ime_visible = True
        ctx: ScreenContext | None = None
        package = "android"
        app = self.device.services.apps.get(rec.package) if rec is not None else None
        if rec is not None and app is not None:
            ctx = ScreenContext(self.device, app, rec)
            builder = app.activities.get(rec.activity)
            try:
                content = builder(ctx) if builder else Stack()
            except Exception:
                if rec.package == LAUNCHER:
                    raise
                self._crashed(rec.package, app.label)
                return self.build()
            package = rec.package
        else:
            content = Stack()
        lctx = LayoutCtx(
            m, dict(rec.state.get("scroll", {})) if rec else {}, rec.state.get("focus") if rec else None
        )
        edge = ctx.edge_to_edge if ctx else False
        focus_field = lctx.focus is not None
        if not focus_field:
            self.ime_visible = False  # the keyboard leaves with the last focused field
        show_keyboard = self.ime_visible and focus_field
        key_h = kb.LANDSCAPE_KEY_DP if self.rotation % 2 else kb.KEY_DP
        kb_h = m.px(kb.height_dp(key_h)) if show_keyboard else 0
        # Where the navigation bar stands: the bottom, or in landscape the side that is the device's
        # physical bottom (a phone's bar moves); windows other than the bar keep out of its column.
        side = {1: "right", 3: "left"}.get(self.rotation, "bottom")
        bar_x0, bar_x1 = 0, m.width
        if side == "right":
            bar_x1 = m.width - m.nav_bar
        elif side == "left":
            bar_x0 = m.nav_bar
        bottom_bar = m.nav_bar if side == "bottom" else 0
        left, right = (0, m.width) if edge else (bar_x0, bar_x1)
        top = 0 if edge else m.status_bar
        bottom = m.height - (0 if edge else bottom_bar) - kb_h
        children: list[View] = [content]
        if self.toast:
            toast: View = Text(
                id="snackbar_text",
                text=self.toast,
                bg="inverse_surface",
                color="inverse_on_surface",
                radius=4,
                pad=(16, 14, 16, 14),
                align="bottom",
                width=360,
                lines=2,
                size=14,
            )
            if edge and bottom_bar:
                # A toast is a system window above the navigation bar, also over an app drawn
                # behind the bars (the home screen): held up by the bar's height, less the margin
                # both it and its holder keep from the bottom.
                toast = Stack(align="bottom", pad=(0, 0, 0, NAV_BAR_DP - 16), children=[toast])
            children.append(toast)
        app_area = Stack(id="android:id/content", children=children)
        app_root = Stack(children=[app_area])
        app_root.bounds = (0, 0, m.width, m.height)
        try:
            app_area.layout(lctx, left, top, right - left, bottom - top)
        except Exception:
            # A view the app built from odd data (a value it did not check) fails to lay out: the
            # app stops, as its TextView would have thrown, instead of every later frame failing.
            if ctx is None or package == LAUNCHER:
                raise
            self._crashed(package, ctx.app.label)
            return self.build()
        palette = self.palette()
        see_through = edge and not self.shade_open  # bars drawn over the wallpaper, not over a panel
        status = status_bar(self._clock(), *self._radio_state(), light_icons=see_through or palette is DARK)
        status.layout(lctx, bar_x0, 0, bar_x1 - bar_x0, m.status_bar)
        nav = nav_bar(
            lambda: self.key(KEY_BACK),
            lambda: self.key(KEY_HOME),
            lambda: self.key(KEY_APP_SWITCH),
            light_icons=see_through or palette is DARK,
            bg=None if see_through else "surface_container",
            side=side,
        )
        if side == "bottom":
            nav.layout(lctx, 0, m.height - m.nav_bar, m.width, m.nav_bar)
        else:
            nav.layout(lctx, 0 if side == "left" else bar_x1, 0, m.nav_bar, m.height)
        keyboard_view: View | None = None
        if show_keyboard:
            keyboard_view = kb.keyboard(self.text, self.key, self.shifted, self._toggle_shift, key_h)
            keyboard_view.layout(lctx, bar_x0, m.height - bottom_bar - kb_h, bar_x1 - bar_x0, kb_h)
        shade_view: View | None = None
        if self.shade_open:
            shade_view = quick_settings(self.device.services.settings, self._open_settings, self._close_shade)
            shade_view.layout(lctx, bar_x0, 0, bar_x1 - bar_x0, m.height - bottom_bar)
        screen = (0, 0, m.width, m.height)
        for root in (app_root, status, nav, keyboard_view, shade_view):
            if root is not None:
                compute_clip(root, screen)
        return Frame(ctx, lctx, palette, app_root, package, status, nav, keyboard_view, edge, shade_view)

    def _open_settings(self) -> None:
        self.shade_open = False
        self.am.launch("com.android.settings")

    def _close_shade(self) -> None:
        self.shade_open = False

    def _clock(self) -> str:
        h24 = self.device.services.settings.get("system", "time_12_24") == "24"
        return clock_text(local_time(self.device.props, now_ms(self.device) / 1000), h24)

    def _radio_state(self) -> tuple[bool, bool, bool]:
        settings = self.device.services.settings
        return (
            settings.get("global", "wifi_on") == "1",
            settings.get("global", "bluetooth_on") == "1",
            settings.get("global", "airplane_mode_on") == "1",
        )

    def _key(self, frame: Frame) -> tuple[object, ...]:
        """What `frame` depends on besides the device's state (its epoch). The time: to the finest
        unit its app shows (a stopwatch: seconds), else to the minute of the status bar's clock. On
        a farm most steps are more than a second apart: a key to the second for every screen made
        the next input compose the screen again."""
        tick = now_ms(self.device) // (frame.ctx.tick_ms if frame.ctx is not None else MINUTE_MS)
        return (self.device.epoch, tick, self.toast, self.ime_visible, self.shade_open, self.shifted)

    def frame(self) -> Frame:
        """The current frame: the kept one while nothing it depends on changed, else a new one."""
        if self._frame is None or self._frame_key != self._key(self._frame):
            self._frame = self.build()
            self._frame_key = self._key(self._frame)  # after: composing may settle the keyboard
            self._sig = ""
        return self._frame

    def _refresh(self) -> Frame:
        frame = self.frame()
        if not self._sig:
            extra = f"{frame.package}|{frame.palette.name}|{self.screen_on}|{frame.light_bars}"
            extra += f"|{self.rotation}"
            self._keys = view_keys(frame.draw_roots())
            sig = signature(self._keys, extra)
            if sig != self._screen_sig:
                self._screen = SHARED.screen(sig)
                self._screen_sig = sig
                self._digest = b""
            self._sig = sig
        return frame

    # ---- output
    def screencap_png(self) -> bytes:
        frame = self._refresh()
        screen = self._screen
        if screen.png is None:
            SHARED.fill(screen, png=self._encoder.encode(self._render(frame)))
        assert screen.png is not None
        return screen.png

    def frame_digest(self) -> bytes:
        """16 bytes naming what decides the current frame's pixels: equal digests, equal pixels."""
        self._refresh()
        if not self._digest:
            self._digest = hashlib.blake2b(self._screen_sig.encode(), digest_size=16).digest()
        return self._digest

    def frame_image(self, scale: int = 1, over: bytes = b"") -> tuple[Any, list[tuple[int, int]] | None]:
        """The current frame as an RGB image for the shared frame file (this thread's until it
        renders again; `scale` 2 halves each side, every output pixel the mean of a 2x2 block,
        Pillow's `reduce`), and the only rows in which it differs from the frame whose digest is
        `over`, when it was drawn over that one (else None: any row may differ). Made smaller with
        rows known, only those rows of the image are drawn (the file holds the others).

        When the thread's image is not frame `over` (another device of the worker drew since),
        the rows that differ from this device's last frame are drawn alone, when that frame is
        `over`: then only those rows of the image returned are this frame's."""
        frame = self._refresh()
        if self.screen_on and over and over != last_tag():
            roots = frame.draw_roots()
            drawn = draw_over(
                self._seen,
                over,
                roots,
                frame.lctx,
                frame.palette,
                self._keys,
                tag=self.frame_digest(),
                align=scale,
            )
            if drawn is not None:
                bands_image, bands = drawn
                return reduced(bands_image, scale, bands) if scale > 1 else (bands_image, bands)
        image = self._render(frame)
        rows = drawn_since(over) if image is last_image() else None
        if image.mode != "RGB":
            image = image.convert("RGB")
        if scale > 1:
            return reduced(image, scale, rows)
        return image, rows

    def frame_copied(self) -> None:
        """The current frame's pixels reached the frame file from a copy (the worker's raw frames),
        not from drawing: note what decides them, so the next frame draws only what differs."""
        frame = self._refresh()
        digest = self.frame_digest()
        if self.screen_on and self._seen.tag != digest:
            note(self._seen, frame.draw_roots(), frame.lctx, frame.palette, self._keys, tag=digest)

    def screencap_raw(self) -> bytes:
        """`screencap` without -p: width, height, format (1 = RGBA_8888) as u32 LE, then RGBA pixels."""
        frame = self._refresh()
        image = self._render(frame).convert("RGBA")
        return struct.pack("<III", image.width, image.height, 1) + image.tobytes()

    def _render(self, frame: Frame) -> Any:
        from PIL import Image

        if not self.screen_on:
            return Image.new("RGB", (self.metrics.width, self.metrics.height), (0, 0, 0))
        roots = frame.draw_roots()
        return render_frame(
            roots, frame.lctx, frame.palette, self._keys, tag=self.frame_digest(), seen=self._seen
        )

    def dump_xml(self, all_windows: bool = False) -> str:
        """`uiautomator dump`: the active (app) window only, as by default on a device.

        `all_windows=True` adds the system UI windows (status and navigation bar) as further roots,
        the way uiautomator2's `dump_hierarchy` lists every window.
        """
        frame = self._refresh()
        screen = self._screen
        if all_windows:
            if screen.xml_all is None:
                windows = [(frame.app_root, frame.package)]
                if frame.shade is not None:
                    windows.append((frame.shade, SYSTEMUI))
                windows += [(frame.status, SYSTEMUI), (frame.nav, SYSTEMUI)]
                SHARED.fill(screen, xml_all=dump(windows, self.rotation, self._keys_by_view(frame)))
            assert screen.xml_all is not None
            return screen.xml_all
        if screen.xml is None:
            active = (
                [(frame.shade, SYSTEMUI)] if frame.shade is not None else [(frame.app_root, frame.package)]
            )
            SHARED.fill(screen, xml=dump(active, self.rotation, self._keys_by_view(frame)))
        assert screen.xml is not None
        return screen.xml

    def _keys_by_view(self, frame: Frame) -> dict[int, str]:
        """The kept frame's view keys (`_refresh` made them) by the `id` of each view, for `dump`."""
        views = flatten(frame.draw_roots())
        if len(views) != len(self._keys):  # not this frame's keys: the dump writes every tag afresh
            return {}
        return dict(zip(map(id, views), self._keys, strict=True))

    # ---- input
    def _record(self) -> ActivityRecord | None:
        return self.am.resumed_record()

    def _input_begins(self) -> bool:
        """Common start of every touch: the screen must be on; a snackbar goes away."""
        self.toast = None
        return self.screen_on

    @_input
    def tap(self, x: int, y: int) -> None:
        self._press(x, y, long=False)

    @_input
    def long_press(self, x: int, y: int) -> None:
        self._press(x, y, long=True)

    def _press(self, x: int, y: int, long: bool) -> None:
        if not self._input_begins():
            return
        frame = self.frame()
        target = self._hit(frame, x, y)
        if target is None or target is BLOCKED:
            self._no_effect = True  # nothing handles a touch there (the snackbar is in the frame's key)
            return
        self._activate(frame, target, x, y, long=long)

    def _hit(self, frame: Frame, x: int, y: int) -> View | None:
        for root in frame.input_roots():
            found = hit(root, x, y)
            if found is not None:
                return found
        return None

    def _crashed(self, package: str, label: str) -> None:
        """An app's code failed (a bug, or its data removed underneath): it stops, as Android stops it."""
        LOG.exception("%s crashed on %s", package, self.device.config.serial)
        self.am.force_stop(package)
        self.toast = f"{label} keeps stopping"

    def _guarded(self, frame: Frame, handler: Callable[[], None]) -> None:
        try:
            handler()
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
                # The partition is full (system/space.py): an app catches the IOException of its
                # write and the system warns, as DeviceStorageMonitorService does; nothing stops.
                self.toast = "Storage space running out"
                return
            if frame.package == LAUNCHER:
                raise
            label = frame.ctx.app.label if frame.ctx is not None else frame.package
            self._crashed(frame.package, label)

    def _activate(self, frame: Frame, target: View, x: int, y: int, long: bool) -> None:
        self._guarded(frame, lambda: self._dispatch(frame, target, x, y, long))

    def _dispatch(self, frame: Frame, target: View, x: int, y: int, long: bool) -> None:
        rec = self._record()
        if isinstance(target, EditText) and rec is not None:
            rec.state["focus"] = target.key
            self.ime_visible = True
            if long and target.on_long_click:
                target.on_long_click()
            return
        if isinstance(target, Slider) and target.on_change is not None:
            target.on_change(target.value_at(frame.lctx, x))
            return
        if isinstance(target, Dial) and target.on_pick is not None:  # a tap between the dial's numbers
            target.on_pick(*target.slot_at(x, y))
            return
        if long and target.on_long_click is not None:
            target.on_long_click()
        elif target.on_click is not None:
            # A long press on a view without a long-click listener still clicks on release.
            target.on_click()

    @_input
    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        slop = self.metrics.px(8)
        if abs(x2 - x1) < slop and abs(y2 - y1) < slop:
            if ms >= LONG_PRESS_MS:
                self.long_press(x1, y1)
            else:
                self.tap(x1, y1)
            return
        if not self._input_begins():
            return
        if self._shade_gesture(y1, y2):
            return
        frame = self.frame()
        target = self._hit(frame, x1, y1)
        if isinstance(target, Slider) and target.on_change is not None:
            on_change = target.on_change
            self._guarded(frame, lambda: on_change(target.value_at(frame.lctx, x2)))
            return
        if isinstance(target, DrawingPad) and target.on_stroke is not None:
            on_stroke = target.on_stroke
            start, end = target.fraction(x1, y1), target.fraction(x2, y2)
            self._guarded(frame, lambda: on_stroke(*start, *end))
            return
        rec = self._record()
        vertical = abs(y2 - y1) >= abs(x2 - x1)
        modal = modal_at(frame.app_root, x1, y1)
        scroll = scroll_at(modal or frame.app_root, x1, y1) if vertical else None
        if scroll is not None and rec is not None:
            offsets = rec.state.setdefault("scroll", {})
            # Content follows the finger; a fast fling travels further, as on a phone.
            travel = (y1 - y2) * (2 if ms < 150 else 1)
            offset = scroll.kept(min(max(0, scroll.offset + travel), scroll.max_offset))
            self._no_effect = offsets.get(scroll.key) == offset  # already there: a list's end
            offsets[scroll.key] = offset
            return
        if modal is not None:
            # Outside the dialog's card, a gesture ends outside it, which cancels it as a tap does
            # (Dialog's touch outside, a drawer's scrim); on the card it does nothing.
            dismiss = modal.on_click
            if target is modal and dismiss is not None:
                self._guarded(frame, dismiss)
                return
        elif frame.ctx is not None and frame.ctx.swipe_handler is not None:
            swiped = frame.ctx.swipe_handler
            vertical_dir = "up" if y2 < y1 else "down"
            direction = vertical_dir if vertical else ("left" if x2 < x1 else "right")
            self._guarded(frame, lambda: swiped(direction))
            return
        self._no_effect = True  # nothing scrolls or takes the gesture there

    def _shade_gesture(self, y1: int, y2: int) -> bool:
        """Down from the status bar opens the shade; up anywhere closes it."""
        if not self.shade_open and y1 < self.metrics.status_bar and y2 > y1:
            self.shade_open = True
            self.ime_visible = False
            return True
        if self.shade_open and y2 < y1:
            self.shade_open = False
            return True
        return False

    @_input
    def text(self, s: str) -> None:
        """Type into the focused field (what `input text` and the keyboard's keys do)."""
        if not self.screen_on:
            return
        rec = self._record()
        if rec is None or not rec.state.get("focus"):
            return
        frame = self.frame()
        field_view = self._focused_field(frame)
        if field_view is None or not field_view.enabled:
            return
        fields = rec.state.setdefault("fields", {})
        if not field_view.multiline:
            s = s.replace("\n", " ")
        fields[field_view.key] = fields.get(field_view.key, "") + s
        if self.shifted:
            self.shifted = False

    def _focused_field(self, frame: Frame) -> EditText | None:
        for v in frame.app_root.walk():
            if isinstance(v, EditText) and v.has_focus:
                return v
        return None

    def _toggle_shift(self) -> None:
        self.shifted = not self.shifted

    @_input
    def key(self, code: int) -> None:
        modem = self.device.services.telephony
        if code == KEY_ENDCALL and modem.calls:
            modem.hang_up()  # ENDCALL ends the call in progress (without one it would turn the screen off)
            return
        if code in (KEY_POWER, KEY_SLEEP, KEY_WAKEUP):
            self.screen_on = {KEY_POWER: not self.screen_on, KEY_SLEEP: False, KEY_WAKEUP: True}[code]
            return
        if not self._input_begins():
            return
        shade_was_open, self.shade_open = self.shade_open, False
        if code == KEY_HOME:
            self.ime_visible = False
            self.am.home()
        elif code == KEY_BACK:
            if not shade_was_open:
                self._back()
        elif code == KEY_APP_SWITCH:
            self.ime_visible = False
            self.am.start(LAUNCHER, RECENTS_ACTIVITY)
        elif shade_was_open:
            self.shade_open = True  # other keys leave the shade where it is
        elif code in (KEY_DEL, KEY_ENTER):
            self._edit_key(code)
        elif code == KEY_SPACE:
            self.text(" ")
        elif 29 <= code <= 54:
            self.text(chr(ord("a") + code - 29))
        elif 7 <= code <= 16:
            self.text(str(code - 7))

    def long_key(self, code: int) -> None:
        """`input keyevent --longpress`: the simulated screens give long key presses no extra meaning."""
        self.key(code)

    def _back(self) -> None:
        self.frame()  # settles whether the keyboard is still up
        if self.ime_visible:
            self.ime_visible = False
            return
        frame = self.frame()
        if frame.ctx is not None and frame.ctx.back_handler is not None:
            self._guarded(frame, frame.ctx.back_handler)
            return
        self.am.back()

    def _edit_key(self, code: int) -> None:
        rec = self._record()
        frame = self.frame()
        field_view = self._focused_field(frame)
        if rec is None or field_view is None:
            return
        fields = rec.state.setdefault("fields", {})
        value = fields.get(field_view.key, "")
        if code == KEY_DEL:
            fields[field_view.key] = value[:-1]
        elif field_view.multiline:
            fields[field_view.key] = value + "\n"
        elif field_view.on_submit is not None:
            self._guarded(frame, field_view.on_submit)
        else:
            self._focus_next(frame, field_view, rec)

    def _focus_next(self, frame: Frame, current: EditText, rec: ActivityRecord) -> None:
        """ENTER on a single-line field moves to the next field (IME "next"), or closes the keyboard."""
        fields = [v for v in frame.app_root.walk() if isinstance(v, EditText) and v.enabled]
        idx = fields.index(current)
        if idx + 1 < len(fields):
            rec.state["focus"] = fields[idx + 1].key
        else:
            self.ime_visible = False

    # ---- snapshots
    def export_state(self) -> dict[str, Any]:
        return {
            "shade_open": self.shade_open,
            "ime_visible": self.ime_visible,
            "screen_on": self.screen_on,
            "toast": self.toast,
            "last_resumed": self._last_resumed,
        }

    def import_state(self, state: dict[str, Any]) -> None:
        self.ime_visible = bool(state.get("ime_visible", False))
        self.shade_open = bool(state.get("shade_open", False))
        self.screen_on = bool(state.get("screen_on", True))
        self.toast = state.get("toast")
        self._last_resumed = state.get("last_resumed")
        self._frame = None
        self.device.changed()
