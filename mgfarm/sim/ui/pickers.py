"""Android's DatePickerDialog and TimePickerDialog (Android 13, Material look), for any app's screens.

A picker keeps what it shows (the month on screen, the chosen day, the dial's hand, text or clock
mode) under `state["picker"]` of the activity that opened it, and its typed hour and minute in the
activity's fields, so it survives snapshots like any other UI state. An app opens one with
`open_date` / `open_time` and, while `showing(state)` says so, puts `date_picker(...)` or
`time_picker(...)` on top of its screen. The views carry the framework's ids: the month's day cells
are views with text "5" and content-desc "05 December 2026" (SimpleMonthView's virtual views), the
dial's numbers views with content-desc "5" (RadialTimePickerView's), the buttons android:id/button1
(OK) and button2 (Cancel).
"""

from __future__ import annotations

import calendar as cal
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar

from mgfarm.sim.ui.views import (
    Button,
    Column,
    EditText,
    Handler,
    IconButton,
    LayoutCtx,
    Row,
    Scrim,
    Spacer,
    Stack,
    Text,
    View,
)

KEY = "picker"
HOUR_FIELD = "picker_hour"
MINUTE_FIELD = "picker_minute"
TO_TEXT = "Switch to text input mode for the time input."
TO_CLOCK = "Switch to clock mode for the time input."
WEEKDAYS = ("S", "M", "T", "W", "T", "F", "S")  # en_US: weeks start on Sunday
DIAL = 256  # dp, the radial picker's diameter
CELL = 40  # dp, one number on the dial (and one day of the month)
INNER = 0.66  # a tap nearer the centre than this (of the dial's radius) is on the 24-hour inner ring


def day_label(d: date) -> str:
    """SimpleMonthView's description of a day: DateFormat "dd MMMM yyyy"."""
    return f"{d.day:02d} {d.strftime('%B %Y')}"


def showing(state: dict[str, Any]) -> str:
    """'date', 'time' or '' (no picker open)."""
    picker = state.get(KEY)
    return str(picker.get("kind", "")) if isinstance(picker, dict) else ""


def open_date(state: dict[str, Any], value: date) -> None:
    state[KEY] = {"kind": "date", "picked": value.isoformat(), "page": value.replace(day=1).isoformat()}


def open_time(state: dict[str, Any], hour: int, minute: int, is24: bool = False) -> None:
    """The dialog opens in clock mode with the hour hand on `hour`, as TimePickerDialog does."""
    state[KEY] = {"kind": "time", "hour": hour, "minute": minute, "is24": is24, "stage": "hour"}
    fields = dict(state.get("fields", {}))
    fields.pop(HOUR_FIELD, None)
    fields.pop(MINUTE_FIELD, None)
    state["fields"] = fields


def close(state: dict[str, Any]) -> None:
    state.pop(KEY, None)
    if state.get("focus") in (HOUR_FIELD, MINUTE_FIELD):
        state.pop("focus", None)


@dataclass(eq=False, kw_only=True)
class DayCell(Text):
    """One day of SimpleMonthView: a virtual view, so a plain View in the accessibility tree."""

    klass: ClassVar[str] = "android.view.View"


