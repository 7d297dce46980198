"""Calendar (com.android.calendar) over the calendar provider (calendar.db, content://com.android.calendar)."""

from __future__ import annotations

import calendar as cal
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import partial

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.system.clock import device_zone, instant, local_ms
from mgfarm.sim.system.cursor import get_long, get_string
from mgfarm.sim.system.providers import Route, SqliteProvider
from mgfarm.sim.ui import pickers
from mgfarm.sim.ui.views import Button, Column, EditText, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import app_bar, editor, empty_state, fab, list_item, tabs

PKG = "com.android.calendar"
PROVIDER_PKG = "com.android.providers.calendar"
MAIN = "com.android.calendar.AllInOneActivity"
EDIT = "com.android.calendar.event.EditEventActivity"
SCHEMA = """
CREATE TABLE IF NOT EXISTS Calendars (
  _id INTEGER PRIMARY KEY, account_name TEXT, account_type TEXT, name TEXT, calendar_displayName TEXT,
  calendar_color INTEGER, calendar_access_level INTEGER, visible INTEGER NOT NULL DEFAULT 1,
  sync_events INTEGER NOT NULL DEFAULT 1, ownerAccount TEXT, calendar_timezone TEXT, isPrimary INTEGER,
  deleted INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS Events (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, calendar_id INTEGER NOT NULL, title TEXT, description TEXT,
  eventLocation TEXT, eventColor INTEGER, eventStatus INTEGER,
  selfAttendeeStatus INTEGER NOT NULL DEFAULT 0,
  dtstart INTEGER, dtend INTEGER, duration TEXT, eventTimezone TEXT, eventEndTimezone TEXT,
  allDay INTEGER NOT NULL DEFAULT 0, accessLevel INTEGER NOT NULL DEFAULT 0,
  availability INTEGER NOT NULL DEFAULT 0, hasAlarm INTEGER NOT NULL DEFAULT 0,
  hasExtendedProperties INTEGER NOT NULL DEFAULT 0, rrule TEXT, rdate TEXT,
  exrule TEXT, exdate TEXT, original_id INTEGER, lastDate INTEGER, hasAttendeeData INTEGER NOT NULL DEFAULT 0,
  organizer TEXT, deleted INTEGER NOT NULL DEFAULT 0, dirty INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS Reminders (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, event_id INTEGER, minutes INTEGER,
  method INTEGER NOT NULL DEFAULT 0);
"""
SEED = (
    (
        "INSERT OR IGNORE INTO Calendars (_id, account_name, account_type, name, calendar_displayName,"
        " calendar_color, calendar_access_level, ownerAccount, calendar_timezone, isPrimary)"
        " VALUES (1, 'Local calendar', 'LOCAL', 'Local calendar', 'Local calendar', -15292571, 700,"
        " 'Local calendar', 'UTC', 1)",
        (),
    ),
)


