"""VLC (org.videolan.vlc): its media library `app_db/vlc_media.db` (`Media` and `File` for the videos it
found, `Playlist` and `PlaylistMediaRelation` for playlists, positions from 0)."""

from __future__ import annotations

import sqlite3

from mgfarm.tasks.state import DatabaseDecl, EntityDecl, Table

DATABASES = (
    DatabaseDecl(
        "vlc",
        "/data/data/org.videolan.vlc/app_db/vlc_media.db",
        app="vlc",
        main="Playlist",
        key="id_playlist",
        edit="name = name || ' 2'",
        extra="INSERT INTO Playlist (name, creation_date) VALUES ('Ghost clips', 1772600000)",
    ),
)


def read_playlists(conn: sqlite3.Connection) -> Table:
    """One row per playlist: its name and the titles of its videos by position, so adding a video is one
    update of its playlist (the counters VLC keeps on `Playlist` follow the relation rows)."""
    lists: Table = {}
    for pid, name in conn.execute("SELECT id_playlist, name FROM Playlist"):
        lists[str(pid)] = {"name": name, "videos": ()}
    for pid, title in conn.execute(
        "SELECT r.playlist_id, coalesce(m.title, '?') FROM PlaylistMediaRelation r"
        " LEFT JOIN Media m ON m.id_media = r.media_id ORDER BY r.playlist_id, r.position, r.rowid"
    ):
        row = lists.get(str(pid)) or lists.setdefault(f"orphan-{pid}", {"name": None, "videos": ()})
        row["videos"] = (*row["videos"], str(title))
    return lists


ENTITIES = (EntityDecl("vlc.playlist", "vlc", ("Playlist", "PlaylistMediaRelation"), read_playlists),)
# A trigger counts on each video the playlists holding it.
INCIDENTAL = ("vlc.Media:nb_playlists",)
