"""Tasks (org.tasks): to-dos in its Room database `database`, table `tasks` (importance 0 high .. 3 none,
dates and `completed` in epoch ms, 0 for none)."""

from __future__ import annotations

from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "tasks",
        "/data/data/org.tasks/databases/database",
        app="tasks",
        main="tasks",
        edit="importance = (importance + 1) % 4",
        extra="INSERT INTO tasks (title, importance, dueDate, hideUntil, created, modified, completed,"
        " deleted, estimatedSeconds, elapsedSeconds, timerStart, notificationFlags, lastNotified,"
        " collapsed, parent)"
        " VALUES ('Cancel gym membership', 1, 0, 0, 1772600000000, 1772600000000, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
    ),
)
# The app stamps every edit.
INCIDENTAL = ("tasks.tasks:modified",)