class Calendar(App):
    package = PKG
    label = "Calendar"
    main_activity = MAIN
    icon = "calendar"
    icon_color = "#1967D2"
    intent_actions = {"android.intent.action.INSERT": EDIT, "android.intent.action.EDIT": EDIT}
    provider_packages = (PROVIDER_PKG,)

    def create_data(self) -> None:
        sql_script(self.db_file("calendar.db", PROVIDER_PKG), SCHEMA, SEED)

    def install(self) -> None:
        self.make_data()
        providers = self.device.services.providers
        path = lambda: self.db_file("calendar.db", PROVIDER_PKG)  # noqa: E731
        routes = {
            "events": Route("Events", where="deleted = 0"),
            "calendars": Route("Calendars"),
            "reminders": Route("Reminders"),
        }
        providers.register(
            "com.android.calendar", SqliteProvider("com.android.calendar", path, routes, self.device.fs.space)
        )

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, EDIT: self.edit}

    # ---- time helpers
    def day_range(self, day: date) -> tuple[int, int]:
        start = datetime(day.year, day.month, day.day, tzinfo=device_zone(self.device.props))
        return int(start.timestamp() * 1000), int((start + timedelta(days=1)).timestamp() * 1000)

    def events_between(self, start_ms: int, end_ms: int) -> list[tuple[int, str, int, int, int]]:
        rows = sql(
            self.db_file("calendar.db", PROVIDER_PKG),
            "SELECT _id, coalesce(title, ''), dtstart, coalesce(dtend, dtstart), allDay FROM Events "
            "WHERE deleted = 0 AND dtstart < ? AND coalesce(dtend, dtstart) >= ? ORDER BY dtstart, _id",
            (end_ms, start_ms),
        )
        return [(int(r[0]), str(r[1]), get_long(r[2]), get_long(r[3]), get_long(r[4])) for r in rows]

    def selected_day(self, ctx: ScreenContext) -> date:
        if "day" in ctx.state:
            return date.fromisoformat(str(ctx.state["day"]))
        return ctx.today()

    def hm(self, ms: int) -> str:
        t = local_ms(self.device.props, ms)
        return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        view = int(ctx.state.get("view", 1))  # 0 day, 1 month
        day = self.selected_day(ctx)

        def choose(i: int) -> None:
            ctx.state["view"] = i

        def create() -> None:
            ctx.start(EDIT, {"day": day.isoformat()})

        body = self.day_view(ctx, day) if view == 0 else self.month_view(ctx, day)
        return Stack(
            bg="surface",
            children=[
                Column(
                    children=[
                        app_bar(day.strftime("%B %Y"), actions=[]),
                        tabs(("Day", "Month"), view, choose),
                        Column(weight=1, children=body),
                    ]
                ),
                fab("add", "Create new event", create, id="floating_action_button"),
            ],
        )

    def month_view(self, ctx: ScreenContext, day: date) -> list[View]:
        first = day.replace(day=1)
        last = first.replace(day=cal.monthrange(first.year, first.month)[1])
        start_ms, _ = self.day_range(first)
        _, end_ms = self.day_range(last)
        counts: dict[date, int] = {}
        for _id, _t, s, _e, _a in self.events_between(start_ms, end_ms):
            d = local_ms(self.device.props, s).date()
            counts[d] = counts.get(d, 0) + 1
        today = ctx.today()

        def shift(months: int) -> Callable[[], None]:
            def run() -> None:
                y, m = divmod(first.month - 1 + months, 12)
                ctx.state["day"] = date(first.year + y, m + 1, 1).isoformat()

            return run

        def pick(d: date) -> Callable[[], None]:
            def run() -> None:
                ctx.state["day"] = d.isoformat()
                ctx.state["view"] = 0

            return run

        weeks: list[View] = [
            Row(
                height=32,
                children=[
                    Text(text=w, size=12, medium=True, gravity="center", weight=1, color="on_surface_variant")
                    for w in ("S", "M", "T", "W", "T", "F", "S")
                ],
            )
        ]
        grid = cal.Calendar(firstweekday=6).monthdatescalendar(first.year, first.month)
        for week in grid:
            cells: list[View] = []
            for d in week:
                n = counts.get(d, 0)
                label = d.strftime("%B ") + str(d.day) + (f", {n} event{'s' if n != 1 else ''}" if n else "")
                cells.append(
                    Column(
                        id="month_day",
                        desc=label,
                        weight=1,
                        height=84,
                        on_click=pick(d),
                        pad=(0, 6, 0, 0),
                        children=[
                            Text(
                                text=str(d.day),
                                size=14,
                                gravity="center",
                                medium=d == today,
                                color=("primary" if d == today else "on_surface")
                                if d.month == first.month
                                else "outline_variant",
                            ),
                            Text(text="•" * min(n, 3), size=16, gravity="center", color="primary"),
                        ],
                    )
                )
            weeks.append(Row(children=cells))
        nav = Row(
            height=48,
            pad=(8, 0, 8, 0),
            children=[
                IconButton(id="prev", name="chevron_left", desc="Previous month", on_click=shift(-1)),
                Text(text=first.strftime("%B %Y"), size=16, medium=True, gravity="center", weight=1),
                IconButton(id="next", name="chevron_right", desc="Next month", on_click=shift(1)),
            ],
        )
        return [nav, Column(pad=(8, 0, 8, 0), children=weeks)]

    def day_view(self, ctx: ScreenContext, day: date) -> list[View]:
        start_ms, end_ms = self.day_range(day)

        def shift(days: int) -> Callable[[], None]:
            return lambda: ctx.state.update(day=(day + timedelta(days=days)).isoformat())

        rows = [  # made as the list shows them
            partial(self.event_row, ctx, eid, title, s, e, all_day)
            for eid, title, s, e, all_day in self.events_between(start_ms, end_ms)
        ]
        nav = Row(
            height=56,
            pad=(8, 0, 8, 0),
            children=[
                IconButton(id="prev", name="chevron_left", desc="Previous day", on_click=shift(-1)),
                Text(
                    id="date_header",
                    text=day.strftime("%A, %B ") + str(day.day),
                    size=16,
                    medium=True,
                    gravity="center",
                    weight=1,
                ),
                IconButton(id="next", name="chevron_right", desc="Next day", on_click=shift(1)),
            ],
        )
        return [
            nav,
            Scroll(
                id="events",
                key="events",
                weight=1,
                pad=(0, 0, 0, 88),
                rows=Rows.of(rows),
                empty=empty_state("calendar", "No events"),
            ),
        ]

    def event_row(self, ctx: ScreenContext, eid: int, title: str, s: int, e: int, all_day: int) -> View:
        """One event of the day's list; tapping it opens the event's editor."""
        when = "All day" if all_day else f"{self.hm(s)} – {self.hm(e)}"
        return list_item(
            title or "(No title)",
            when,
            icon="calendar",
            on_click=lambda: ctx.start(EDIT, {"event_id": eid}),
            id="event",
            title_id="event_title",
            subtitle_id="event_time",
        )

    def edit(self, ctx: ScreenContext) -> View:
        """EditEventActivity: title, From and To rows whose date and time buttons open Android's
        date and time pickers (moving the start keeps the duration, as the app does), location,
        description."""
        db = self.db_file("calendar.db", PROVIDER_PKG)
        tz = device_zone(self.device.props)
        eid = ctx.extras.get("event_id")
        st = ctx.state
        if not st.get("loaded"):
            st["loaded"] = True
            rows = (
                sql(
                    db,
                    "SELECT title, dtstart, dtend, eventLocation, description FROM Events WHERE _id = ?",
                    (int(eid),),
                )
                if eid is not None
                else []
            )
            if rows:
                title, start, end, loc, desc = rows[0]
                st["start"] = get_long(start)
                st["end"] = get_long(end) or st["start"]
                ctx.set_fields(
                    {"title": get_string(title), "location": get_string(loc), "description": get_string(desc)}
                )
            else:
                day = date.fromisoformat(str(ctx.extras.get("day", self.selected_day(ctx).isoformat())))
                start = datetime(day.year, day.month, day.day, 9, 0, tzinfo=tz)
                st["start"] = int(start.timestamp() * 1000)
                st["end"] = int((start + timedelta(hours=1)).timestamp() * 1000)
                ctx.set_fields({})

        def moment(which: str) -> datetime:
            return instant(st[which], tz)

        def set_moment(which: str, when: datetime) -> None:
            ms = int(when.timestamp() * 1000)
            if which == "start":  # the end follows the start, keeping the event's length
                st["end"] = int(st["end"]) + ms - int(st["start"])
            st[which] = ms

        def save() -> None:
            if int(st["end"]) < int(st["start"]):
                ctx.toast("The event can't end before it starts")
                return
            values = (
                ctx.field("title").strip(),
                int(st["start"]),
                int(st["end"]),
                ctx.field("location").strip(),
                ctx.field("description").strip(),
                str(tz),
            )
            if eid is not None:
                sql(
                    db,
                    "UPDATE Events SET title = ?, dtstart = ?, dtend = ?, eventLocation = ?, description = ?,"
                    " eventTimezone = ?, dirty = 1 WHERE _id = ?",
                    (*values, int(eid)),
                )
            else:
                sql(
                    db,
                    "INSERT INTO Events (calendar_id, title, dtstart, dtend, eventLocation, description,"
                    " eventTimezone) VALUES (1, ?, ?, ?, ?, ?, ?)",
                    values,
                )
            ctx.toast("Event saved")
            ctx.finish()

        def delete() -> None:
            sql(db, "DELETE FROM Events WHERE _id = ?", (int(eid or 0),))
            ctx.toast("Event deleted")
            ctx.finish()

        def open_picker(which: str, kind: str) -> Callable[[], None]:
            def run() -> None:
                st["picking"] = which
                m = moment(which)
                if kind == "date":
                    pickers.open_date(st, m.date())
                else:
                    pickers.open_time(st, m.hour, m.minute)

            return run

        def when_row(label: str, which: str) -> View:
            m = moment(which)
            return Row(
                spacing=8,
                children=[
                    Text(text=label, size=14, color="on_surface_variant", width=48),
                    Button(
                        id=f"{which}_date",
                        text=m.strftime("%a, %b ") + f"{m.day}, {m.year}",
                        style="text",
                        weight=1,
                        on_click=open_picker(which, "date"),
                    ),
                    Button(
                        id=f"{which}_time",
                        text=self.hm(int(st[which])),
                        style="text",
                        on_click=open_picker(which, "time"),
                    ),
                ],
            )

        form: list[View] = [
            EditText(id="title", key="title", hint="Event name", text=ctx.field("title")),
            when_row("From", "start"),
            when_row("To", "end"),
            EditText(id="location", key="location", hint="Location", text=ctx.field("location")),
            EditText(id="description", key="description", hint="Description", text=ctx.field("description")),
        ]
        if eid is not None:
            form.append(
                Row(
                    justify="start",
                    children=[Button(id="delete", text="Delete", style="outlined", on_click=delete)],
                )
            )
        screen = editor(
            "Edit event" if eid is not None else "New event",
            IconButton(id="close", name="close", desc="Cancel", on_click=ctx.finish, tint="on_surface"),
            Button(id="action_done", text="Save", on_click=save),
            Scroll(key="form", weight=1, pad=(16, 8, 16, 16), spacing=16, children=form),
            title_id="title_text",
        )
        kind = pickers.showing(st)
        if not kind:
            return screen
        which = str(st.get("picking", "start"))

        def close() -> None:
            pickers.close(st)
            st.pop("picking", None)

        def set_day(d: date) -> None:
            set_moment(which, moment(which).replace(year=d.year, month=d.month, day=d.day))

        def set_time(hour: int, minute: int) -> None:
            set_moment(which, moment(which).replace(hour=hour, minute=minute))

        ctx.on_back(close)
        dialog = (
            pickers.date_picker(st, set_day, close)
            if kind == "date"
            else pickers.time_picker(st, set_time, close)
        )
        return Stack(children=[screen, dialog])
