"""Material-style icons drawn with Pillow primitives on a 24-unit grid (like vector drawables)."""

from __future__ import annotations

from collections.abc import Callable

from PIL import ImageDraw

from mgfarm.sim.ui.theme import Color


class Pen:
    """Draws in a 24x24 viewport mapped onto a pixel box."""

    def __init__(self, draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], color: Color) -> None:
        self.d = draw
        self.x0, self.y0 = box[0], box[1]
        self.s = (box[2] - box[0]) / 24.0
        self.c = color

    def p(self, x: float, y: float) -> tuple[float, float]:
        return (self.x0 + x * self.s, self.y0 + y * self.s)

    def w(self, units: float) -> int:
        return max(1, round(units * self.s))

    def line(self, pts: list[tuple[float, float]], width: float = 2.0) -> None:
        self.d.line([self.p(x, y) for x, y in pts], fill=self.c, width=self.w(width), joint="curve")

    def poly(self, pts: list[tuple[float, float]], fill: Color | None = None) -> None:
        self.d.polygon([self.p(x, y) for x, y in pts], fill=fill or self.c)

    def rect(
        self, x0: float, y0: float, x1: float, y1: float, r: float = 0, fill: bool = True, width: float = 2.0
    ) -> None:
        a, b = self.p(x0, y0), self.p(x1, y1)
        if fill:
            self.d.rounded_rectangle((a, b), radius=r * self.s, fill=self.c)
        else:
            self.d.rounded_rectangle((a, b), radius=r * self.s, outline=self.c, width=self.w(width))

    def circle(self, cx: float, cy: float, r: float, fill: bool = True, width: float = 2.0) -> None:
        a, b = self.p(cx - r, cy - r), self.p(cx + r, cy + r)
        if fill:
            self.d.ellipse((a, b), fill=self.c)
        else:
            self.d.ellipse((a, b), outline=self.c, width=self.w(width))

    def arc(self, cx: float, cy: float, r: float, start: float, end: float, width: float = 2.0) -> None:
        a, b = self.p(cx - r, cy - r), self.p(cx + r, cy + r)
        self.d.arc((a, b), start, end, fill=self.c, width=self.w(width))

    def pie(self, cx: float, cy: float, r: float, start: float, end: float) -> None:
        a, b = self.p(cx - r, cy - r), self.p(cx + r, cy + r)
        self.d.pieslice((a, b), start, end, fill=self.c)


def _arrow_back(p: Pen) -> None:
    p.line([(20, 12), (4.5, 12)])
    p.line([(11, 5), (4, 12), (11, 19)])


def _arrow_forward(p: Pen) -> None:
    p.line([(4, 12), (19.5, 12)])
    p.line([(13, 5), (20, 12), (13, 19)])


def _chevron_right(p: Pen) -> None:
    p.line([(9, 6), (15, 12), (9, 18)])


def _chevron_left(p: Pen) -> None:
    p.line([(15, 6), (9, 12), (15, 18)])


def _search(p: Pen) -> None:
    p.circle(10, 10, 6, fill=False)
    p.line([(14.5, 14.5), (20, 20)], 2.4)


def _add(p: Pen) -> None:
    p.line([(12, 5), (12, 19)])
    p.line([(5, 12), (19, 12)])


def _close(p: Pen) -> None:
    p.line([(6, 6), (18, 18)])
    p.line([(18, 6), (6, 18)])


def _check(p: Pen) -> None:
    p.line([(5, 12.5), (9.5, 17), (19, 7.5)])


def _more_vert(p: Pen) -> None:
    for y in (6, 12, 18):
        p.circle(12, y, 1.8)


def _menu(p: Pen) -> None:
    for y in (7, 12, 17):
        p.line([(4, y), (20, y)])


def _delete(p: Pen) -> None:
    p.rect(6, 7, 18, 20, r=1.5, fill=False)
    p.line([(4, 6), (20, 6)])
    p.line([(9.5, 4), (14.5, 4)])
    p.line([(10, 10), (10, 17)], 1.6)
    p.line([(14, 10), (14, 17)], 1.6)


def _edit(p: Pen) -> None:
    p.poly([(4, 20), (4.5, 16), (16, 4.5), (19.5, 8), (8, 19.5)])


