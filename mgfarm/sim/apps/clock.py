"""Clock (com.google.android.deskclock; aosp: com.android.deskclock): alarms in its own alarms.db, a timer
and a stopwatch.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path

from mgfarm.sim.apps.base import MINUTE_MS, App, ScreenContext, ScreenFn, sql, sql_insert, sql_script
from mgfarm.sim.system.cursor import get_int, get_string
from mgfarm.sim.ui import pickers
from mgfarm.sim.ui.views import (
    Button,
    Column,
    EditText,
    IconButton,
    Row,
    Rows,
    Scrim,
    Scroll,
    Stack,
    Text,
    Toggle,
    View,
)
from mgfarm.sim.ui.widgets import action, dialog, empty_state, fab, tabs

MAIN = "com.android.deskclock.DeskClock"
TABS = ("Alarm", "Clock", "Timer", "Stopwatch")
TAB_ICONS = ("alarm", "schedule", "timer", "stopwatch")
# AOSP DeskClock's ClockDatabaseHelper table, and the two disabled alarms it seeds on first start.
SCHEMA = """
CREATE TABLE IF NOT EXISTS alarm_templates (
  _id INTEGER PRIMARY KEY, hour INTEGER NOT NULL, minutes INTEGER NOT NULL, daysofweek INTEGER NOT NULL,
  enabled INTEGER NOT NULL, vibrate INTEGER NOT NULL, label TEXT NOT NULL, ringtone TEXT,
  delete_after_use INTEGER NOT NULL DEFAULT 0);
