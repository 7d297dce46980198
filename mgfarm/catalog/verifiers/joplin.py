"""Joplin (net.cozic.joplin): notes and to-dos in `joplin.sqlite` (`notes.parent_id` is the notebook's
id in `folders`; `notes_normalized` is the lower-cased copy search reads)."""

from __future__ import annotations

from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "joplin",
        "/data/data/net.cozic.joplin/databases/joplin.sqlite",
        app="joplin",
        main="notes",
        key="id",
        edit="body = body || ' (edited)'",
        extra="INSERT INTO notes (id, parent_id, title, body, created_time, updated_time) "
        "VALUES ('feedfacefeedfacefeedfacefeedface', '', 'Stray thought', 'x', 1772600000000, 1772600000000)",
    ),
)
# Joplin stamps every edit, and keeps the search copy in step with the notes.
INCIDENTAL = ("joplin.notes:updated_time,user_updated_time", "joplin.notes_normalized")