def _star(p: Pen, fill: bool = True) -> None:
    pts = [
        (12, 2.5),
        (14.6, 8.9),
        (21.5, 9.3),
        (16.1, 13.7),
        (17.9, 20.4),
        (12, 16.6),
        (6.1, 20.4),
        (7.9, 13.7),
        (2.5, 9.3),
        (9.4, 8.9),
    ]
    if fill:
        p.poly(pts)
    else:
        p.line([*pts, pts[0]], 1.8)


def _star_outline(p: Pen) -> None:
    _star(p, fill=False)


def _person(p: Pen) -> None:
    p.circle(12, 8, 4)
    p.d.chord((p.p(4, 13), p.p(20, 29)), 180, 360, fill=p.c)


def _phone(p: Pen) -> None:
    p.poly(
        [
            (6.5, 3),
            (10, 3),
            (11, 8),
            (8.7, 10),
            (14, 15.3),
            (16, 13),
            (21, 14),
            (21, 17.5),
            (19, 20.5),
            (15, 20),
            (9, 16),
            (5, 11),
            (3.5, 7),
        ]
    )


def _call_end(p: Pen) -> None:
    # A handset lying flat, ear and mouth pieces turned down: the hang-up button.
    p.arc(12, 17, 9.5, 200, 340, 3.6)
    p.poly([(2.2, 13.2), (6.6, 12.0), (7.4, 15.8), (3.4, 17.2)])
    p.poly([(21.8, 13.2), (17.4, 12.0), (16.6, 15.8), (20.6, 17.2)])


def _message(p: Pen) -> None:
    p.rect(3, 4, 21, 17, r=2)
    p.poly([(6, 16), (6, 21), (11, 16)])


def _send(p: Pen) -> None:
    p.poly([(3, 20), (21, 12), (3, 4), (3, 10.5), (15, 12), (3, 13.5)])


def _settings(p: Pen) -> None:
    import math

    for i in range(8):
        a = math.radians(i * 45)
        ca, sa = math.cos(a), math.sin(a)
        pts = []
        for r, w in ((6.5, 2.2), (10.2, 1.7), (10.2, -1.7), (6.5, -2.2)):
            pts.append((12 + r * ca - w * sa, 12 + r * sa + w * ca))
        p.poly(pts)
    p.circle(12, 12, 5.6, fill=False, width=3.4)


def _wifi(p: Pen) -> None:
    p.pie(12, 20, 17, 225, 315)


def _wifi_off(p: Pen) -> None:
    p.arc(12, 20, 16, 225, 315, 1.6)
    p.line([(4, 4), (20, 20)], 1.8)


def _bluetooth(p: Pen) -> None:
    p.line([(7, 7), (17, 16), (12, 21), (12, 3), (17, 8), (7, 17)], 1.8)


def _airplane(p: Pen) -> None:
    p.poly(
        [
            (11, 2.5),
            (13, 2.5),
            (13.5, 9),
            (21, 13.5),
            (21, 15.5),
            (13.5, 13.5),
            (13.2, 18.5),
            (15.5, 20.5),
            (15.5, 21.5),
            (12, 20.8),
            (8.5, 21.5),
            (8.5, 20.5),
            (10.8, 18.5),
            (10.5, 13.5),
            (3, 15.5),
            (3, 13.5),
            (10.5, 9),
        ]
    )


def _brightness(p: Pen) -> None:
    p.circle(12, 12, 4.5)
    for x, y, x2, y2 in (
        (12, 2, 12, 5),
        (12, 19, 12, 22),
        (2, 12, 5, 12),
        (19, 12, 22, 12),
        (5, 5, 7, 7),
        (17, 17, 19, 19),
        (5, 19, 7, 17),
        (17, 7, 19, 5),
    ):
        p.line([(x, y), (x2, y2)], 1.8)


def _dark_mode(p: Pen) -> None:
    p.circle(12, 12, 9, fill=False, width=1.8)
    p.d.pieslice((p.p(3, 3), p.p(21, 21)), 90, 270, fill=p.c)


def _volume(p: Pen) -> None:
    p.poly([(3, 9), (7, 9), (12, 4.5), (12, 19.5), (7, 15), (3, 15)])
    p.arc(12, 12, 4.5, -50, 50, 1.8)
    p.arc(12, 12, 8, -55, 55, 1.8)


