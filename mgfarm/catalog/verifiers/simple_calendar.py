"""Simple Calendar Pro (com.simplemobiletools.calendar.pro): events in its Room database `events.db`,
table `events` (times in Unix seconds, reminders in minutes before the start with -1 for none,
`repeat_interval` in seconds: 604800 weekly)."""

from __future__ import annotations

from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "simple_calendar",
        "/data/data/com.simplemobiletools.calendar.pro/databases/events.db",
        app="simple_calendar",
        main="events",
        key="id",
        edit="location = location || ' (moved)'",
        extra="INSERT INTO events (start_ts, end_ts, title, location, description, reminder_1_minutes,"
        " reminder_2_minutes, reminder_3_minutes, reminder_1_type, reminder_2_type, reminder_3_type,"
        " repeat_interval, repeat_rule, repeat_limit, repetition_exceptions, attendees, import_id, time_zone,"
        " flags, event_type, parent_id, last_updated, source, availability, color, type)"
        " VALUES (1772600000, 1772603600, 'Ghost meeting', '', '', -1, -1, -1, 0, 0, 0, 0, 0, 0, '[]', '[]',"
        " 'ghost', 'UTC', 0, 1, 0, 1772600000000, 'simple-calendar', 0, 0, 0)",
    ),
)
# The app stamps every saved edit.
INCIDENTAL = ("simple_calendar.events:last_updated",)