"""
ADD_ALARM = (
    "INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label)"
    " VALUES (?, ?, ?, ?, 1, ?)"
)
SEED = ((ADD_ALARM, (8, 30, 31, 0, "")), (ADD_ALARM, (9, 0, 96, 0, "")))
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def schedule_text(mask: int, enabled: int, hour: int, minutes: int, now: datetime) -> str:
    """What DeskClock shows under an alarm: its days, or when a one-time alarm rings next."""
    if mask or not enabled:
        return days_text(mask)
    return "Today" if (hour, minutes) > (now.hour, now.minute) else "Tomorrow"


def days_text(mask: int) -> str:
    if mask == 0:
        return "Not scheduled"
    if mask == 127:
        return "Every day"
    return ", ".join(d for i, d in enumerate(DAYS) if mask & (1 << i))


def time_text(hour: int, minutes: int) -> tuple[str, str]:
    return f"{hour % 12 or 12}:{minutes:02d}", "AM" if hour < 12 else "PM"


def duration_text(ms: int) -> str:
    s = max(0, ms) // 1000
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


class Clock(App):
    role = "clock"  # the package, and with it the data folder of alarms.db, follows the profile
    label = "Clock"
    icon = "alarm"
    icon_color = "#0B57D0"
    intent_actions = {"android.intent.action.SET_ALARM": MAIN, "android.intent.action.SHOW_ALARMS": MAIN}

    def create_data(self) -> None:
        fresh = not self.db_file("alarms.db").exists()
        sql_script(self.db_file("alarms.db"), SCHEMA, SEED if fresh else ())

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    def main(self, ctx: ScreenContext) -> View:
        tab = int(ctx.state.get("tab", 0))

        def choose(i: int) -> None:
            ctx.state["tab"] = i

        layers = (self.alarms, self.world, self.timer, self.stopwatch)[tab](ctx)
        # Dialogs cover the whole window, tabs included, as an AlertDialog does.
        dialogs = [v for v in layers if isinstance(v, Scrim)]
        body = [v for v in layers if not isinstance(v, Scrim)]
        page = Column(
            bg="surface",
            children=[
                Row(
                    height=64,
                    pad=(16, 0, 4, 0),
                    children=[Text(id="title", text=TABS[tab], size=22, weight=1)],
                ),
                Stack(weight=1, children=body),
                tabs(TABS, tab, choose, TAB_ICONS),
            ],
        )
        return Stack(children=[page, *dialogs])

    def alarms(self, ctx: ScreenContext) -> list[View]:
        db = self.db_file("alarms.db")
        rows = sql(
            db,
            "SELECT _id, hour, minutes, daysofweek, enabled, label FROM alarm_templates "
            "ORDER BY hour, minutes, _id",
        )
        now = ctx.local_now(MINUTE_MS)
        expanded = ctx.state.get("expanded")
        # Read as DeskClock's Alarm(Cursor) does (getInt, getString): a row a shell wrote with text
        # in its numbers shows as 12:00 AM, where the sim's app stopped.
        cards = [
            partial(
                self.alarm_card,
                ctx,
                db,
                now,
                expanded,
                get_int(row[0]),
                get_int(row[1]),
                get_int(row[2]),
                get_int(row[3]),
                get_int(row[4]),
                get_string(row[5]),
            )
            for row in rows
        ]  # made as shown
        layers: list[View] = [
            Scroll(
                id="alarm_recycler_view",
                key="alarms",
                pad=(16, 8, 16, 96),
                spacing=12,
                rows=Rows.of(cards),
                empty=empty_state("alarm", "No alarms"),
            )
        ]

        def add() -> None:
            now = ctx.local_now(MINUTE_MS)
            ctx.state["picking"] = "new"
            pickers.open_time(ctx.state, now.hour, now.minute)

        layers.append(fab("add", "Add alarm", add, id="fab"))
        self.alarm_dialogs(ctx, db, layers)
        return layers

    def alarm_card(
        self,
        ctx: ScreenContext,
        db: Path,
        now: datetime,
        expanded: object,
        aid: int,
        hour: int,
        minutes: int,
        days: int,
        enabled: int,
        label: str,
    ) -> View:
        """One alarm's card; the expanded one offers its label."""
        t, ampm = time_text(hour, minutes)
        extra: list[View] = []
        if aid == expanded:  # the expanded card offers its label, as DeskClock's does
            extra.append(
                Text(
                    id="edit_label",
                    text=label or "Add label",
                    size=16,
                    pad=(0, 12, 0, 12),
                    color="on_surface" if label else "on_surface_variant",
                    on_click=_open_label(ctx, aid, label),
                )
            )
        return Column(
            id="alarm_item",
            bg="surface_container",
            radius=24,
            pad=(20, 12, 12, 12),
            on_click=_expand(ctx, aid),
            children=[
                Row(
                    children=[
                        Text(
                            id="digital_clock",
                            text=f"{t} {ampm}",
                            size=44,
                            weight=1,
                            color="on_surface" if enabled else "on_surface_variant",
                            on_click=_edit_time(ctx, aid, hour, minutes),
                        ),
                        Toggle(
                            id="onoff",
                            on=bool(enabled),
                            desc=f"{t} {ampm}",
                            on_click=_toggle(db, aid, enabled),
                        ),
                    ]
                ),
                Row(
                    children=[
                        Text(
                            id="days_of_week",
                            text=(label + " · " if label else "")
                            + schedule_text(days, enabled, hour, minutes, now),
                            size=14,
                            color="on_surface_variant",
                            weight=1,
                        ),
                        action("delete", "Delete alarm", _delete(db, aid), id="delete"),
                    ]
                ),
                *extra,
            ],
        )

    def alarm_dialogs(self, ctx: ScreenContext, db: Path, layers: list[View]) -> None:
        """The time picker (a new alarm, or an alarm's time) and the label dialog, over the list."""
        st = ctx.state
        if pickers.showing(st) == "time":
            target = st.get("picking", "new")

            def close() -> None:
                pickers.close(st)
                st.pop("picking", None)

            def chosen(hour: int, minute: int) -> None:
                if target == "new":
                    aid = sql_insert(
                        db,
                        "INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label) "
                        "VALUES (?, ?, 0, 1, 1, '')",
                        (hour, minute),
                    )
                    st["expanded"] = aid  # the new alarm opens expanded, its label row at hand
                else:
                    sql(
                        db,
                        "UPDATE alarm_templates SET hour = ?, minutes = ?, enabled = 1 WHERE _id = ?",
                        (hour, minute, int(target)),
                    )
                t, ampm = time_text(hour, minute)
                ctx.toast(f"Alarm set for {t} {ampm}")

            ctx.on_back(close)
            layers.append(pickers.time_picker(st, chosen, close))
        elif "label_for" in st:
            aid = int(st["label_for"])

            def cancel() -> None:
                st.pop("label_for", None)
                ctx.set_fields({})

            def ok() -> None:
                sql(
                    db,
                    "UPDATE alarm_templates SET label = ? WHERE _id = ?",
                    (ctx.field("label").strip(), aid),
                )
                cancel()

            ctx.on_back(cancel)
            layers.append(
                dialog(
                    "Label",
                    [EditText(id="label_input", key="label", hint="Label", text=ctx.field("label"))],
                    [("Cancel", cancel), ("OK", ok)],
                    cancel,
                )
            )

    def world(self, ctx: ScreenContext) -> list[View]:
        now = ctx.local_now(MINUTE_MS)
        t, ampm = time_text(now.hour, now.minute)
        return [
            Column(
                center=True,
                pad=(0, 80, 0, 0),
                spacing=8,
                children=[
                    Text(id="digital_clock", text=f"{t} {ampm}", size=64, gravity="center"),
                    Text(
                        id="date",
                        text=now.strftime("%a, %b ") + str(now.day),
                        size=18,
                        gravity="center",
                        color="on_surface_variant",
                    ),
                ],
            )
        ]

    def timer(self, ctx: ScreenContext) -> list[View]:
        now = ctx.now_ms()
        ends = ctx.state.get("timer_end")
        if ends:
            left = int(ends) - now

            def stop() -> None:
                ctx.state.pop("timer_end", None)

            text = "Time's up" if left <= 0 else duration_text(left)
            stop_button = Button(id="reset", text="Delete", style="tonal", width=160, on_click=stop)
            return [_time_face("timer_time_text", text, stop_button)]
        return [self.timer_setup(ctx, now)]

    def timer_setup(self, ctx: ScreenContext, now: int) -> View:
        """DeskClock's timer keypad: digits shift in from the right of `00h 00m 00s`, as on a microwave.

        AndroidWorld's ClockTimerEntry reads the display's text (`01h 02m 03s`) before the timer starts.
        """
        digits = str(ctx.state.get("timer_digits", ""))
        h, m, sec = (int(digits.rjust(6, "0")[i : i + 2]) for i in (0, 2, 4))

        def press(key: str) -> Callable[[], None]:
            def run() -> None:
                # Leading zeros add nothing; at most six digits, as the real keypad takes.
                ctx.state["timer_digits"] = (digits + key).lstrip("0")[:6]

            return run

        def delete() -> None:
            ctx.state["timer_digits"] = digits[:-1]

        def start() -> None:
            ctx.state["timer_end"] = now + (h * 3600 + m * 60 + sec) * 1000
            ctx.state.pop("timer_digits", None)

        keys = (("1", "2", "3"), ("4", "5", "6"), ("7", "8", "9"), ("00", "0", ""))
        rows: list[View] = []
        for row in keys:
            cells: list[View] = [
                Button(
                    id=f"timer_setup_digit_{k}", text=k, style="text", height=72, weight=1, on_click=press(k)
                )
                for k in row
                if k
            ]
            if not row[-1]:
                cells.append(
                    IconButton(
                        id="timer_setup_delete",
                        name="backspace",
                        desc="Delete",
                        height=72,
                        weight=1,
                        on_click=delete,
                    )
                )
            rows.append(Row(children=cells))
        children: list[View] = [
            Text(id="timer_setup_time", text=f"{h:02d}h {m:02d}m {sec:02d}s", size=48, gravity="center"),
            Column(pad=(32, 0, 32, 0), children=rows),
        ]
        if digits:
            go = _round_button("play", "Start", start, primary=True)
            children.append(Row(justify="center", children=[go]))
        return Column(pad=(0, 32, 0, 0), spacing=16, children=children)

    def stopwatch(self, ctx: ScreenContext) -> list[View]:
        """The stopwatch: Start alone at zero; Lap and Pause while running; Reset and Start when paused.

        The buttons carry DeskClock's content descriptions, which AndroidWorld's stopwatch tasks read.
        """
        now = ctx.now_ms()
        started = ctx.state.get("sw_start")
        acc = int(ctx.state.get("sw_acc", 0))
        elapsed = acc + (now - int(started) if started else 0)
        laps: list[int] = list(ctx.state.get("sw_laps", []))

        def toggle() -> None:
            if ctx.state.get("sw_start"):
                ctx.state["sw_acc"] = acc + now - int(ctx.state.pop("sw_start"))
            else:
                ctx.state["sw_start"] = now

        def reset() -> None:
            for key in ("sw_start", "sw_acc", "sw_laps"):
                ctx.state.pop(key, None)

        def lap() -> None:
            ctx.state["sw_laps"] = [*laps, elapsed]

        controls: list[View] = []
        if started:
            controls.append(_round_button("timer", "Lap", lap))
        elif elapsed:
            controls.append(_round_button("history", "Reset", reset))
        icon, desc = ("pause", "Pause") if started else ("play", "Start")
        controls.append(_round_button(icon, desc, toggle, primary=True))
        face = _time_face(
            "stopwatch_time_text",
            duration_text(elapsed),
            Row(justify="center", spacing=32, children=controls),
        )
        if laps:
            # Newest lap first, made as the list shows them (a shell's loop of taps can add thousands).
            rows = Rows(len(laps), lambda i: _lap_row(laps, len(laps) - i))
            face.children.append(Scroll(id="laps_list", key="laps", weight=1, rows=rows))
        return [face]