def _schedule(p: Pen) -> None:
    p.circle(12, 12, 9, fill=False)
    p.line([(12, 7), (12, 12), (16, 14.5)], 1.8)


def _keyboard(p: Pen) -> None:
    p.rect(2, 5, 22, 19, r=2, fill=False, width=1.8)
    for y in (8.5, 11.5):
        for x in (5, 8, 11, 14, 17):
            p.rect(x, y, x + 2, y + 2)
    p.rect(7, 15, 17, 16.5)


def _alarm(p: Pen) -> None:
    p.circle(12, 13, 7.5, fill=False)
    p.line([(12, 9), (12, 13), (15, 15)], 1.8)
    p.line([(3, 6), (7, 2.8)], 1.8)
    p.line([(21, 6), (17, 2.8)], 1.8)


def _timer(p: Pen) -> None:
    p.circle(12, 13.5, 7.5, fill=False)
    p.line([(12, 13.5), (12, 9)], 1.8)
    p.line([(9.5, 2.5), (14.5, 2.5)], 1.8)


def _stopwatch(p: Pen) -> None:
    p.circle(12, 13.5, 7.5, fill=False)
    p.line([(12, 13.5), (15, 10.5)], 1.8)
    p.line([(12, 2.5), (12, 5.5)], 1.8)
    p.line([(18, 5.5), (19.5, 7)], 1.8)


def _language(p: Pen) -> None:
    p.circle(12, 12, 9, fill=False, width=1.6)
    p.d.ellipse((p.p(8, 3), p.p(16, 21)), outline=p.c, width=p.w(1.6))
    p.line([(3, 12), (21, 12)], 1.6)


def _calendar(p: Pen) -> None:
    p.rect(3.5, 5, 20.5, 21, r=2, fill=False)
    p.rect(3.5, 5, 20.5, 9.5, r=1.5)
    p.line([(8, 2.5), (8, 6.5)])
    p.line([(16, 2.5), (16, 6.5)])
    p.rect(7, 12.5, 10, 15.5)


def _folder(p: Pen) -> None:
    p.poly([(2.5, 5), (9.5, 5), (11.5, 7), (21.5, 7), (21.5, 19), (2.5, 19)])


def _file(p: Pen) -> None:
    p.poly([(5, 2.5), (14, 2.5), (19.5, 8), (19.5, 21.5), (5, 21.5)])


def _image(p: Pen) -> None:
    p.rect(3, 4, 21, 20, r=2, fill=False)
    p.poly([(5, 18), (10, 11), (13, 15), (15.5, 12.5), (19, 18)])


def _download(p: Pen) -> None:
    p.line([(12, 3), (12, 15)])
    p.line([(7, 10), (12, 15), (17, 10)])
    p.line([(5, 20), (19, 20)])


def _note(p: Pen) -> None:
    p.rect(4, 3, 20, 21, r=2, fill=False)
    for y in (8, 12, 16):
        p.line([(7.5, y), (16.5, y)], 1.6)


def _dialpad(p: Pen) -> None:
    for row in range(4):
        for col in range(3):
            if row == 3 and col != 1:
                continue
            p.circle(6 + col * 6, 3.5 + row * 5.7, 1.9)


def _backspace(p: Pen) -> None:
    p.line([(8, 5), (21, 5), (21, 19), (8, 19), (2.5, 12), (8, 5)], 1.8)
    p.line([(11, 9), (17, 15)], 1.8)
    p.line([(17, 9), (11, 15)], 1.8)


def _history(p: Pen) -> None:
    p.arc(13, 12, 8, 150, 500, 1.8)
    p.line([(13, 8), (13, 12), (16, 14)], 1.8)
    p.poly([(2, 10.5), (8, 10.5), (5, 14.5)])


def _shift(p: Pen) -> None:
    p.line([(12, 4), (4, 12.5), (8.5, 12.5), (8.5, 19), (15.5, 19), (15.5, 12.5), (20, 12.5), (12, 4)], 1.7)


def _enter(p: Pen) -> None:
    p.line([(19, 5), (19, 14), (5, 14)], 1.9)
    p.line([(9, 10), (5, 14), (9, 18)], 1.9)


def _play(p: Pen) -> None:
    p.poly([(7, 4), (20, 12), (7, 20)])


