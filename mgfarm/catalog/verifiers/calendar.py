"""Calendar: events in the calendar provider (calendar.db, table Events; times in ms since the epoch)."""

from __future__ import annotations

import datetime as dt

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "calendar",
        "/data/data/com.android.providers.calendar/databases/calendar.db",
        app="calendar",
        main="Events",
        edit="title = title || ' (moved)'",
        extra="INSERT INTO Events (calendar_id, title, dtstart, dtend) "
        "VALUES (1, 'Party', 1772650000000, 1772653600000)",
    ),
)
# The app marks rows it wrote for the sync adapter and stamps the zone they were edited in.
INCIDENTAL = ("calendar.Events:dirty,eventTimezone",)


def _events(ctx: CheckContext) -> list[tuple[str, dt.datetime, dt.datetime, str]]:
    """(title, start, end, location) of every event not deleted, in UTC (the device's zone here)."""
    rows = ctx.query(
        "calendar",
        "SELECT coalesce(title, ''), dtstart, coalesce(dtend, dtstart), coalesce(eventLocation, '') "
        "FROM Events WHERE deleted = 0",
    )
    return [
        (
            str(t),
            dt.datetime.fromtimestamp(int(s or 0) / 1000, dt.timezone.utc),
            dt.datetime.fromtimestamp(int(e or 0) / 1000, dt.timezone.utc),
            str(loc),
        )
        for t, s, e, loc in rows
    ]


@check("calendar.has_event")
def has_event(
    ctx: CheckContext,
    *,
    title: str,
    date: str | None = None,
    start: str | None = None,
    end: str | None = None,
    location: str | None = None,
) -> CheckResult:
    """An event with this title (and, when given, on this date, from/to these HH:MM times, at this place)."""
    events = _events(ctx)
    for t, s, e, loc in events:
        if normalize.text(t) != normalize.text(title):
            continue
        if date is not None and s.date().isoformat() != normalize.date(date):
            continue
        if start is not None and s.strftime("%H:%M") != normalize.time(start):
            continue
        if end is not None and e.strftime("%H:%M") != normalize.time(end):
            continue
        if location is not None and normalize.text(loc) != normalize.text(location):
            continue
        return CheckResult(True, f"{t} on {s:%Y-%m-%d %H:%M}-{e:%H:%M} at {loc or '-'}")
    seen = "; ".join(f"{t} {s:%Y-%m-%d %H:%M}" for t, s, _, _ in events[:5])
    return CheckResult(False, f"{len(events)} events ({seen}); none matches {title!r}")


@check("calendar.missing_event")
def missing_event(ctx: CheckContext, *, title: str) -> CheckResult:
    """No event has this title."""
    n = sum(normalize.text(t) == normalize.text(title) for t, _, _, _ in _events(ctx))
    return CheckResult(n == 0, f"{n} events titled {title!r}")