@dataclass(eq=False, kw_only=True)
class Dial(View):
    """RadialTimePickerView: a disc with its numbers placed round it and a hand to the chosen one.

    `slots` gives each child's place as (turns clockwise from 12 o'clock, fraction of the radius).
    """

    klass: ClassVar[str] = "android.widget.RadialTimePickerView"
    slots: list[tuple[float, float]] = field(default_factory=list)
    hand: tuple[float, float] | None = None  # where the hand points, as a slot
    on_pick: Callable[[float, float], None] | None = None  # a tap off the numbers: (turns, radius)

    @property
    def clickable(self) -> bool:
        return self.on_pick is not None

    def slot_at(self, x: int, y: int) -> tuple[float, float]:
        """Where a tap falls, as (turns clockwise from 12 o'clock, fraction of the numbers' radius)."""
        x0, y0, x1, y1 = self.bounds
        dx, dy = x - (x0 + x1) / 2, y - (y0 + y1) / 2
        turns = (math.atan2(dx, -dy) / (2 * math.pi)) % 1.0
        return turns, math.hypot(dx, dy) / max(1.0, min(x1 - x0, y1 - y0) / 2)

    def point(self, slot: tuple[float, float], ctx: LayoutCtx) -> tuple[int, int]:
        x0, y0, x1, y1 = self.bounds
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        r = (min(x1 - x0, y1 - y0) / 2 - ctx.px(CELL) / 2 - ctx.px(4)) * slot[1]
        a = 2 * math.pi * slot[0]
        return round(cx + r * math.sin(a)), round(cy - r * math.cos(a))

    def layout_children(self, ctx: LayoutCtx) -> None:
        for child, slot in zip(self.children, self.slots, strict=True):
            x, y = self.point(slot, ctx)
            s = ctx.px(child.width or CELL)
            child.layout(ctx, x - s // 2, y - s // 2, s, s)


def _card(picker_id: str, body: list[View], buttons: list[View], cancel: Handler) -> View:
    """The dialog: the picker above its button bar, centred on a scrim that cancels when tapped."""
    card = Column(
        id="android:id/parentPanel",
        bg="surface_container_high",
        radius=28,
        width=328,
        align="center",
        blocks=True,
        children=[
            Column(id=picker_id, children=body),
            Row(id="android:id/buttonPanel", pad=(12, 4, 16, 12), spacing=8, children=buttons),
        ],
    )
    return Scrim(on_click=cancel, children=[card])


def _buttons(cancel: Handler, ok: Handler, lead: list[View] | None = None) -> list[View]:
    return [
        *(lead or []),
        Spacer(weight=1),
        Button(id="android:id/button2", text="Cancel", style="text", on_click=cancel),
        Button(id="android:id/button1", text="OK", style="text", on_click=ok),
    ]


# ---- DatePickerDialog
def date_picker(state: dict[str, Any], on_ok: Callable[[date], None], on_close: Handler) -> View:
    """The month grid with the chosen day, previous/next month arrows, Cancel and OK.

    OK calls `on_ok` with the chosen day and then `on_close`; Cancel, BACK (the app routes it to
    `on_close`) and a tap outside only close, leaving the app's value as it was.
    """
    picker = state[KEY]
    picked = date.fromisoformat(str(picker["picked"]))
    page = date.fromisoformat(str(picker["page"]))

    def cancel() -> None:
        close(state)
        on_close()

    def ok() -> None:
        close(state)
        on_ok(picked)
        on_close()

    def turn(months: int) -> Handler:
        def run() -> None:
            y, m = divmod(page.month - 1 + months, 12)
            picker["page"] = date(page.year + y, m + 1, 1).isoformat()

        return run

    def pick(d: date) -> Handler:
        return lambda: picker.update(picked=d.isoformat())

    rows: list[View] = [
        Row(
            height=CELL,
            children=[
                Text(text=w, size=12, gravity="center", weight=1, color="on_surface_variant")
                for w in WEEKDAYS
            ],
        )
    ]
    cells: list[View] = [Spacer(weight=1, height=CELL) for _ in range((page.weekday() + 1) % 7)]
    for n in range(1, cal.monthrange(page.year, page.month)[1] + 1):
        d = page.replace(day=n)
        chosen = d == picked
        cells.append(
            DayCell(
                text=str(n),
                desc=day_label(d),
                size=14,
                gravity="center",
                weight=1,
                height=CELL,
                radius=CELL / 2,
                selected=chosen,
                bg="primary" if chosen else None,
                color="on_primary" if chosen else "on_surface",
                on_click=pick(d),
            )
        )
    while len(cells) % 7:
        cells.append(Spacer(weight=1, height=CELL))
    rows += [Row(children=cells[i : i + 7]) for i in range(0, len(cells), 7)]
    header = Column(
        id="android:id/date_picker_header",
        bg="primary",
        pad=(24, 16, 24, 16),
        children=[
            Text(id="android:id/date_picker_header_year", text=str(picked.year), size=16, color="on_primary"),
            Text(
                id="android:id/date_picker_header_date",
                text=picked.strftime("%a, %b ") + str(picked.day),
                size=32,
                color="on_primary",
            ),
        ],
    )
    month = Stack(
        id="android:id/day_picker_view_pager",
        pad=(12, 0, 12, 0),
        children=[
            Column(
                id="android:id/month_view",
                children=[
                    Text(text=page.strftime("%B %Y"), size=14, medium=True, gravity="center", height=48),
                    *rows,
                ],
            ),
            Row(
                height=48,
                pad=(4, 0, 4, 0),
                justify="between",
                children=[
                    IconButton(
                        id="android:id/prev", name="chevron_left", desc="Previous month", on_click=turn(-1)
                    ),
                    IconButton(
                        id="android:id/next", name="chevron_right", desc="Next month", on_click=turn(1)
                    ),
                ],
            ),
        ],
    )
    return _card("android:id/datePicker", [header, month], _buttons(cancel, ok), cancel)


# ---- TimePickerDialog
def h12(hour: int) -> int:
    return hour % 12 or 12


def time_picker(state: dict[str, Any], on_ok: Callable[[int, int], None], on_close: Handler) -> View:
    """The clock dial (hours, then minutes), AM/PM, and the keyboard toggle to type the time instead.

    OK calls `on_ok(hour 0-23, minute)` then `on_close`; typed values out of range show "Enter a
    valid time" and keep the dialog open. Cancel leaves the app's value as it was.
    """
    picker = state[KEY]
    hour, minute, is24 = int(picker["hour"]), int(picker["minute"]), bool(picker.get("is24"))

    def cancel() -> None:
        close(state)
        on_close()

    def ok() -> None:
        if picker.get("keyboard"):
            typed = _typed(state, hour, minute, is24)
            if typed is None:
                picker["error"] = True
                return
            picker["hour"], picker["minute"] = typed
        close(state)
        on_ok(int(picker["hour"]), int(picker["minute"]))
        on_close()

    def toggle() -> None:
        if picker.get("keyboard"):
            typed = _typed(state, hour, minute, is24)
            if typed is not None:
                picker["hour"], picker["minute"] = typed
            picker["keyboard"] = False
            close_focus(state)
        else:
            picker["keyboard"] = True
            state["focus"], state["show_ime"] = HOUR_FIELD, True
        picker.pop("error", None)
        picker.pop("spinner", None)

    mode_icon = "schedule" if picker.get("keyboard") else "keyboard"
    toggle_button = IconButton(
        id="android:id/toggle_mode",
        name=mode_icon,
        desc=TO_CLOCK if picker.get("keyboard") else TO_TEXT,
        on_click=toggle,
        tint="on_surface_variant",
    )
    body = (
        _text_input(state, picker, hour, minute, is24)
        if picker.get("keyboard")
        else _clock(picker, hour, minute, is24)
    )
    layers: list[View] = [_card("android:id/timePicker", body, _buttons(cancel, ok, [toggle_button]), cancel)]
    if picker.get("spinner"):
        layers.append(_ampm_dropdown(picker, hour))
    return Stack(children=layers) if len(layers) > 1 else layers[0]


def close_focus(state: dict[str, Any]) -> None:
    if state.get("focus") in (HOUR_FIELD, MINUTE_FIELD):
        state.pop("focus", None)


def _typed(state: dict[str, Any], hour: int, minute: int, is24: bool) -> tuple[int, int] | None:
    """The typed hour and minute (an empty field keeps the dialog's value), or None when invalid."""
    fields = state.get("fields", {})
    pm = hour >= 12
    try:
        h = int(str(fields.get(HOUR_FIELD, "")).strip() or (hour if is24 else h12(hour)))
        m = int(str(fields.get(MINUTE_FIELD, "")).strip() or minute)
    except ValueError:
        return None
    if not 0 <= m <= 59:
        return None
    if is24:
        return (h, m) if 0 <= h <= 23 else None
    if not 1 <= h <= 12:
        return None
    return h % 12 + (12 if pm else 0), m


def _clock(picker: dict[str, Any], hour: int, minute: int, is24: bool) -> list[View]:
    stage = str(picker.get("stage", "hour"))

    def set_stage(name: str) -> Handler:
        return lambda: picker.update(stage=name)

    def set_pm(pm: bool) -> Handler:
        return lambda: picker.update(hour=hour % 12 + (12 if pm else 0))

    def set_hour(h: int) -> Handler:
        def run() -> None:
            picker["hour"] = h if is24 else h % 12 + (12 if hour >= 12 else 0)
            picker["stage"] = "minute"  # the dial moves on to the minutes, as the real one does

        return run

    def set_minute(m: int) -> Handler:
        return lambda: picker.update(minute=m)

    header: list[View] = [
        Text(
            id="android:id/hours",
            text=f"{hour:02d}" if is24 else str(h12(hour)),
            size=56,
            color="on_primary" if stage == "hour" else "#C8D3EE",
            on_click=set_stage("hour"),
        ),
        Text(id="android:id/separator", text=":", size=56, color="#C8D3EE"),
        Text(
            id="android:id/minutes",
            text=f"{minute:02d}",
            size=56,
            color="on_primary" if stage == "minute" else "#C8D3EE",
            on_click=set_stage("minute"),
        ),
    ]
    if not is24:
        header.append(
            Column(
                id="android:id/ampm_layout",
                pad=(12, 0, 0, 0),
                children=[
                    AmPm(
                        id="android:id/am_label",
                        text="AM",
                        on=hour < 12,
                        on_click=set_pm(False),
                    ),
                    AmPm(
                        id="android:id/pm_label",
                        text="PM",
                        on=hour >= 12,
                        on_click=set_pm(True),
                    ),
                ],
            )
        )
    numbers: list[View] = []
    slots: list[tuple[float, float]] = []
    hand: tuple[float, float]
    if stage == "hour":
        for i in range(12):
            value = i or 12
            numbers.append(
                _number(
                    str(value),
                    value,
                    (hour if is24 else h12(hour)) == value,
                    set_hour(value % 12 if not is24 else value),
                )
            )
            slots.append((i / 12, 1.0))
        if is24:  # 00 and 13-23 on an inner ring
            for i in range(12):
                value = 0 if i == 0 else i + 12
                numbers.append(_number(f"{value:02d}", value, hour == value, set_hour(value), small=True))
                slots.append((i / 12, 0.62))
            hand = ((hour % 12) / 12, 0.62 if hour == 0 or hour > 12 else 1.0)
        else:
            hand = ((hour % 12) / 12, 1.0)
    else:
        for i in range(12):
            value = i * 5
            numbers.append(_number(f"{value:02d}", value, minute == value, set_minute(value)))
            slots.append((i / 12, 1.0))
        hand = (minute / 60, 1.0)

    def tapped(turns: float, radius: float) -> None:
        """A tap off the numbers picks the nearest one (any minute), as dragging the hand does."""
        if stage == "minute":
            picker["minute"] = round(turns * 60) % 60
            return
        index = round(turns * 12) % 12
        if is24 and radius < INNER:
            set_hour(0 if index == 0 else index + 12)()
        else:
            set_hour(index or 12 if is24 else index)()

    dial = Dial(
        id="android:id/radial_picker",
        on_pick=tapped,
        width=DIAL,
        height=DIAL,
        bg="surface_container",
        radius=DIAL / 2,
        slots=slots,
        hand=hand,
        children=numbers,
    )
    return [
        Row(
            id="android:id/time_header", bg="primary", pad=(24, 20, 24, 20), justify="center", children=header
        ),
        Column(center=True, pad=(0, 24, 0, 8), children=[dial]),
    ]


@dataclass(eq=False, kw_only=True)
class AmPm(Text):
    """The header's AM and PM: RadioButtons drawn as text, the chosen one bright."""

    klass: ClassVar[str] = "android.widget.RadioButton"
    on: bool = False
    size: float = 18.0
    medium: bool = True

    def __post_init__(self) -> None:
        self.color = "on_primary" if self.on else "#C8D3EE"

    @property
    def checkable(self) -> bool:
        return True

    @property
    def checked(self) -> bool:
        return self.on


def _number(text: str, value: int, chosen: bool, on_click: Handler, small: bool = False) -> View:
    return DayCell(
        text=text,
        desc=str(value),
        size=12 if small else 16,
        gravity="center",
        width=CELL,
        height=CELL,
        radius=CELL / 2,
        selected=chosen,
        bg="primary" if chosen else None,
        color="on_primary" if chosen else ("on_surface_variant" if small else "on_surface"),
        on_click=on_click,
    )


def _text_input(
    state: dict[str, Any], picker: dict[str, Any], hour: int, minute: int, is24: bool
) -> list[View]:
    """TextInputTimePickerView: hour and minute fields (empty, the current values as hints), AM/PM."""
    fields = state.get("fields", {})
    focus = state.get("focus")
    row: list[View] = [
        EditText(
            id="android:id/input_hour",
            key=HOUR_FIELD,
            hint=f"{hour:02d}" if is24 else str(h12(hour)),
            text=str(fields.get(HOUR_FIELD, "")),
            width=96,
            height=72,
            size=32,
            has_focus=focus == HOUR_FIELD,
        ),
        Text(id="android:id/input_separator", text=":", size=32, width=20, gravity="center"),
        EditText(
            id="android:id/input_minute",
            key=MINUTE_FIELD,
            hint=f"{minute:02d}",
            text=str(fields.get(MINUTE_FIELD, "")),
            width=96,
            height=72,
            size=32,
            has_focus=focus == MINUTE_FIELD,
        ),
    ]
    if not is24:
        row.append(
            Spinner(
                id="android:id/am_pm_spinner",
                pad=(12, 0, 8, 0),
                height=72,
                on_click=lambda: picker.update(spinner=True),
                children=[Text(id="android:id/text1", text="AM" if hour < 12 else "PM", size=18)],
            )
        )
    body: list[View] = [
        Column(
            id="android:id/input_header",
            pad=(24, 24, 24, 8),
            children=[
                Text(
                    id="android:id/top_label",
                    text="Type in time",
                    size=12,
                    medium=True,
                    color="on_surface_variant",
                )
            ],
        ),
        Row(pad=(24, 8, 24, 0), spacing=4, children=row),
        Row(
            pad=(24, 4, 24, 0),
            spacing=4,
            children=[
                Text(id="android:id/label_hour", text="hour", size=12, width=96, color="on_surface_variant"),
                Spacer(width=20),
                Text(
                    id="android:id/label_minute", text="minute", size=12, width=96, color="on_surface_variant"
                ),
            ],
        ),
    ]
    if picker.get("error"):
        body.append(
            Text(
                id="android:id/label_error",
                text="Enter a valid time",
                size=12,
                color="#B3261E",
                pad=(24, 4, 24, 0),
            )
        )
    body.append(Spacer(height=16))
    return body


@dataclass(eq=False, kw_only=True)
class Spinner(Row):
    klass: ClassVar[str] = "android.widget.Spinner"


@dataclass(eq=False, kw_only=True)
class DropdownItem(Text):
    klass: ClassVar[str] = "android.widget.CheckedTextView"


def _ampm_dropdown(picker: dict[str, Any], hour: int) -> View:
    """The AM/PM spinner's dropdown: a list of the two, over the dialog; a tap outside closes it."""

    def choose(pm: bool) -> Handler:
        def run() -> None:
            picker["hour"] = hour % 12 + (12 if pm else 0)
            picker.pop("spinner", None)

        return run

    items: list[View] = [
        DropdownItem(
            id="android:id/text1",
            text=label,
            size=16,
            height=48,
            pad=(16, 0, 16, 0),
            selected=(hour >= 12) == pm,
            on_click=choose(pm),
        )
        for label, pm in (("AM", False), ("PM", True))
    ]
    menu = Column(
        id="android:id/select_dialog_listview",
        bg="surface_container",
        radius=4,
        width=112,
        align="center",
        blocks=True,
        children=items,
    )
    return Scrim(dim=0.0, on_click=lambda: picker.pop("spinner", None), children=[menu])
