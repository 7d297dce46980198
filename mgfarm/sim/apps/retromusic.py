"""Retro Music (code.name.monkey.retromusic): songs from the media store, playlists and the playing queue.

Songs are the audio rows of the media store (content://media/external/audio/media); title, artist,
album and duration come from each file's own ID3 tags and MP3 frames, as MediaProvider reads them.
The Songs tab lists them by title, each row "artist • duration"; a tap plays the list from that song,
and the row's menu offers Play next, Add to playing queue, Add to playlist and Details.

Playlists live in the Room database `databases/playlist.db` with the real tables: `PlaylistEntity`
(playlist_id, playlist_name) and `SongEntity` (one row per song of a playlist, its order the
auto-incremented song_key, the song's media-store columns copied). The Playlists tab lists them with
their song count; a playlist shows its songs and total length, and its menu renames, deletes or
"Save as file": an M3U file in Download/ named after the playlist (the real app asks where with the
system's document picker; the sim writes straight to Download/, the folder AndroidWorld checks).

The playing queue is kept, as by the app's MusicPlaybackQueueStore, in `databases/music_playback_state.db`
(tables playing_queue and original_playing_queue, one row per song in order) and the position in the
queue in the app's default shared preferences (POSITION). The mini player above the tabs opens the
player, whose Playing queue screen can clear the queue or save it as a playlist.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_insert, sql_script
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.media import AUDIO, STORAGE
from mgfarm.sim.system.mp3 import Mp3Info, read_mp3
from mgfarm.sim.system.providers import ProviderError
from mgfarm.sim.ui.views import (
    Column,
    EditText,
    Icon,
    IconButton,
    Row,
    Rows,
    Scrim,
    Scroll,
    Stack,
    Text,
    View,
)
from mgfarm.sim.ui.widgets import action, app_bar, dialog, empty_state, list_item, tabs

PKG = "code.name.monkey.retromusic"
MAIN = f"{PKG}.activities.MainActivity"
PLAYLIST_DB = "playlist.db"
PLAYBACK_DB = "music_playback_state.db"
AUDIO_URI = "content://media/external/audio/media"
# RetroDatabase (Room): the playlist tables and their index, with Room's bookkeeping tables.
PLAYLIST_SCHEMA = """
CREATE TABLE IF NOT EXISTS `PlaylistEntity` (`playlist_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  `playlist_name` TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS `SongEntity` (`song_key` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  `playlist_creator_id` INTEGER NOT NULL, `id` INTEGER NOT NULL, `title` TEXT NOT NULL,
  `track_number` INTEGER NOT NULL, `year` INTEGER NOT NULL, `duration` INTEGER NOT NULL,
  `data` TEXT NOT NULL, `date_modified` INTEGER NOT NULL, `album_id` INTEGER NOT NULL,
  `album_name` TEXT NOT NULL, `artist_id` INTEGER NOT NULL, `artist_name` TEXT NOT NULL,
  `composer` TEXT, `album_artist` TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS `index_SongEntity_playlist_creator_id_id`
  ON `SongEntity` (`playlist_creator_id`, `id`);
CREATE TABLE IF NOT EXISTS `HistoryEntity` (`id` INTEGER NOT NULL, `title` TEXT NOT NULL,
  `track_number` INTEGER NOT NULL, `year` INTEGER NOT NULL, `duration` INTEGER NOT NULL,
  `data` TEXT NOT NULL, `date_modified` INTEGER NOT NULL, `album_id` INTEGER NOT NULL,
  `album_name` TEXT NOT NULL, `artist_id` INTEGER NOT NULL, `artist_name` TEXT NOT NULL,
  `composer` TEXT, `album_artist` TEXT, `time_played` INTEGER NOT NULL, PRIMARY KEY(`id`));
CREATE TABLE IF NOT EXISTS `PlayCountEntity` (`id` INTEGER NOT NULL, `title` TEXT NOT NULL,
  `track_number` INTEGER NOT NULL, `year` INTEGER NOT NULL, `duration` INTEGER NOT NULL,
  `data` TEXT NOT NULL, `date_modified` INTEGER NOT NULL, `album_id` INTEGER NOT NULL,
  `album_name` TEXT NOT NULL, `artist_id` INTEGER NOT NULL, `artist_name` TEXT NOT NULL,
  `composer` TEXT, `album_artist` TEXT, `time_played` INTEGER NOT NULL,
  `play_count` INTEGER NOT NULL, PRIMARY KEY(`id`));
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY, identity_hash TEXT);
"""
# MusicPlaybackQueueStore.createTable, for both queues.
QUEUE_COLUMNS = (
    "_id INT NOT NULL, title STRING NOT NULL, track INT NOT NULL, year INT NOT NULL,"
    " duration LONG NOT NULL, _data STRING NOT NULL, date_modified LONG NOT NULL,"
    " album_id INT NOT NULL, album STRING NOT NULL, artist_id INT NOT NULL, artist STRING NOT NULL,"
    " composer STRING, album_artist STRING"
)
QUEUES = ("playing_queue", "original_playing_queue")
PLAYBACK_SCHEMA = "\n".join(f"CREATE TABLE IF NOT EXISTS {t} ({QUEUE_COLUMNS});" for t in QUEUES) + (
    "\nCREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);"
)
SEED = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
TABS = ("Songs", "Playlists")
UNKNOWN = "<unknown>"  # MediaStore.UNKNOWN_STRING: an untagged file's artist and album


@dataclass(frozen=True)
class Song:
    """A song as the app's Song model holds it (media-store id and columns)."""

    id: int
    title: str
    duration: int
    data: str
    date_modified: int
    album: str
    artist: str
    album_artist: str

    @classmethod
    def from_row(cls, r: tuple[Any, ...]) -> Song:
        """From id, title, duration, data, date modified, album, artist and album artist columns."""
        return cls(
            int(r[0]), str(r[1]), int(r[2]), str(r[3]), int(r[4]), str(r[5]), str(r[6]), str(r[7] or "")
        )

    @property
    def album_id(self) -> int:
        return zlib.crc32(self.album.encode()) & 0x7FFFFFFF

    @property
    def artist_id(self) -> int:
        return zlib.crc32(self.artist.encode()) & 0x7FFFFFFF

    def columns(self) -> tuple[Any, ...]:
        """id, title, track, year, duration, data, date_modified, album id/name, artist id/name, composer,
        album artist: the order of both the SongEntity and the queue columns after their keys."""
        return (
            self.id,
            self.title,
            0,
            0,
            self.duration,
            self.data,
            self.date_modified,
            self.album_id,
            self.album,
            self.artist_id,
            self.artist,
            None,
            self.album_artist or None,
        )


SONG_COLUMNS = (
    "id, title, track_number, year, duration, data, date_modified, album_id, album_name, artist_id,"
    " artist_name, composer, album_artist"
)
QUEUE_INSERT = (
    "_id, title, track, year, duration, _data, date_modified, album_id, album, artist_id, artist,"
    " composer, album_artist"
)


def format_duration(ms: int) -> str:
    """MusicUtil.getReadableDurationString: "m:ss", "h:mm:ss" from an hour."""
    seconds = ms // 1000
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def songs_count(n: int) -> str:
    return f"{n} Song" if n == 1 else f"{n} Songs"


class RetroMusic(App):
    package = PKG
    label = "Retro Music"
    main_activity = MAIN
    icon = "play"
    icon_color = "#E91E63"
    version_name = "6.1.0"

    def __init__(self, device: Any) -> None:
        super().__init__(device)
        self._tags: dict[tuple[str, int, int], Mp3Info] = {}  # the songs' tags by path, size and mtime

    def create_data(self) -> None:
        sql_script(self.db_file(PLAYLIST_DB), PLAYLIST_SCHEMA, SEED)
        sql_script(self.db_file(PLAYBACK_DB), PLAYBACK_SCHEMA, SEED)

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    # ---- songs (the media store)
    def file_tags(self, path: str) -> Mp3Info:
        """The tags of the audio file at device `path`; none for a path that leaves the device."""
        try:
            return read_mp3(self.device.fs.host(path))
        except PathEscapeError:
            return Mp3Info()

    def songs(self) -> list[Song]:
        """The media store's audio files, by title (the app's default song order)."""
        try:
            provider, _ = self.device.services.providers.resolve(AUDIO_URI)
            _, rows = provider.query(
                AUDIO_URI, ["_id", "_data", "_size", "date_modified"], f"media_type = {AUDIO}", [], None
            )
        except ProviderError:
            return []
        found = []
        known, self._tags = self._tags, {}  # only the files there now: a shell can name files without end
        for rid, data, size, mtime in rows:
            path = str(data)
            if "/." in path or not path.startswith(STORAGE + "/"):
                continue
            key = (path, int(size or 0), int(mtime or 0))
            info = self._tags[key] = known[key] if key in known else self.file_tags(path)
            name = path.rsplit("/", 1)[1]
            found.append(
                Song(
                    id=int(rid),
                    title=info.title or name.rsplit(".", 1)[0],
                    duration=info.duration_ms,
                    data=path,
                    date_modified=int(mtime or 0),
                    album=info.album or path.rsplit("/", 2)[-2],
                    artist=info.artist or UNKNOWN,
                    album_artist=info.album_artist,
                )
            )
        return sorted(found, key=lambda s: (s.title.lower(), s.id))

    # ---- playlists (playlist.db)
    def playlists(self) -> list[tuple[int, str, int]]:
        """(id, name, song count) of every playlist, by name."""
        rows = sql(
            self.db_file(PLAYLIST_DB),
            "SELECT p.playlist_id, p.playlist_name, (SELECT count(*) FROM SongEntity s"
            " WHERE s.playlist_creator_id = p.playlist_id) FROM PlaylistEntity p"
            " ORDER BY p.playlist_name COLLATE NOCASE, p.playlist_id",
        )
        return [(int(i), str(n), int(c)) for i, n, c in rows]

    def playlist_songs(self, pid: int) -> list[Song]:
        rows = sql(
            self.db_file(PLAYLIST_DB),
            "SELECT id, title, duration, data, date_modified, album_name, artist_name, album_artist"
            " FROM SongEntity WHERE playlist_creator_id = ? ORDER BY song_key",
            (pid,),
        )
        return [Song.from_row(r) for r in rows]

    def create_playlist(self, name: str) -> int:
        return sql_insert(
            self.db_file(PLAYLIST_DB), "INSERT INTO PlaylistEntity (playlist_name) VALUES (?)", (name,)
        )

    def add_songs(self, pid: int, songs: list[Song]) -> int:
        """Append songs not yet in the playlist; how many were added."""
        added = 0
        for song in songs:
            rows = sql(
                self.db_file(PLAYLIST_DB),
                f"INSERT OR IGNORE INTO SongEntity (playlist_creator_id, {SONG_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING song_key",
                (pid, *song.columns()),
            )
            added += len(rows)
        return added

    def export_m3u(self, name: str, songs: list[Song]) -> str:
        """Write the playlist as an extended M3U file in Download/; the file's device path."""
        lines = ["#EXTM3U"]
        for s in songs:
            lines += [f"#EXTINF:{s.duration // 1000},{s.artist} - {s.title}", s.data]
        path = f"{STORAGE}/Download/{name}.m3u"
        host = self.device.fs.host(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.device.changed()
        return path

    # ---- the playing queue (music_playback_state.db and the POSITION preference)
    def queue(self) -> list[Song]:
        rows = sql(
            self.db_file(PLAYBACK_DB),
            "SELECT _id, title, duration, _data, date_modified, album, artist, album_artist"
            " FROM playing_queue ORDER BY rowid",
        )
        return [Song.from_row(r) for r in rows]

    def save_queue(self, songs: list[Song], position: int) -> None:
        for table in QUEUES:
            sql(self.db_file(PLAYBACK_DB), f"DELETE FROM {table}")
            for s in songs:
                sql(
                    self.db_file(PLAYBACK_DB),
                    f"INSERT INTO {table} ({QUEUE_INSERT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    s.columns(),
                )
        self.set_position(position)

    def position(self) -> int:
        value = self.preferences().get("POSITION", 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    def set_position(self, position: int) -> None:
        self.save_preferences({"POSITION": int(position)})

    def play(self, songs: list[Song], position: int) -> None:
        """MusicPlayerRemote.openQueue: the list becomes the queue, playing from `position`."""
        self.save_queue(songs, position)

    def enqueue(self, song: Song, next_up: bool) -> None:
        """Add to playing queue (at the end) or Play next (after the current song); an empty queue
        becomes this song, as MusicPlayerRemote does when nothing is playing."""
        queue, position = self.queue(), self.position()
        if not queue:
            self.save_queue([song], 0)
            return
        at = min(position + 1, len(queue)) if next_up else len(queue)
        self.save_queue([*queue[:at], song, *queue[at:]], position)

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        # The app opens its databases at start (Room): `db_file` makes them when they are missing
        # (data that predates the app, files a task removed) or corrupt.
        self.db_file(PLAYLIST_DB)
        self.db_file(PLAYBACK_DB)
        st = ctx.state
        if st.get("screen") == "queue":
            body = self.queue_screen(ctx)
        elif st.get("screen") == "player":
            body = self.player_screen(ctx)
        elif st.get("playlist") is not None:
            body = self.playlist_screen(ctx, int(st["playlist"]))
        else:
            body = self.home(ctx)
        return Stack(children=[body, *self.overlays(ctx)])

    def home(self, ctx: ScreenContext) -> View:
        st = ctx.state
        tab = int(st.get("tab", 0))
        actions: list[View] = []
        if tab == 1:
            actions.append(
                action("add", "New playlist", lambda: self.ask_name(ctx, "new"), id="action_new_playlist")
            )
        content = self.songs_tab(ctx) if tab == 0 else self.playlists_tab(ctx)
        return Column(
            bg="surface",
            children=[
                app_bar("Retro Music", actions=actions),
                content,
                *self.mini_player(ctx),
                tabs(TABS, tab, lambda i: st.update(tab=i), icons=("note", "menu")),
            ],
        )

    def song_row(
        self, ctx: ScreenContext, song: Song, on_click: Callable[[], None], menu: bool = True
    ) -> View:
        trailing = (
            IconButton(
                id="menu",
                name="more_vert",
                desc="More options",
                tint="on_surface_variant",
                on_click=lambda: ctx.state.update(song_menu=song.id),
            )
            if menu
            else None
        )
        return Row(
            id="song_item",
            height=72,
            pad=(16, 0, 4, 0),
            spacing=16,
            on_click=on_click,
            children=[
                Icon(id="image", name="note", size=24, tint="primary", width=40),
                Column(
                    weight=1,
                    children=[
                        Text(id="title", text=song.title, size=16),
                        Text(
                            id="text",
                            text=f"{song.artist} • {format_duration(song.duration)}",
                            size=14,
                            color="on_surface_variant",
                        ),
                    ],
                ),
                *([trailing] if trailing is not None else []),
            ],
        )

    def songs_tab(self, ctx: ScreenContext) -> View:
        songs = self.songs()

        def play_from(i: int) -> Callable[[], None]:
            return lambda: self.play(songs, i)

        def make(i: int) -> View:  # as the list shows it: the count, then the songs
            if i == 0:
                return Text(
                    text=songs_count(len(songs)), size=14, color="on_surface_variant", pad=(16, 8, 16, 8)
                )
            return self.song_row(ctx, songs[i - 1], play_from(i - 1))

        return Scroll(
            id="recycler_view",
            key="songs",
            weight=1,
            rows=Rows(len(songs) + 1, make) if songs else None,
            empty=empty_state("note", "No songs"),
        )

    def playlists_tab(self, ctx: ScreenContext) -> View:
        def open_playlist(pid: int) -> Callable[[], None]:
            return lambda: ctx.state.update(playlist=pid)

        found = self.playlists()

        def make(i: int) -> View:  # as the list shows it
            pid, name, count = found[i]
            return list_item(
                name, songs_count(count), icon="menu", id="playlist_item", on_click=open_playlist(pid)
            )

        return Scroll(
            id="recycler_view",
            key="playlists",
            weight=1,
            rows=Rows(len(found), make),
            empty=empty_state("menu", "No playlists"),
        )

    def playlist_screen(self, ctx: ScreenContext, pid: int) -> View:
        st = ctx.state
        found = [p for p in self.playlists() if p[0] == pid]
        if not found:
            st.pop("playlist", None)
            return self.home(ctx)
        _, name, _ = found[0]
        songs = self.playlist_songs(pid)
        ctx.on_back(lambda: st.pop("playlist", None))

        def play_from(i: int) -> Callable[[], None]:
            return lambda: self.play(songs, i)

        total = sum(s.duration for s in songs)
        bar = app_bar(
            name,
            back=lambda: st.pop("playlist", None),
            actions=[action("more_vert", "More options", lambda: st.update(playlist_menu=True))],
        )
        summary = Text(
            id="songTotalTime",
            text=f"{songs_count(len(songs))} • {format_duration(total)}",
            size=14,
            color="on_surface_variant",
            pad=(16, 8, 16, 8),
        )

        def make(i: int) -> View:  # as the list shows it: the summary, then the songs
            return summary if i == 0 else self.song_row(ctx, songs[i - 1], play_from(i - 1), menu=False)

        return Column(
            bg="surface",
            children=[
                bar,
                Scroll(id="recycler_view", key=f"playlist{pid}", weight=1, rows=Rows(len(songs) + 1, make)),
                *self.mini_player(ctx),
            ],
        )

    def mini_player(self, ctx: ScreenContext) -> list[View]:
        queue = self.queue()
        if not queue:
            return []
        song = queue[min(max(self.position(), 0), len(queue) - 1)]
        return [
            Row(
                id="miniPlayerFragment",
                height=64,
                bg="surface_container",
                pad=(16, 0, 8, 0),
                spacing=12,
                on_click=lambda: ctx.state.update(screen="player"),
                children=[
                    Icon(name="note", size=24, tint="primary", width=32),
                    Column(
                        weight=1,
                        children=[
                            Text(id="miniPlayerTitle", text=song.title, size=15),
                            Text(text=song.artist, size=13, color="on_surface_variant"),
                        ],
                    ),
                    Icon(id="miniPlayerPlayPauseButton", name="play", size=24, desc="Play", width=48),
                ],
            )
        ]

    def player_screen(self, ctx: ScreenContext) -> View:
        st = ctx.state
        queue = self.queue()
        if not queue:
            st.pop("screen", None)
            return self.home(ctx)
        position = min(max(self.position(), 0), len(queue) - 1)
        song = queue[position]
        ctx.on_back(lambda: st.pop("screen", None))
        up_next = queue[position + 1].title if position + 1 < len(queue) else ""
        return Column(
            bg="surface",
            children=[
                app_bar(
                    "",
                    back=lambda: st.pop("screen", None),
                    actions=[
                        action(
                            "menu",
                            "Playing queue",
                            lambda: st.update(screen="queue"),
                            id="action_playing_queue",
                        )
                    ],
                ),
                Column(
                    weight=1,
                    center=True,
                    spacing=12,
                    pad=(24, 48, 24, 24),
                    children=[
                        Icon(name="note", size=160, tint="primary", width=200),
                        Text(id="title", text=song.title, size=24, gravity="center"),
                        Text(
                            id="text", text=song.artist, size=16, gravity="center", color="on_surface_variant"
                        ),
                        Text(
                            id="songTotalTime", text=format_duration(song.duration), size=14, gravity="center"
                        ),
                        Text(
                            id="nextSong",
                            text=f"Up next: {up_next}" if up_next else "",
                            size=14,
                            gravity="center",
                            color="on_surface_variant",
                        ),
                    ],
                ),
            ],
        )

    def queue_screen(self, ctx: ScreenContext) -> View:
        st = ctx.state
        queue = self.queue()
        position = self.position()
        ctx.on_back(lambda: st.update(screen="player") if queue else st.pop("screen", None))

        def jump(i: int) -> Callable[[], None]:
            return lambda: self.set_position(i)

        def clear() -> None:
            self.save_queue([], 0)
            st.pop("screen", None)

        def make(i: int) -> View:  # as the list shows it
            row = self.song_row(ctx, queue[i], jump(i), menu=False)
            if i == position:  # the song playing
                row.selected, row.bg = True, "secondary_container"
            return row

        bar = app_bar(
            "Playing queue",
            back=lambda: st.update(screen="player") if queue else st.pop("screen", None),
            actions=[
                action(
                    "download",
                    "Save as playlist",
                    lambda: self.ask_name(ctx, "save_queue"),
                    id="action_save_playlist",
                ),
                action("delete", "Clear playing queue", clear, id="action_clear_playing_queue"),
            ],
        )
        return Column(
            bg="surface",
            children=[
                bar,
                Scroll(
                    id="recycler_view",
                    key="queue",
                    weight=1,
                    rows=Rows(len(queue), make),
                    empty=empty_state("menu", "Queue is empty"),
                ),
            ],
        )

    # ---- menus and dialogs
    def ask_name(self, ctx: ScreenContext, purpose: str, song: int | None = None, name: str = "") -> None:
        """Open the playlist name dialog: a new playlist, one from the queue, or a rename."""
        ctx.state.update(dialog=purpose, dialog_song=song)
        for key in ("song_menu", "playlist_menu", "add_to"):
            ctx.state.pop(key, None)
        ctx.set_fields({"name": name})
        ctx.focus("name")

    def overlays(self, ctx: ScreenContext) -> list[View]:
        st = ctx.state

        def close() -> None:
            for key in ("song_menu", "playlist_menu", "add_to", "dialog", "dialog_song"):
                st.pop(key, None)
            ctx.focus(None)

        if st.get("dialog"):
            ctx.on_back(close)
            return [self.name_dialog(ctx, close)]
        if st.get("add_to") is not None:
            ctx.on_back(close)
            return [self.add_to_dialog(ctx, int(st["add_to"]), close)]
        if st.get("song_menu") is not None:
            ctx.on_back(close)
            return [self.song_menu(ctx, int(st["song_menu"]), close)]
        if st.get("playlist_menu") and st.get("playlist") is not None:
            ctx.on_back(close)
            return [self.playlist_menu(ctx, int(st["playlist"]), close)]
        return []

    def popup(self, items: list[tuple[str, Callable[[], None]]], close: Callable[[], None]) -> View:
        menu = Column(
            id="popup_menu",
            bg="surface_container",
            radius=4,
            width=240,
            align="top_end",
            blocks=True,
            pad=(0, 8, 0, 8),
            children=[list_item(label, on_click=fn, title_id="android:id/title") for label, fn in items],
        )
        return Scrim(dim=0.0, on_click=close, children=[menu])

    def song_menu(self, ctx: ScreenContext, song_id: int, close: Callable[[], None]) -> View:
        found = [s for s in self.songs() if s.id == song_id]
        if not found:
            close()
            return Column()
        song = found[0]

        def queue_it(next_up: bool) -> Callable[[], None]:
            def run() -> None:
                self.enqueue(song, next_up)
                ctx.toast("Added 1 song to the playing queue")
                close()

            return run

        def details() -> None:
            close()
            ctx.state["dialog"] = "details"
            ctx.state["dialog_song"] = song.id

        items = [
            ("Play next", queue_it(True)),
            ("Add to playing queue", queue_it(False)),
            ("Add to playlist…", lambda: ctx.state.update(add_to=song.id, song_menu=None)),
            ("Details", details),
        ]
        return self.popup(items, close)

    def add_to_dialog(self, ctx: ScreenContext, song_id: int, close: Callable[[], None]) -> View:
        found = [s for s in self.songs() if s.id == song_id]
        if not found:
            close()
            return Column()
        song = found[0]

        def add(pid: int, name: str) -> Callable[[], None]:
            def run() -> None:
                if self.add_songs(pid, [song]):
                    ctx.toast(f"Added 1 song to the playlist {name}")
                else:
                    ctx.toast(f"{song.title} is already in {name}")
                close()

            return run

        rows: list[Callable[[], View]] = [  # made as the list shows them
            partial(
                list_item,
                "New playlist",
                icon="add",
                id="new_playlist",
                on_click=lambda: self.ask_name(ctx, "new", song.id),
            )
        ]
        rows += [
            partial(list_item, name, icon="menu", id="playlist_item", on_click=add(pid, name))
            for pid, name, _ in self.playlists()
        ]
        return dialog(
            "Add to playlist",
            [Scroll(key="add_to", height=min(360, 56 * len(rows)), rows=Rows.of(rows))],
            [("Cancel", close)],
            close,
        )

    def playlist_menu(self, ctx: ScreenContext, pid: int, close: Callable[[], None]) -> View:
        found = [p for p in self.playlists() if p[0] == pid]
        if not found:
            close()
            return Column()
        _, name, _ = found[0]

        def play() -> None:
            songs = self.playlist_songs(pid)
            if songs:
                self.play(songs, 0)
            close()

        def save_file() -> None:
            try:
                path = self.export_m3u(name, self.playlist_songs(pid))
                ctx.toast(f"Saved playlist to {path.removeprefix(STORAGE + '/')}")
            except (OSError, PathEscapeError):
                ctx.toast("Could not save the playlist")
            close()

        def delete() -> None:
            sql(self.db_file(PLAYLIST_DB), "DELETE FROM SongEntity WHERE playlist_creator_id = ?", (pid,))
            sql(self.db_file(PLAYLIST_DB), "DELETE FROM PlaylistEntity WHERE playlist_id = ?", (pid,))
            ctx.state.pop("playlist", None)
            close()

        items = [
            ("Play", play),
            ("Rename", lambda: self.ask_name(ctx, "rename", name=name)),
            ("Save as file", save_file),
            ("Delete", delete),
        ]
        return self.popup(items, close)

    def name_dialog(self, ctx: ScreenContext, close: Callable[[], None]) -> View:
        st = ctx.state
        purpose = str(st.get("dialog"))
        if purpose == "details":
            found = [s for s in self.songs() if s.id == st.get("dialog_song")]
            lines = (
                [
                    f"Title: {found[0].title}",
                    f"Artist: {found[0].artist}",
                    f"Length: {format_duration(found[0].duration)}",
                    f"File path: {found[0].data}",
                ]
                if found
                else []
            )
            return dialog("Details", [], [("OK", close)], close, message="\n".join(lines))

        def done() -> None:
            name = ctx.field("name").strip()
            if not name:
                ctx.toast("Playlist name can't be empty")
                return
            if purpose == "rename":
                sql(
                    self.db_file(PLAYLIST_DB),
                    "UPDATE PlaylistEntity SET playlist_name = ? WHERE playlist_id = ?",
                    (name, int(st.get("playlist") or 0)),
                )
                close()
                return
            if any(n == name for _, n, _ in self.playlists()):
                ctx.toast(f"Playlist {name} already exists")
                return
            pid = self.create_playlist(name)
            if purpose == "save_queue":
                self.add_songs(pid, self.queue())
                ctx.toast(f"Saved the playing queue as {name}")
            elif st.get("dialog_song") is not None:
                found = [s for s in self.songs() if s.id == st.get("dialog_song")]
                self.add_songs(pid, found)
                ctx.toast(f"Created playlist {name}")
            else:
                ctx.toast(f"Created playlist {name}")
            close()

        field = EditText(id="actionNewPlaylist", key="name", hint="Playlist name", text=ctx.field("name"))
        title = "Rename playlist" if purpose == "rename" else "New playlist"
        button = "Rename" if purpose == "rename" else "Create"
        return dialog(title, [field], [("Cancel", close), (button, done)], close)
