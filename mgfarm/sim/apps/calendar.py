"""Calendar (com.android.calendar) over the calendar provider (calendar.db, content://com.android.calendar)."""

from __future__ import annotations

import calendar as cal
from collections.abc import Callable
from datetime import date, datetime, timedelta

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, device_tz, sql, sql_script
from mgfarm.sim.system.providers import Route, SqliteProvider
from mgfarm.sim.ui.views import Button, Column, EditText, IconButton, Row, Scroll, Stack, Text, View
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
        self.create_data()
        providers = self.device.services.providers
        path = lambda: self.db_file("calendar.db", PROVIDER_PKG)  # noqa: E731
        routes = {
            "events": Route("Events", where="deleted = 0"),
            "calendars": Route("Calendars"),
            "reminders": Route("Reminders"),
        }
        providers.register("com.android.calendar", SqliteProvider("com.android.calendar", path, routes))

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, EDIT: self.edit}

    # ---- time helpers
    def day_range(self, day: date) -> tuple[int, int]:
        start = datetime(day.year, day.month, day.day, tzinfo=device_tz(self.device))
        return int(start.timestamp() * 1000), int((start + timedelta(days=1)).timestamp() * 1000)

    def events_between(self, start_ms: int, end_ms: int) -> list[tuple[int, str, int, int, int]]:
        rows = sql(
            self.db_file("calendar.db", PROVIDER_PKG),
            "SELECT _id, coalesce(title, ''), dtstart, coalesce(dtend, dtstart), allDay FROM Events "
            "WHERE deleted = 0 AND dtstart < ? AND coalesce(dtend, dtstart) >= ? ORDER BY dtstart, _id",
            (end_ms, start_ms),
        )
        return [(int(r[0]), str(r[1]), int(r[2] or 0), int(r[3] or 0), int(r[4] or 0)) for r in rows]

    def selected_day(self, ctx: ScreenContext) -> date:
        if "day" in ctx.state:
            return date.fromisoformat(str(ctx.state["day"]))
        return datetime.fromtimestamp(ctx.now_ms() / 1000, device_tz(self.device)).date()

    def hm(self, ms: int) -> str:
        t = datetime.fromtimestamp(ms / 1000, device_tz(self.device))
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
            d = datetime.fromtimestamp(s / 1000, device_tz(self.device)).date()
            counts[d] = counts.get(d, 0) + 1
        today = datetime.fromtimestamp(ctx.now_ms() / 1000, device_tz(self.device)).date()

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

        def open_event(eid: int) -> Callable[[], None]:
            return lambda: ctx.start(EDIT, {"event_id": eid})

        rows: list[View] = []
        for eid, title, s, e, all_day in self.events_between(start_ms, end_ms):
            when = "All day" if all_day else f"{self.hm(s)} – {self.hm(e)}"
            rows.append(
                list_item(
                    title or "(No title)",
                    when,
                    icon="calendar",
                    on_click=open_event(eid),
                    id="event",
                    title_id="event_title",
                    subtitle_id="event_time",
                )
            )
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
                children=rows or [empty_state("calendar", "No events")],
            ),
        ]

    def edit(self, ctx: ScreenContext) -> View:
        db = self.db_file("calendar.db", PROVIDER_PKG)
        eid = ctx.extras.get("event_id")
        if not ctx.state.get("loaded"):
            ctx.state["loaded"] = True
            if eid is not None:
                rows = sql(
                    db,
                    "SELECT title, dtstart, dtend, eventLocation, description FROM Events WHERE _id = ?",
                    (int(eid),),
                )
                if rows:
                    title, s, e, loc, desc = rows[0]
                    ds = datetime.fromtimestamp((s or 0) / 1000, device_tz(self.device))
                    de = datetime.fromtimestamp((e or s or 0) / 1000, device_tz(self.device))
                    ctx.set_fields(
                        {
                            "title": title or "",
                            "date": ds.date().isoformat(),
                            "start": ds.strftime("%H:%M"),
                            "end": de.strftime("%H:%M"),
                            "location": loc or "",
                            "description": desc or "",
                        }
                    )
            else:
                ctx.set_fields(
                    {
                        "date": str(ctx.extras.get("day", self.selected_day(ctx).isoformat())),
                        "start": "09:00",
                        "end": "10:00",
                    }
                )

        def save() -> None:
            try:
                d = date.fromisoformat(ctx.field("date").strip())
                sh, sm = (int(x) for x in ctx.field("start").strip().split(":"))
                eh, em = (int(x) for x in ctx.field("end").strip().split(":"))
                start = datetime(d.year, d.month, d.day, sh, sm, tzinfo=device_tz(self.device))
                end = datetime(d.year, d.month, d.day, eh, em, tzinfo=device_tz(self.device))
            except ValueError:
                ctx.toast("Enter the date as YYYY-MM-DD and times as HH:MM")
                return
            if end < start:
                end += timedelta(days=1)
            values = (
                ctx.field("title").strip(),
                int(start.timestamp() * 1000),
                int(end.timestamp() * 1000),
                ctx.field("location").strip(),
                ctx.field("description").strip(),
                str(device_tz(self.device)),
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

        fields = (
            ("title", "Title"),
            ("date", "Date (YYYY-MM-DD)"),
            ("start", "Start time"),
            ("end", "End time"),
            ("location", "Location"),
            ("description", "Description"),
        )
        form: list[View] = [EditText(id=key, key=key, hint=hint, text=ctx.field(key)) for key, hint in fields]
        if eid is not None:
            form.append(
                Row(
                    justify="start",
                    children=[Button(id="delete", text="Delete", style="outlined", on_click=delete)],
                )
            )
        return editor(
            "Edit event" if eid is not None else "New event",
            IconButton(id="close", name="close", desc="Cancel", on_click=ctx.finish, tint="on_surface"),
            Button(id="action_done", text="Save", on_click=save),
            Scroll(key="form", weight=1, pad=(16, 8, 16, 16), spacing=16, children=form),
            title_id="title_text",
        )