def _lap_row(laps: list[int], n: int) -> View:
    """Lap `n` (from 1) with its own time and the total, as a row of DeskClock's lap list."""
    own = laps[n - 1] - (laps[n - 2] if n > 1 else 0)
    return Row(
        id="lap_item",
        pad=(32, 8, 32, 8),
        children=[
            Text(id="lap_number", text=f"# {n}", weight=1),
            Text(id="lap_time", text=duration_text(own), weight=1),
            Text(id="lap_total", text=duration_text(laps[n - 1]), weight=1),
        ],
    )


def _round_button(icon: str, desc: str, on_click: Callable[[], None], primary: bool = False) -> View:
    """The clock's round buttons (ImageButtons named only by their content description): the large
    primary one (`fab`) and the smaller ones beside it."""
    size = 96 if primary else 72
    return IconButton(
        id="fab" if primary else "left_button",
        name=icon,
        desc=desc,
        on_click=on_click,
        width=size,
        height=size,
        bg="primary_container" if primary else "surface_container",
        radius=size // 2,
        tint="on_primary_container" if primary else "on_surface",
    )


def _time_face(text_id: str, text: str, controls: View) -> Column:
    """The timer's and stopwatch's face: a large centred time with its controls below."""
    return Column(
        center=True,
        pad=(0, 80, 0, 0),
        spacing=32,
        children=[Text(id=text_id, text=text, size=56, gravity="center"), controls],
    )


def _expand(ctx: ScreenContext, aid: int) -> Callable[[], None]:
    def run() -> None:
        if ctx.state.get("expanded") == aid:
            ctx.state.pop("expanded", None)
        else:
            ctx.state["expanded"] = aid

    return run


def _edit_time(ctx: ScreenContext, aid: int, hour: int, minutes: int) -> Callable[[], None]:
    """Tapping an alarm's time opens the time picker on it, as in DeskClock."""

    def run() -> None:
        ctx.state["picking"] = aid
        pickers.open_time(ctx.state, hour, minutes)

    return run


def _open_label(ctx: ScreenContext, aid: int, label: str) -> Callable[[], None]:
    def run() -> None:
        ctx.state["label_for"] = aid
        ctx.set_fields({"label": label})
        ctx.focus("label")

    return run


def _toggle(db: Path, aid: int, enabled: int) -> Callable[[], None]:
    def run() -> None:
        sql(db, "UPDATE alarm_templates SET enabled = ? WHERE _id = ?", (0 if enabled else 1, aid))

    return run


def _delete(db: Path, aid: int) -> Callable[[], None]:
    def run() -> None:
        sql(db, "DELETE FROM alarm_templates WHERE _id = ?", (aid,))

    return run
