"""Simple Calendar Pro (com.simplemobiletools.calendar.pro): its own Room database, events.db.

Times in `events` are Unix seconds. A repeating event is one row: `repeat_interval` in seconds (a day,
a week, 2592001 for monthly, 31536000 for yearly), `repeat_rule` the weekday bits of a weekly event
(Monday 1 ... Sunday 64), `repeat_limit` 0 for forever, and `repetition_exceptions` a JSON list of the
deleted occurrences' days as "YYYYMMDD". Reminders are minutes before the start, -1 for none.
"""

from __future__ import annotations

import calendar as cal
import heapq
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.system.clock import device_zone, local_time
from mgfarm.sim.ui import pickers
from mgfarm.sim.ui.views import (
    Button,
    CheckBox,
    Column,
    EditText,
    IconButton,
    Row,
    Rows,
    Scroll,
    Spacer,
    Stack,
    Text,
    Toggle,
    View,
)
from mgfarm.sim.ui.widgets import action, app_bar, dialog, empty_state, fab, header

PKG = "com.simplemobiletools.calendar.pro"
MAIN = f"{PKG}.activities.MainActivity"
EVENT = f"{PKG}.activities.EventActivity"
DB = "events.db"

DAY, WEEK, MONTH, YEAR = 86400, 604800, 2592001, 31536000
REPEATS = (("No repetition", 0), ("Daily", DAY), ("Weekly", WEEK), ("Monthly", MONTH), ("Yearly", YEAR))
REMINDERS = (
    ("No reminder", -1),
    ("At start", 0),
    ("5 minutes before", 5),
    ("10 minutes before", 10),
    ("15 minutes before", 15),
    ("30 minutes before", 30),
    ("1 hour before", 60),
    ("1 day before", 1440),
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
VIEWS = (
    ("Daily view", "day"),
    ("Weekly view", "week"),
    ("Monthly view", "month"),
    ("Simple event list", "list"),
)
SOURCE = "simple-calendar"  # what the app writes in `source` for its own events
FLAG_ALL_DAY = 1
HOUR_DP, MIN_EVENT_DP = 48.0, 14.0  # the week grid's hour height and its shortest event block
FIRST_TS, LAST_TS = -62135596800 + 86400 * 366, 253402300799 - 86400 * 366  # years 2 to 9998
REGULAR_EVENT_TYPE = 1

# The Room schema of events.db (version 8 of the app's EventsDatabase).
SCHEMA = """
CREATE TABLE IF NOT EXISTS `events` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `start_ts` INTEGER NOT NULL,
  `end_ts` INTEGER NOT NULL, `title` TEXT NOT NULL, `location` TEXT NOT NULL, `description` TEXT NOT NULL,
  `reminder_1_minutes` INTEGER NOT NULL, `reminder_2_minutes` INTEGER NOT NULL,
  `reminder_3_minutes` INTEGER NOT NULL, `reminder_1_type` INTEGER NOT NULL,
  `reminder_2_type` INTEGER NOT NULL, `reminder_3_type` INTEGER NOT NULL,
  `repeat_interval` INTEGER NOT NULL, `repeat_rule` INTEGER NOT NULL, `repeat_limit` INTEGER NOT NULL,
  `repetition_exceptions` TEXT NOT NULL, `attendees` TEXT NOT NULL, `import_id` TEXT NOT NULL,
  `time_zone` TEXT NOT NULL, `flags` INTEGER NOT NULL, `event_type` INTEGER NOT NULL,
  `parent_id` INTEGER NOT NULL, `last_updated` INTEGER NOT NULL, `source` TEXT NOT NULL,
  `availability` INTEGER NOT NULL, `color` INTEGER NOT NULL, `type` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_events_id` ON `events` (`id`);
CREATE TABLE IF NOT EXISTS `event_types` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `title` TEXT NOT NULL,
  `color` INTEGER NOT NULL, `caldav_calendar_id` INTEGER NOT NULL, `caldav_display_name` TEXT NOT NULL,
  `caldav_email` TEXT NOT NULL, `type` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_event_types_id` ON `event_types` (`id`);
CREATE TABLE IF NOT EXISTS `widgets` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `widget_id` INTEGER NOT NULL,
  `period` INTEGER NOT NULL, `header` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_widgets_widget_id` ON `widgets` (`widget_id`);
CREATE TABLE IF NOT EXISTS `tasks` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `task_id` INTEGER NOT NULL,
  `start_ts` INTEGER NOT NULL, `flags` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_tasks_id_task_id` ON `tasks` (`id`, `task_id`);
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY, identity_hash TEXT);
"""
# The app starts with no events and its one "Regular event" type (id 1, the app's primary colour).
SEED = (
    ("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),
    (
        "INSERT OR IGNORE INTO event_types (id, title, color, caldav_calendar_id, caldav_display_name,"
        " caldav_email, type) VALUES (1, 'Regular event', -1754827, 0, '', '', 0)",
        (),
    ),
)
INSERT = (
    "INSERT INTO events (start_ts, end_ts, title, location, description, reminder_1_minutes,"
    " reminder_2_minutes, reminder_3_minutes, reminder_1_type, reminder_2_type, reminder_3_type,"
    " repeat_interval, repeat_rule, repeat_limit, repetition_exceptions, attendees, import_id, time_zone,"
    " flags, event_type, parent_id, last_updated, source, availability, color, type)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?, ?, 0, '[]', '[]', ?, ?, ?, 1, 0, ?, ?, 0, 0, 0)"
)


@dataclass(frozen=True)
class Event:
    id: int
    start: int
    end: int
    title: str
    location: str
    description: str
    interval: int
    rule: int
    limit: int
    exceptions: tuple[str, ...]
    flags: int

    @property
    def all_day(self) -> bool:
        return bool(self.flags & FLAG_ALL_DAY)


@dataclass(frozen=True)
class Occurrence:
    event: Event
    start: int
    end: int


def as_int(value: object) -> int:
    """An integer column as the app's Cursor.getInt reads it: anything else counts as 0."""
    return value if isinstance(value, int) else 0


def repeat_rule(interval: int, weekdays: int) -> int:
    """What the app stores in `repeat_rule`: weekday bits for a weekly series, 1 (the same day of the
    month or year) for monthly and yearly ones, 0 otherwise."""
    if interval > 0 and interval % WEEK == 0:
        return weekdays
    return 1 if interval in (MONTH, YEAR) else 0


def day_code(d: date) -> str:
    return d.strftime("%Y%m%d")


def weekday_bit(d: date) -> int:
    return 1 << d.weekday()


def repeats_on(ev: Event, first: date, d: date) -> bool:
    """Whether a repeating event that began on `first` has an occurrence starting on day `d`."""
    if d < first or day_code(d) in ev.exceptions:
        return False
    days = (d - first).days
    if ev.interval % WEEK == 0:
        weeks = ev.interval // WEEK
        rule = ev.rule or weekday_bit(first)
        week_index = ((d - timedelta(days=d.weekday())) - (first - timedelta(days=first.weekday()))).days // 7
        return bool(rule & weekday_bit(d)) and week_index % weeks == 0
    if ev.interval == MONTH:
        return d.day == first.day
    if ev.interval == YEAR:
        return (d.month, d.day) == (first.month, first.day)
    step = max(1, ev.interval // DAY)
    return days % step == 0


def lane_of(spans: list[tuple[float, float]]) -> list[int]:
    """The lane of each (top, bottom) span, tops in order: the first lane whose last span ends at or
    above its top, else a new one. A heap of the lanes freed so far (a lane freed for one top stays
    free for the later ones) keeps a day of thousands of overlapping events from costing the square
    of their count (a shell can insert them: 20,000 took ~25 s a frame)."""
    busy: list[tuple[float, int]] = []  # (bottom, lane)
    free: list[int] = []
    count = 0
    out: list[int] = []
    for top, bottom in spans:
        while busy and busy[0][0] <= top:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            lane = heapq.heappop(free)
        else:
            lane = count
            count += 1
        heapq.heappush(busy, (bottom, lane))
        out.append(lane)
    return out


class SimpleCalendar(App):
    package = PKG
    label = "Simple Calendar Pro"
    main_activity = MAIN
    icon = "calendar"
    icon_color = "#F57C00"
    version_name = "6.22.3"

    def create_data(self) -> None:
        sql_script(self.db_file(DB), SCHEMA, SEED)

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, EVENT: self.event}

    # ---- data
    def dt(self, ts: int) -> datetime:
        return local_time(self.device.props, ts)

    def ts(self, d: date, hour: int = 0, minute: int = 0) -> int:
        return int(
            datetime(d.year, d.month, d.day, hour, minute, tzinfo=device_zone(self.device.props)).timestamp()
        )

    def today(self, ctx: ScreenContext) -> date:
        return ctx.today()

    def events(self, where: str = "1", args: tuple[Any, ...] = ()) -> list[Event]:
        rows = sql(
            self.db_file(DB),
            "SELECT id, start_ts, end_ts, title, location, description, repeat_interval, repeat_rule,"
            f" repeat_limit, repetition_exceptions, flags FROM events WHERE {where} ORDER BY start_ts, id",
            args,
        )
        found = []
        for r in rows:
            try:
                exceptions = tuple(str(x) for x in json.loads(r[9] or "[]"))
            except (ValueError, TypeError, RecursionError):
                exceptions = ()
            if not all(isinstance(v, int) and FIRST_TS <= v <= LAST_TS for v in (r[1], r[2])):
                continue  # a row written behind the app's back with no usable time is not shown
            found.append(
                Event(
                    int(r[0]),
                    int(r[1]),
                    int(r[2]),
                    str(r[3] or ""),
                    str(r[4] or ""),
                    str(r[5] or ""),
                    as_int(r[6]),
                    as_int(r[7]),
                    as_int(r[8]),
                    exceptions,
                    as_int(r[10]),
                )
            )
        return found

    def event_by_id(self, eid: int) -> Event | None:
        found = self.events("id = ?", (eid,))
        return found[0] if found else None

    def occurrences(self, first: date, last: date) -> list[Occurrence]:
        """Every occurrence starting or running on a day from `first` to `last` (inclusive), kept
        for the next frame while the database is unchanged: reading and expanding every event took a
        frame of a day of 20,000 events (a shell can insert them) ~0.3 s, most of it here."""
        key = ("occurrences", first, last, device_zone(self.device.props))
        return list(self.unchanged_read(self.db_file(DB), key, lambda: self.expanded(first, last)))

    def expanded(self, first: date, last: date) -> list[Occurrence]:
        """occurrences(), read and expanded from the database."""
        lo, hi = self.ts(first), self.ts(last + timedelta(days=1))
        found: list[Occurrence] = []
        for ev in self.events():
            if ev.interval <= 0:
                if ev.start < hi and (ev.end > lo or ev.start >= lo):
                    found.append(Occurrence(ev, ev.start, ev.end))
                continue
            start_dt = self.dt(ev.start)
            d = max(first, start_dt.date())
            while d <= last:
                s = self.ts(d, start_dt.hour, start_dt.minute)
                if ev.limit > 0 and s > ev.limit:  # a positive limit is the last moment a repeat may start
                    break
                if repeats_on(ev, start_dt.date(), d):
                    found.append(Occurrence(ev, s, s + ev.end - ev.start))
                d += timedelta(days=1)
        return sorted(found, key=lambda o: (o.start, o.event.id))

    def delete(self, ev: Event, occurrence_start: int, how: str) -> None:
        """Delete an event: all of it, one occurrence (an exception) or this and the later ones (a limit)."""
        db = self.db_file(DB)
        if ev.interval <= 0 or how == "all" or (how == "future" and occurrence_start <= ev.start):
            sql(db, "DELETE FROM events WHERE id = ?", (ev.id,))
        elif how == "one":
            exceptions = [*ev.exceptions, day_code(self.dt(occurrence_start).date())]
            sql(
                db,
                "UPDATE events SET repetition_exceptions = ? WHERE id = ?",
                (json.dumps(exceptions), ev.id),
            )
        else:
            sql(db, "UPDATE events SET repeat_limit = ? WHERE id = ?", (occurrence_start - 1, ev.id))

    # ---- formatting
    def hm(self, ts: int) -> str:
        return self.dt(ts).strftime("%H:%M")

    def when(self, occ: Occurrence) -> str:
        return "All-day" if occ.event.all_day else f"{self.hm(occ.start)} - {self.hm(occ.end)}"

    # ---- main screen
    def main(self, ctx: ScreenContext) -> View:
        st = ctx.state
        view = str(st.get("view", "month"))
        day = date.fromisoformat(str(st["day"])) if "day" in st else self.today(ctx)
        selected: list[int] = list(st.get("selected", []))

        def set_day(d: date) -> None:
            st["day"] = d.isoformat()

        def new_event() -> None:
            now = self.dt(ctx.now_ms() // 1000)
            hour = min(now.hour + 1, 23)
            ctx.start(EVENT, {"start": self.ts(day, hour)})

        def open_occurrence(occ: Occurrence) -> Callable[[], None]:
            return lambda: ctx.start(EVENT, {"event_id": occ.event.id, "occurrence": occ.start})

        def toggle(occ: Occurrence) -> Callable[[], None]:
            def run() -> None:
                ids: list[int] = list(st.get("selected", []))
                key = occ.event.id
                st["selected"] = [i for i in ids if i != key] if key in ids else [*ids, key]
                st["selected_starts"] = {**st.get("selected_starts", {}), str(key): occ.start}

            return run

        def occurrence_row(occ: Occurrence, show_date: bool = False) -> View:
            chosen = occ.event.id in selected
            when = self.when(occ)
            if show_date:
                when = f"{self.dt(occ.start).strftime('%b %-d %Y')}, {when}"
            texts: list[View] = [
                Text(id="event_item_title", text=occ.event.title or "(No title)", size=16, medium=True),
                Text(id="event_item_time", text=when, size=14, color="on_surface_variant"),
            ]
            if occ.event.description:
                texts.append(
                    Text(
                        id="event_item_description",
                        text=occ.event.description,
                        size=14,
                        color="on_surface_variant",
                    )
                )
            return Row(
                id="event_item_holder",
                pad=(16, 10, 16, 10),
                spacing=12,
                selected=chosen,
                bg="secondary_container" if chosen else None,
                on_click=toggle(occ) if selected else open_occurrence(occ),
                on_long_click=toggle(occ),
                children=[
                    Column(width=4, height=44, bg="#F57C00", radius=2),
                    Column(weight=1, children=texts),
                ],
            )

        layers: list[View] = []
        if selected:
            ctx.on_back(lambda: st.pop("selected", None))
            bar = app_bar(
                f"{len(selected)} selected",
                back=lambda: st.pop("selected", None),
                actions=[action("delete", "Delete", lambda: st.update(dialog="delete"), id="cab_delete")],
            )
        elif st.get("searching"):

            def stop_search() -> None:
                st.pop("searching", None)
                ctx.set_fields({})

            ctx.on_back(stop_search)
            bar = Row(
                id="toolbar",
                height=64,
                pad=(4, 0, 8, 0),
                children=[
                    IconButton(
                        name="arrow_back",
                        desc="Navigate up",
                        tint="on_surface",
                        on_click=stop_search,
                    ),
                    EditText(
                        id="search_src_text",
                        key="query",
                        hint="Search…",
                        style="search",
                        text=ctx.field("query"),
                        weight=1,
                    ),
                ],
            )
        else:
            titles = {
                "day": day.strftime("%B %Y"),
                "week": day.strftime("%B %Y"),
                "month": day.strftime("%B %Y"),
                "list": "Simple Calendar Pro",
            }

            def start_search() -> None:
                st["searching"] = True
                ctx.set_fields({})
                ctx.focus("query")

            bar = app_bar(
                titles.get(view, ""),
                actions=[
                    action("search", "Search", start_search, id="search"),
                    action("calendar", "Go to today", lambda: st.pop("day", None), id="go_to_today"),
                    action("apps", "Change view", lambda: st.update(dialog="views"), id="change_view"),
                ],
            )

        if st.get("searching") and not selected:
            query = ctx.field("query").strip().lower()
            hits = [
                Occurrence(ev, ev.start, ev.end)
                for ev in self.events()
                if query and query in f"{ev.title}\n{ev.location}\n{ev.description}".lower()
            ]
            found = [partial(occurrence_row, o, show_date=True) for o in hits]  # made as the list shows them
            body: list[View] = [
                Scroll(
                    id="search_results_list",
                    key="search",
                    weight=1,
                    rows=Rows.of(found),
                    empty=empty_state("search", "No items found" if query else "Search for events"),
                )
            ]
        elif view == "day":
            body = self.day_view(ctx, day, set_day, occurrence_row)
        elif view == "week":
            body = self.week_view(ctx, day, set_day, open_occurrence)
        elif view == "list":
            body = self.list_view(ctx, occurrence_row)
        else:
            body = self.month_view(ctx, day, set_day)

        if selected:
            ctx.on_back(lambda: st.pop("selected", None))  # the views above set their own BACK first
        elif st.get("searching"):
            ctx.on_back(stop_search)
        layers.append(Column(bg="surface", children=[bar, Column(weight=1, children=body)]))
        if not selected and not st.get("searching"):
            layers.append(fab("add", "New Event", new_event, id="calendar_fab"))
        if st.get("dialog") == "views":
            self.views_dialog(ctx, layers)
        elif st.get("dialog") == "delete":
            self.delete_dialog(
                ctx,
                layers,
                [(i, int(st.get("selected_starts", {}).get(str(i), 0))) for i in selected],
                after=lambda: st.pop("selected", None),
            )
        return Stack(children=layers)

    def views_dialog(self, ctx: ScreenContext, layers: list[View]) -> None:
        st = ctx.state

        def close() -> None:
            st.pop("dialog", None)

        def choose(key: str) -> Callable[[], None]:
            def run() -> None:
                st["view"] = key
                st.pop("back_to_month", None)
                close()

            return run

        current = str(st.get("view", "month"))
        options: list[View] = [radio(label, key == current, choose(key)) for label, key in VIEWS]
        ctx.on_back(close)
        layers.append(dialog("Change view", options, [], close))

    def delete_dialog(
        self,
        ctx: ScreenContext,
        layers: list[View],
        targets: list[tuple[int, int]],
        after: Callable[[], None],
    ) -> None:
        """Confirm deleting events; a repeating one asks which of its occurrences go."""
        st = ctx.state
        events = [(ev, start) for eid, start in targets if (ev := self.event_by_id(eid)) is not None]
        repeating = any(ev.interval > 0 for ev, _ in events)
        how = str(st.get("delete_how", "one"))

        def close() -> None:
            st.pop("dialog", None)
            st.pop("delete_how", None)

        def confirm() -> None:
            for ev, start in events:
                self.delete(ev, start or ev.start, how)
            close()
            after()

        body: list[View] = []
        if repeating:
            for label, key in (
                ("Delete only the selected occurrence", "one"),
                ("Delete this and all future occurrences", "future"),
                ("Delete all occurrences", "all"),
            ):
                body.append(radio(label, how == key, lambda k=key: st.update(delete_how=k)))  # type: ignore[misc]
        ctx.on_back(close)
        message = "Are you sure you want to proceed with the deletion?"
        layers.append(dialog("Delete", body, [("No", close), ("Yes", confirm)], close, message=message))

    def nav(self, label: str, back: Callable[[], None], forward: Callable[[], None]) -> View:
        return Row(
            height=56,
            pad=(8, 0, 8, 0),
            children=[
                IconButton(id="top_left_arrow", name="chevron_left", desc="Previous", on_click=back),
                Text(id="top_value", text=label, size=18, medium=True, gravity="center", weight=1),
                IconButton(id="top_right_arrow", name="chevron_right", desc="Next", on_click=forward),
            ],
        )

    def month_view(self, ctx: ScreenContext, day: date, set_day: Callable[[date], None]) -> list[View]:
        first = day.replace(day=1)
        last = first.replace(day=cal.monthrange(first.year, first.month)[1])
        grid_start = first - timedelta(days=(first.weekday() + 1) % 7)  # weeks start on Sunday (en_US)
        grid_end = grid_start + timedelta(days=41)
        by_day: dict[date, list[str]] = {}
        for occ in self.occurrences(grid_start, grid_end):
            by_day.setdefault(self.dt(occ.start).date(), []).append(occ.event.title)
        today = self.today(ctx)

        def shift(months: int) -> Callable[[], None]:
            def run() -> None:
                y, m = divmod(first.month - 1 + months, 12)
                set_day(date(first.year + y, m + 1, 1))

            return run

        def open_day(d: date) -> Callable[[], None]:
            def run() -> None:
                set_day(d)
                ctx.state["view"] = "day"
                ctx.state["from_month"] = True  # BACK returns to the month, as in the app

            return run

        ctx.on_swipe(lambda way: shift(1)() if way == "left" else shift(-1)() if way == "right" else None)
        letters = Row(
            children=[
                Text(text=x, size=12, gravity="center", weight=1, color="on_surface_variant")
                for x in ("S", "M", "T", "W", "T", "F", "S")
            ]
        )
        weeks: list[View] = [letters]
        for w in range(6):
            cells: list[View] = []
            for i in range(7):
                d = grid_start + timedelta(days=w * 7 + i)
                titles = by_day.get(d, [])
                inside = first <= d <= last
                labels: list[View] = [
                    Text(
                        text=str(d.day),
                        size=14,
                        gravity="center",
                        medium=d == today,
                        color=("primary" if d == today else "on_surface") if inside else "outline_variant",
                    )
                ]
                labels += [
                    Text(text=t, size=9, lines=1, color="#E65100", pad=(2, 0, 2, 0)) for t in titles[:3]
                ]
                if len(titles) > 3:
                    labels.append(Text(text=f"+{len(titles) - 3}", size=9, gravity="center", color="#E65100"))
                cells.append(
                    Column(
                        id="month_day",
                        desc=f"{d.day} {d.strftime('%B %Y')}",
                        weight=1,
                        height=92,
                        pad=(0, 4, 0, 0),
                        border="outline_variant" if d == today else None,
                        on_click=open_day(d),
                        children=labels,
                    )
                )
            weeks.append(Row(children=cells))
        return [
            self.nav(first.strftime("%B %Y"), shift(-1), shift(1)),
            Column(pad=(4, 0, 4, 0), children=weeks),
        ]

    def day_view(
        self,
        ctx: ScreenContext,
        day: date,
        set_day: Callable[[date], None],
        row: Callable[..., View],
    ) -> list[View]:
        def shift(n: int) -> Callable[[], None]:
            return lambda: set_day(day + timedelta(days=n))

        ctx.on_swipe(lambda way: shift(1)() if way == "left" else shift(-1)() if way == "right" else None)
        if ctx.state.pop("from_month", None) or ctx.state.get("back_to_month"):
            ctx.state["back_to_month"] = True
            ctx.on_back(lambda: ctx.state.update(view="month", back_to_month=False))
        items = [partial(row, o) for o in self.occurrences(day, day) if self.dt(o.start).date() <= day]
        label = f"{day.strftime('%B')} {day.day} ({day.strftime('%A')})"
        return [
            self.nav(label, shift(-1), shift(1)),
            Scroll(
                id="day_events",
                key="day",
                weight=1,
                pad=(0, 0, 0, 88),
                rows=Rows.of(items),
                empty=empty_state("calendar", "No events"),
            ),
        ]

    def week_view(
        self,
        ctx: ScreenContext,
        day: date,
        set_day: Callable[[date], None],
        open_occurrence: Callable[[Occurrence], Callable[[], None]],
    ) -> list[View]:
        """Seven day columns under one hour ruler; overlapping events share their day's width."""
        start = day - timedelta(days=(day.weekday() + 1) % 7)
        end = start + timedelta(days=6)
        today = self.today(ctx)

        def shift(n: int) -> Callable[[], None]:
            return lambda: set_day(day + timedelta(days=n))

        def open_day(d: date) -> Callable[[], None]:
            def run() -> None:
                set_day(d)
                ctx.state["view"] = "day"

            return run

        ctx.on_swipe(lambda way: shift(7)() if way == "left" else shift(-7)() if way == "right" else None)
        occurrences = self.occurrences(start, end)
        heads: list[View] = [Text(text="", width=40)]
        # each hour's label is centred on its line, so the ruler starts half a label above 01:00
        ruler: list[View] = [Spacer(height=HOUR_DP / 2)]
        ruler += [
            Text(text=f"{h:02d}:00", size=10, color="on_surface_variant", height=HOUR_DP, gravity="center")
            for h in range(1, 24)
        ]
        columns: list[View] = [Column(width=40, height=24 * HOUR_DP, children=ruler)]
        by_day: dict[date, list[Occurrence]] = {}
        for o in occurrences:
            by_day.setdefault(self.dt(o.start).date(), []).append(o)
        for i in range(7):
            d = start + timedelta(days=i)
            todays = by_day.get(d, [])
            all_day = [o for o in todays if o.event.all_day]
            heads.append(
                Column(
                    id="week_day_label",
                    weight=1,
                    on_click=open_day(d),
                    desc=f"{d.day} {d.strftime('%B %Y')}",
                    children=[
                        Text(text=d.strftime("%a")[0], size=12, gravity="center", color="on_surface_variant"),
                        Text(
                            text=str(d.day),
                            size=16,
                            gravity="center",
                            medium=d == today,
                            color="primary" if d == today else "on_surface",
                        ),
                        *[
                            Text(
                                id="week_all_day_event",
                                text=o.event.title,
                                size=9,
                                bg="#F57C00",
                                color="#FFFFFF",
                                on_click=open_occurrence(o),
                            )
                            for o in all_day
                        ],
                    ],
                )
            )
            columns.append(self.day_column(d, [o for o in todays if not o.event.all_day], open_occurrence))
        label = f"{start.strftime('%b')} {start.day} - {end.strftime('%b')} {end.day}"
        return [
            self.nav(label, shift(-7), shift(7)),
            Row(pad=(4, 0, 4, 4), children=heads),
            Scroll(
                id="week_view_holder",
                key="week",
                weight=1,
                pad=(4, 0, 4, 88),
                children=[Row(children=columns)],
            ),
        ]

    def day_column(
        self,
        d: date,
        occurrences: list[Occurrence],
        open_occurrence: Callable[[Occurrence], Callable[[], None]],
    ) -> View:
        """One day of the week grid: events placed by time in lanes, a new lane for each overlap."""
        midnight = self.ts(d)
        spans: list[tuple[float, float]] = []
        for occ in occurrences:
            top = max(0.0, (occ.start - midnight) / 3600 * HOUR_DP)
            spans.append(
                (top, min(24 * HOUR_DP, max(top + MIN_EVENT_DP, (occ.end - midnight) / 3600 * HOUR_DP)))
            )
        lanes: list[list[tuple[float, float, Occurrence]]] = []
        for (top, bottom), occ, at in zip(spans, occurrences, lane_of(spans), strict=True):
            if at == len(lanes):
                lanes.append([])
            lanes[at].append((top, bottom, occ))
        lane_views: list[View] = []
        for lane in lanes:
            children: list[View] = []
            y = 0.0
            for top, bottom, occ in lane:
                if top > y:
                    children.append(Spacer(height=top - y))
                children.append(
                    Column(
                        id="week_event_label",
                        height=bottom - top,
                        bg="#F57C00",
                        radius=4,
                        pad=(2, 1, 2, 1),
                        desc=f"{occ.event.title}, {self.when(occ)}",
                        on_click=open_occurrence(occ),
                        children=[Text(text=occ.event.title, size=9, lines=4, color="#FFFFFF")],
                    )
                )
                y = bottom
            lane_views.append(Column(weight=1, height=24 * HOUR_DP, pad=(1, 0, 1, 0), children=children))
        return Row(weight=1, height=24 * HOUR_DP, border="outline_variant", children=lane_views)

    def list_view(self, ctx: ScreenContext, row: Callable[..., View]) -> list[View]:
        today = self.today(ctx)
        items: list[Callable[[], View]] = []  # made as the list shows them
        shown: date | None = None
        for occ in self.occurrences(today, today + timedelta(days=365)):
            d = self.dt(occ.start).date()
            if d < today:
                continue
            if d != shown:
                items.append(partial(header, f"{d.strftime('%A')}, {d.strftime('%B')} {d.day} {d.year}"))
                shown = d
            items.append(partial(row, occ))
        return [
            Scroll(
                id="calendar_events_list",
                key="list",
                weight=1,
                pad=(0, 0, 0, 88),
                rows=Rows.of(items),
                empty=empty_state("calendar", "No upcoming events"),
            )
        ]

    # ---- the event editor
    def event(self, ctx: ScreenContext) -> View:
        st = ctx.state
        eid = ctx.extras.get("event_id")
        existing = self.event_by_id(int(eid)) if eid is not None else None
        if not st.get("loaded"):
            st["loaded"] = True
            self.load(ctx, existing)
        start, end = int(st["start"]), int(st["end"])

        def save() -> None:
            title = ctx.field("title").strip()
            s, e = int(st["start"]), int(st["end"])
            if not title:
                ctx.toast("Title cannot be empty")
                return
            if e < s:
                ctx.toast("The event cannot end earlier than it starts")
                return
            if st.get("all_day"):
                s = self.ts(self.dt(s).date())
                e = self.ts(self.dt(e).date())
            values = (
                s,
                e,
                title,
                ctx.field("location").strip(),
                ctx.field("description").strip(),
                int(st["reminders"][0]),
                int(st["reminders"][1]),
                int(st["reminders"][2]),
                int(st["interval"]),
                repeat_rule(int(st["interval"]), int(st["rule"])),
            )
            flags = FLAG_ALL_DAY if st.get("all_day") else 0
            now = ctx.now_ms()
            db = self.db_file(DB)
            if existing is not None:
                sql(
                    db,
                    "UPDATE events SET start_ts = ?, end_ts = ?, title = ?, location = ?, description = ?,"
                    " reminder_1_minutes = ?, reminder_2_minutes = ?, reminder_3_minutes = ?,"
                    " repeat_interval = ?, repeat_rule = ?, flags = ?, last_updated = ? WHERE id = ?",
                    (*values, flags, now, existing.id),
                )
            else:
                import_id = uuid.uuid4().hex + str(now)
                sql(db, INSERT, (*values, import_id, str(device_zone(self.device.props)), flags, now, SOURCE))
            ctx.toast("Event updated successfully" if existing else "Event added successfully")
            ctx.finish()

        actions: list[View] = []
        if existing is not None:
            actions.append(action("delete", "Delete", lambda: st.update(dialog="delete"), id="delete"))
        actions.append(action("check", "Save", save, id="save"))
        bar = app_bar("Edit Event" if existing else "New Event", back=ctx.finish, actions=actions)

        def open_dialog(name: str) -> Callable[[], None]:
            def run() -> None:
                st["dialog"] = name
                moment = self.dt(int(st[name.split("_")[0]]))
                if name.endswith("date"):
                    pickers.open_date(st, moment.date())
                else:  # the app's time format is 24-hour (its times read 09:15)
                    pickers.open_time(st, moment.hour, moment.minute, is24=True)

            return run

        def picker_row(label: str, date_id: str, time_id: str, ts: int, which: str) -> View:
            d = self.dt(ts)
            children: list[View] = [
                Text(text=label, size=14, color="on_surface_variant", width=56),
                Text(
                    id=date_id,
                    text=d.strftime("%a, %b %-d, %Y"),
                    size=16,
                    weight=1,
                    pad=(0, 12, 0, 12),
                    on_click=open_dialog(f"{which}_date"),
                ),
            ]
            if not st.get("all_day"):
                children.append(
                    Text(
                        id=time_id,
                        text=d.strftime("%H:%M"),
                        size=16,
                        pad=(16, 12, 0, 12),
                        on_click=open_dialog(f"{which}_time"),
                    )
                )
            return Row(spacing=8, children=children)

        def reminder_label(minutes: int) -> str:
            return next((label for label, m in REMINDERS if m == minutes), f"{minutes} minutes before")

        reminders = [int(m) for m in st["reminders"]]
        form: list[View] = [
            EditText(id="event_title", key="title", hint="Title", text=ctx.field("title")),
            EditText(id="event_location", key="location", hint="Location", text=ctx.field("location")),
            EditText(
                id="event_description",
                key="description",
                hint="Description",
                multiline=True,
                height=96,
                text=ctx.field("description"),
            ),
            Row(
                on_click=lambda: st.update(all_day=not st.get("all_day")),
                children=[
                    Text(text="All-day", size=16, weight=1),
                    Toggle(
                        id="event_all_day",
                        on=bool(st.get("all_day")),
                        on_click=lambda: st.update(all_day=not st.get("all_day")),
                    ),
                ],
            ),
            picker_row("Start", "event_start_date", "event_start_time", start, "start"),
            picker_row("End", "event_end_date", "event_end_time", end, "end"),
            Text(
                id="event_reminder_1",
                text=reminder_label(reminders[0]),
                size=16,
                pad=(0, 12, 0, 12),
                on_click=lambda: st.update(dialog="reminder_0"),
            ),
        ]
        if reminders[0] != -1:
            form.append(
                Text(
                    id="event_reminder_2",
                    text=reminder_label(reminders[1]) if reminders[1] != -1 else "Add another reminder",
                    size=16,
                    pad=(0, 12, 0, 12),
                    on_click=lambda: st.update(dialog="reminder_1"),
                )
            )
        if reminders[0] != -1 and reminders[1] != -1:
            form.append(
                Text(
                    id="event_reminder_3",
                    text=reminder_label(reminders[2]) if reminders[2] != -1 else "Add another reminder",
                    size=16,
                    pad=(0, 12, 0, 12),
                    on_click=lambda: st.update(dialog="reminder_2"),
                )
            )
        interval = int(st["interval"])
        repeat_label = next((label for label, v in REPEATS if v == interval), f"Every {interval // DAY} days")
        form.append(
            Text(
                id="event_repetition",
                text=repeat_label,
                size=16,
                pad=(0, 12, 0, 12),
                on_click=lambda: st.update(dialog="repeat"),
            )
        )
        if interval == WEEK:
            form.append(self.weekday_toggles(ctx))
        if interval > 0:
            form.append(
                Text(
                    id="event_repetition_limit",
                    text="Repeat till: Forever",
                    size=16,
                    color="on_surface_variant",
                    pad=(0, 12, 0, 12),
                )
            )
        form.append(Text(id="event_type", text="Regular event", size=16, pad=(0, 12, 0, 12)))
        layers: list[View] = [
            Column(
                bg="surface",
                children=[bar, Scroll(key="form", weight=1, pad=(16, 8, 16, 16), spacing=12, children=form)],
            )
        ]
        self.editor_dialog(ctx, layers, existing)
        return Stack(children=layers)

    def load(self, ctx: ScreenContext, existing: Event | None) -> None:
        st = ctx.state
        if existing is not None:
            rows = sql(
                self.db_file(DB),
                "SELECT reminder_1_minutes, reminder_2_minutes, reminder_3_minutes FROM events WHERE id = ?",
                (existing.id,),
            )
            occurrence = int(ctx.extras.get("occurrence", existing.start))
            st.update(
                start=occurrence,
                end=occurrence + existing.end - existing.start,
                reminders=[int(x) for x in rows[0]],
                interval=existing.interval,
                rule=existing.rule or weekday_bit(self.dt(existing.start).date()),
                all_day=existing.all_day,
                occurrence=occurrence,
            )
            ctx.set_fields(
                {"title": existing.title, "location": existing.location, "description": existing.description}
            )
        else:
            start = int(ctx.extras.get("start", ctx.now_ms() // 1000))
            st.update(
                start=start,
                end=start + 3600,
                reminders=[10, -1, -1],
                interval=0,
                rule=weekday_bit(self.dt(start).date()),
                all_day=False,
            )
            ctx.set_fields({})
            ctx.focus("title")

    def weekday_toggles(self, ctx: ScreenContext) -> View:
        st = ctx.state
        rule = int(st["rule"])

        def flip(bit: int) -> Callable[[], None]:
            def run() -> None:
                value = int(st["rule"]) ^ bit
                st["rule"] = value or bit  # at least one day stays chosen

            return run

        chips: list[View] = []
        for i, name in enumerate(WEEKDAYS):
            bit = 1 << i
            chips.append(
                Button(
                    text=name[0],
                    desc=name,
                    style="tonal" if rule & bit else "outlined",
                    selected=bool(rule & bit),
                    width=40,
                    height=40,
                    on_click=flip(bit),
                )
            )
        return Row(id="event_repetition_rule_holder", spacing=4, children=chips)

    def editor_dialog(self, ctx: ScreenContext, layers: list[View], existing: Event | None) -> None:
        st = ctx.state
        name = str(st.get("dialog", ""))
        if not name:
            return

        def close() -> None:
            st.pop("dialog", None)
            pickers.close(st)

        ctx.on_back(close)
        if name == "delete" and existing is not None:
            occurrence = int(st.get("occurrence", existing.start))
            self.delete_dialog(ctx, layers, [(existing.id, occurrence)], after=ctx.finish)
        elif name == "repeat":

            def choose(value: int) -> Callable[[], None]:
                def run() -> None:
                    st["interval"] = value
                    st["rule"] = weekday_bit(self.dt(int(st["start"])).date())
                    close()

                return run

            options: list[View] = [radio(label, v == int(st["interval"]), choose(v)) for label, v in REPEATS]
            layers.append(dialog("Repetition", options, [], close))
        elif name.startswith("reminder_"):
            slot = int(name.split("_")[1])

            def remind(minutes: int) -> Callable[[], None]:
                def run() -> None:
                    values = [int(m) for m in st["reminders"]]
                    values[slot] = minutes
                    kept = [m for m in values if m != -1]
                    st["reminders"] = [*kept, -1, -1, -1][:3]
                    close()

                return run

            current = int(st["reminders"][slot])
            options = [radio(label, m == current, remind(m)) for label, m in REMINDERS]
            layers.append(dialog("Reminder", options, [], close))
        elif name.endswith("_date") and pickers.showing(st) == "date":
            which = name.split("_")[0]

            def set_day(d: date) -> None:
                self.set_moment(
                    ctx, which, self.dt(int(st[which])).replace(year=d.year, month=d.month, day=d.day)
                )

            layers.append(pickers.date_picker(st, set_day, close))
        elif name.endswith("_time") and pickers.showing(st) == "time":
            which = name.split("_")[0]

            def set_time(hour: int, minute: int) -> None:
                self.set_moment(ctx, which, self.dt(int(st[which])).replace(hour=hour, minute=minute))

            layers.append(pickers.time_picker(st, set_time, close))

    def set_moment(self, ctx: ScreenContext, which: str, moment: datetime) -> None:
        """Set the start or end; moving the start moves the end with it, as the app keeps the duration."""
        st = ctx.state
        ts = int(moment.timestamp())
        if which == "start":
            old = self.dt(int(st["start"])).date()
            duration = int(st["end"]) - int(st["start"])
            st["start"], st["end"] = ts, ts + duration
            if int(st["rule"]) == weekday_bit(old):  # a weekly series on the start's day follows the start
                st["rule"] = weekday_bit(moment.date())
        else:
            st["end"] = ts


def radio(label: str, on: bool, choose: Callable[[], None]) -> View:
    """A RadioButton row of a single-choice dialog."""
    return Row(
        id="dialog_radio_item",
        height=48,
        spacing=16,
        on_click=choose,
        children=[CheckBox(on=on, on_click=choose, width=24, height=24), Text(text=label, size=16, weight=1)],
    )
