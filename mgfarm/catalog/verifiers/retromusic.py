"""Retro Music (code.name.monkey.retromusic): playlists in its Room database `playlist.db`
(`PlaylistEntity` names them, `SongEntity` holds one row per song of a playlist, in `song_key` order,
with the media store's columns copied). Songs themselves are the audio files of shared storage."""

from __future__ import annotations

import sqlite3

from mgfarm.tasks.state import DatabaseDecl, EntityDecl, Table

DATABASES = (
    DatabaseDecl(
        "retromusic",
        "/data/data/code.name.monkey.retromusic/databases/playlist.db",
        app="retromusic",
        main="PlaylistEntity",
        key="playlist_id",
        edit="playlist_name = playlist_name || ' 2'",
        extra="INSERT INTO PlaylistEntity (playlist_name) VALUES ('Ghost mix')",
    ),
)


def read_playlists(conn: sqlite3.Connection) -> Table:
    """One row per playlist: its name and the titles of its songs in order, so adding a song to a
    playlist is one update of it whatever ids the media store gave the song."""
    lists: Table = {}
    for pid, name in conn.execute("SELECT playlist_id, playlist_name FROM PlaylistEntity"):
        lists[str(pid)] = {"playlist_name": name, "songs": ()}
    for pid, title in conn.execute("SELECT playlist_creator_id, title FROM SongEntity ORDER BY song_key"):
        row = lists.get(str(pid)) or lists.setdefault(f"orphan-{pid}", {"playlist_name": None, "songs": ()})
        row["songs"] = (*row["songs"], str(title))
    return lists


ENTITIES = (
    EntityDecl("retromusic.playlist", "retromusic", ("PlaylistEntity", "SongEntity"), read_playlists),
)