def _pause(p: Pen) -> None:
    p.rect(6, 5, 10, 19)
    p.rect(14, 5, 18, 19)


def _stop(p: Pen) -> None:
    p.rect(6, 6, 18, 18, r=1)


def _apps(p: Pen) -> None:
    for row in range(3):
        for col in range(3):
            p.rect(4 + col * 6.5, 4 + row * 6.5, 7 + col * 6.5, 7 + row * 6.5)


def _info(p: Pen) -> None:
    p.circle(12, 12, 9, fill=False)
    p.line([(12, 11), (12, 17)])
    p.circle(12, 7.5, 1.2)


def _nav_back(p: Pen) -> None:
    p.line([(16, 4), (6, 12), (16, 20), (16, 4)], 1.8)


def _nav_home(p: Pen) -> None:
    p.circle(12, 12, 8, fill=False, width=1.9)


def _nav_recents(p: Pen) -> None:
    p.rect(5, 5, 19, 19, r=1.5, fill=False, width=1.8)


def _battery(p: Pen) -> None:
    p.rect(8.5, 2, 15.5, 4, r=0.5)
    p.rect(7, 3.5, 17, 22, r=1.5)


def _signal(p: Pen) -> None:
    p.poly([(3, 21), (21, 21), (21, 3)])


def _label(p: Pen) -> None:
    p.poly([(3, 6), (15, 6), (21, 12), (15, 18), (3, 18)])


def _attach_money(p: Pen) -> None:
    from mgfarm.sim.ui.fonts import font

    size = max(1, round(22 * p.s))
    p.d.text(p.p(12, 12.5), "$", font=font(size, True), fill=p.c, anchor="mm")


def _camera(p: Pen) -> None:
    p.poly([(3, 7), (8, 7), (9.5, 4.5), (14.5, 4.5), (16, 7), (21, 7), (21, 19.5), (3, 19.5)])


def _chrome(p: Pen) -> None:
    p.circle(12, 12, 9.5, fill=False, width=2.5)
    p.circle(12, 12, 4)


def _mic(p: Pen) -> None:
    p.rect(9, 3, 15, 14, r=3)
    p.arc(12, 10, 6.5, 20, 160, 1.8)
    p.line([(12, 16.5), (12, 21)], 1.8)


ICONS: dict[str, Callable[[Pen], None]] = {
    "arrow_back": _arrow_back,
    "arrow_forward": _arrow_forward,
    "chevron_right": _chevron_right,
    "chevron_left": _chevron_left,
    "search": _search,
    "add": _add,
    "close": _close,
    "check": _check,
    "more_vert": _more_vert,
    "menu": _menu,
    "delete": _delete,
    "edit": _edit,
    "star": _star,
    "star_outline": _star_outline,
    "person": _person,
    "phone": _phone,
    "call_end": _call_end,
    "message": _message,
    "send": _send,
    "settings": _settings,
    "wifi": _wifi,
    "wifi_off": _wifi_off,
    "bluetooth": _bluetooth,
    "airplane": _airplane,
    "brightness": _brightness,
    "dark_mode": _dark_mode,
    "volume": _volume,
    "schedule": _schedule,
    "alarm": _alarm,
    "keyboard": _keyboard,
    "timer": _timer,
    "stopwatch": _stopwatch,
    "language": _language,
    "calendar": _calendar,
    "folder": _folder,
    "file": _file,
    "image": _image,
    "download": _download,
    "note": _note,
    "dialpad": _dialpad,
    "backspace": _backspace,
    "history": _history,
    "shift": _shift,
    "enter": _enter,
    "play": _play,
    "pause": _pause,
    "stop": _stop,
    "apps": _apps,
    "info": _info,
    "nav_back": _nav_back,
    "nav_home": _nav_home,
    "nav_recents": _nav_recents,
    "battery": _battery,
    "signal": _signal,
    "label": _label,
    "money": _attach_money,
    "camera": _camera,
    "chrome": _chrome,
    "mic": _mic,
}


def draw_icon(draw: ImageDraw.ImageDraw, name: str, box: tuple[int, int, int, int], color: Color) -> None:
    """Draw icon `name` filling `box`; an unknown name draws nothing (the view still lays out)."""
    fn = ICONS.get(name)
    if fn is not None:
        fn(Pen(draw, box, color))
