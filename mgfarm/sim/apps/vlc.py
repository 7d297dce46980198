"""VLC (org.videolan.vlc): videos from shared storage, playlists in its media library database.

The media library is libvlc's medialibrary SQLite file `app_db/vlc_media.db` with its real tables and
columns: `Media` (id_media, type 1 = video, title, filename, duration in ms, insertion_date, ...),
`File` (the media's mrl), `Playlist` (id_playlist, name, creation_date, counters) and
`PlaylistMediaRelation` (media_id, playlist_id, position: contiguous from 0, as the library keeps it).
`Media.filename` is declared COLLATE NOCASE: newer libraries declare their own FILENAME collation,
which they register in-process and which a plain sqlite3 reading a copy of the file cannot load.

As the app does on start, the Video tab brings the library up to date with the video files of shared
storage (here through the media store): a new file gets a Media and a File row, a removed one loses
them. A video row's overflow ("More Actions") opens its context sheet; "Add to playlist" opens the
playlist dialog: a name field and Create make a new playlist (or add to the one of that name), a tap
on an existing playlist appends to it. A long press starts a selection whose "Add to playlist" adds
the selected videos in list order. Browse goes from "Internal memory" through the folders of shared
storage to their video files (by file name), each with the same More Actions. The Playlists tab lists
playlists; one opens its videos in order.

A tap on a video opens the player: the frame at the playback position, decoded with OpenCV when it is
installed (the compat extra; AndroidWorld itself needs it to make its videos), else a black surface.
"""

from __future__ import annotations

import contextlib
import io
import sqlite3
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO

from PIL import Image

from mgfarm.sim.apps.base import MINUTE_MS, App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.system.dbversion import db_version
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.media import STORAGE
from mgfarm.sim.system.providers import ProviderError
from mgfarm.sim.ui.views import (
    Column,
    EditText,
    Icon,
    IconButton,
    Picture,
    Row,
    Rows,
    Scrim,
    Scroll,
    Slider,
    Stack,
    Text,
    View,
)
from mgfarm.sim.ui.widgets import action, app_bar, dialog, empty_state, list_item, tabs

PKG = "org.videolan.vlc"
MAIN = f"{PKG}.gui.MainActivity"
PLAYLIST = f"{PKG}.gui.HeaderMediaListActivity"
PLAYER = f"{PKG}.gui.video.VideoPlayerActivity"
DB = f"/data/data/{PKG}/app_db/vlc_media.db"
CACHE = f"/data/data/{PKG}/cache"
SEEK_MS = 10_000
# AndroidWorld's VLC setup makes this folder; its tasks push their videos into it.
VIDEOS_DIR = "/storage/emulated/0/VLCVideos"
VIDEO_URI = "content://media/external/video/media"
TYPE_VIDEO = 1  # IMedia::Type
FILE_MAIN = 1  # IFile::Type
TABS = ("Video", "Browse", "Playlists")
SCHEMA = """
CREATE TABLE IF NOT EXISTS Media(id_media INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER,
  subtype INTEGER NOT NULL DEFAULT 0, duration INTEGER DEFAULT -1, last_position REAL DEFAULT -1,
  last_time INTEGER DEFAULT -1, play_count UNSIGNED INTEGER NOT NULL DEFAULT 0,
  last_played_date UNSIGNED INTEGER, insertion_date UNSIGNED INTEGER, release_date UNSIGNED INTEGER,
  title TEXT COLLATE NOCASE, filename TEXT COLLATE NOCASE, is_favorite BOOLEAN NOT NULL DEFAULT 0,
  is_present BOOLEAN NOT NULL DEFAULT 1, device_id INTEGER,
  nb_playlists UNSIGNED INTEGER NOT NULL DEFAULT 0, folder_id UNSIGNED INTEGER,
  import_type UNSIGNED INTEGER NOT NULL, group_id UNSIGNED INTEGER,
  forced_title BOOLEAN NOT NULL DEFAULT 0, artist_id UNSIGNED INTEGER, genre_id UNSIGNED INTEGER,
  track_number UNSIGNED INTEGER, album_id UNSIGNED INTEGER, disc_number UNSIGNED INTEGER, lyrics TEXT,
  is_public BOOLEAN NOT NULL DEFAULT FALSE, nb_subscriptions UNSIGNED INTEGER NOT NULL DEFAULT 0,
  description TEXT);
CREATE TABLE IF NOT EXISTS File(id_file INTEGER PRIMARY KEY AUTOINCREMENT,
  media_id UNSIGNED INT DEFAULT NULL, playlist_id UNSIGNED INT DEFAULT NULL, mrl TEXT,
  type UNSIGNED INTEGER, last_modification_date UNSIGNED INT, size UNSIGNED INT,
  folder_id UNSIGNED INTEGER, is_removable BOOLEAN NOT NULL, is_external BOOLEAN NOT NULL,
  is_network BOOLEAN NOT NULL);
CREATE TABLE IF NOT EXISTS Playlist(id_playlist INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT COLLATE NOCASE, creation_date UNSIGNED INT NOT NULL, artwork_mrl TEXT,
  nb_video UNSIGNED INT NOT NULL DEFAULT 0, nb_audio UNSIGNED INT NOT NULL DEFAULT 0,
  nb_unknown UNSIGNED INT NOT NULL DEFAULT 0,
  nb_present_video UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_video <= nb_video),
  nb_present_audio UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_audio <= nb_audio),
  nb_present_unknown UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_unknown <= nb_unknown),
  duration UNSIGNED INT NOT NULL DEFAULT 0, nb_duration_unknown UNSIGNED INT NOT NULL DEFAULT 0,
  is_favorite BOOLEAN NOT NULL DEFAULT FALSE);
CREATE TABLE IF NOT EXISTS PlaylistMediaRelation(media_id INTEGER, playlist_id INTEGER,
  position INTEGER,
  FOREIGN KEY(media_id) REFERENCES Media(id_media) ON DELETE NO ACTION,
  FOREIGN KEY(playlist_id) REFERENCES Playlist(id_playlist) ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS playlist_position_pl_id_index ON PlaylistMediaRelation(playlist_id, position);
CREATE TRIGGER IF NOT EXISTS playlist_media_added AFTER INSERT ON PlaylistMediaRelation
BEGIN
  UPDATE Media SET nb_playlists = nb_playlists + 1 WHERE id_media = new.media_id;
  UPDATE Playlist SET nb_video = nb_video + 1, nb_present_video = nb_present_video + 1,
    duration = duration + max(0, (SELECT duration FROM Media WHERE id_media = new.media_id))
    WHERE id_playlist = new.playlist_id;
END;
"""


@dataclass(frozen=True)
class Video:
    id: int
    title: str
    filename: str
    duration: int  # ms, -1 when unknown
    mrl: str


MAX_BOXES = 4096  # top-level boxes walked before giving up (a file of empty boxes)
MAX_MOOV = 16 * 1024 * 1024  # bytes of the movie box read


def mp4_duration_ms(f: BinaryIO) -> int:
    """The movie header's duration (ISO/IEC 14496-12: moov's mvhd), found by walking the file's
    top-level boxes and seeking past the media data, as a player does; -1 when there is none. A
    device's video can be as large as its partition: the file is not read whole."""
    at = 0
    for _ in range(MAX_BOXES):
        f.seek(at)
        head = f.read(16)
        if len(head) < 8:
            return -1
        size, kind = struct.unpack_from(">I4s", head)
        header = 8
        if size == 1:  # a 64-bit size follows the type
            if len(head) < 16:
                return -1
            size, header = struct.unpack_from(">Q", head, 8)[0], 16
        if size and size < header:  # a box shorter than its own header
            return -1
        if kind == b"moov":
            f.seek(at + header)
            return mvhd_duration_ms(f.read(min(size - header, MAX_MOOV) if size else MAX_MOOV))
        if not size:  # the box runs to the end of the file, which has no movie box then
            return -1
        at += size
    return -1


def mvhd_duration_ms(moov: bytes) -> int:
    """The duration in the mvhd box among a movie box's children; -1 if it has none."""
    at = 0
    while at + 8 <= len(moov):
        size, kind = struct.unpack_from(">I4s", moov, at)
        if kind == b"mvhd":
            payload = moov[at + 8 : at + size]
            if payload[:1] == b"\x01" and len(payload) >= 32:  # 64-bit times
                scale, length = struct.unpack_from(">IQ", payload, 20)
            elif payload[:1] == b"\x00" and len(payload) >= 20:
                scale, length = struct.unpack_from(">II", payload, 12)
            else:
                return -1
            return length * 1000 // scale if scale else -1
        if size < 8:
            return -1
        at += size
    return -1


def format_duration(ms: int) -> str:
    """Tools.millisToString: "m:ss", or "h:mm:ss" past an hour."""
    if ms < 0:
        return ""
    seconds = ms // 1000
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def count_label(n: int) -> str:
    return "1 video" if n == 1 else f"{n} videos"


class Vlc(App):
    package = PKG
    label = "VLC"
    main_activity = MAIN
    icon = "play"
    icon_color = "#FF8800"
    version_name = "3.5.4"
    # The video paths and the library's version after the last discovery (None: none yet).
    _refreshed: tuple[set[str], tuple[int, ...]] | None = None

    def create_data(self) -> None:
        sql_script(self.db(), SCHEMA)
        with contextlib.suppress(OSError, PathEscapeError):
            self.device.fs.mkdir(VIDEOS_DIR, parents=True)

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, PLAYLIST: self.playlist_screen, PLAYER: self.player}

    # ---- the media library
    def db(self) -> Path:
        return self.database_at(DB)

    def video_files(self) -> dict[str, tuple[str, int, int]]:
        """Video files of shared storage from the media store: path -> (name, size, mtime)."""
        try:
            provider, _ = self.device.services.providers.resolve(VIDEO_URI)
            _, rows = provider.query(
                VIDEO_URI, ["_data", "_display_name", "_size", "date_modified"], None, [], None
            )
        except ProviderError:
            return {}
        return {str(p): (str(n), int(s or 0), int(m or 0)) for p, n, s, m in rows if "/." not in str(p)}

    def refresh(self, now_s: int) -> None:
        """The library's discovery: add the new video files, drop the ones gone (and stale File rows)."""
        files = self.video_files()
        db = self.db()
        # The library was brought up to date with these very files and nothing wrote it since: the
        # discovery would change nothing (it runs at every compose of the main screen).
        if self._refreshed is not None and self._refreshed == (set(files), db_version(db)):
            return
        con = sqlite3.connect(db)
        try:
            with con:
                # Media rows deleted behind the library's back leave their File rows: rediscover those files.
                con.execute("DELETE FROM File WHERE media_id NOT IN (SELECT id_media FROM Media)")
                known = {str(mrl): int(mid) for mrl, mid in con.execute("SELECT mrl, media_id FROM File")}
                for mrl, mid in known.items():
                    if mrl.removeprefix("file://") not in files:
                        con.execute("DELETE FROM PlaylistMediaRelation WHERE media_id = ?", (mid,))
                        con.execute("DELETE FROM File WHERE media_id = ?", (mid,))
                        con.execute("DELETE FROM Media WHERE id_media = ?", (mid,))
                for path, (name, size, mtime) in sorted(files.items()):
                    if "file://" + path in known:
                        continue
                    cur = con.execute(
                        "INSERT INTO Media (type, duration, insertion_date, title, filename, device_id,"
                        " import_type) VALUES (?, ?, ?, ?, ?, 1, 0)",
                        (TYPE_VIDEO, self.duration(path), now_s, name.rsplit(".", 1)[0], name),
                    )
                    con.execute(
                        "INSERT INTO File (media_id, mrl, type, last_modification_date, size, is_removable,"
                        " is_external, is_network) VALUES (?, ?, ?, ?, ?, 0, 1, 0)",
                        (cur.lastrowid, "file://" + path, FILE_MAIN, mtime, size),
                    )
        finally:
            con.close()
        self._refreshed = (set(files), db_version(db))

    def duration(self, path: str) -> int:
        try:
            with open(self.device.fs.host(path), "rb") as f:
                return mp4_duration_ms(f)
        except (OSError, PathEscapeError):
            return -1

    def videos(self) -> list[Video]:
        rows = sql(
            self.db(),
            "SELECT id_media, title, filename, duration, mrl FROM Media JOIN File ON File.media_id = id_media"
            " WHERE Media.type = ? AND is_present = 1 ORDER BY title COLLATE NOCASE, id_media",
            (TYPE_VIDEO,),
        )
        return [
            Video(int(i), str(t), str(f), int(d if d is not None else -1), str(m)) for i, t, f, d, m in rows
        ]

    def playlists(self) -> list[tuple[int, str, int]]:
        rows = sql(
            self.db(),
            "SELECT id_playlist, name, (SELECT count(*) FROM PlaylistMediaRelation"
            " WHERE playlist_id = id_playlist) FROM Playlist ORDER BY name COLLATE NOCASE, id_playlist",
        )
        return [(int(i), str(n), int(c)) for i, n, c in rows]

    def playlist_videos(self, pid: int) -> list[Video]:
        rows = sql(
            self.db(),
            "SELECT id_media, title, filename, duration, coalesce(mrl, '') FROM PlaylistMediaRelation"
            " JOIN Media ON id_media = PlaylistMediaRelation.media_id"
            " LEFT JOIN File ON File.media_id = id_media"
            " WHERE PlaylistMediaRelation.playlist_id = ? ORDER BY position",
            (pid,),
        )
        return [
            Video(int(i), str(t), str(f), int(d if d is not None else -1), str(m)) for i, t, f, d, m in rows
        ]

    def add_to_playlist(self, name: str, media: list[int], now_s: int) -> None:
        """Append media to the playlist of that name (made first when there is none), positions from 0."""
        con = sqlite3.connect(self.db())
        try:
            with con:
                row = con.execute("SELECT id_playlist FROM Playlist WHERE name = ?", (name,)).fetchone()
                if row is None:
                    cur = con.execute(
                        "INSERT INTO Playlist (name, creation_date) VALUES (?, ?)", (name, now_s)
                    )
                    pid = int(cur.lastrowid or 0)
                else:
                    pid = int(row[0])
                (count,) = con.execute(
                    "SELECT count(*) FROM PlaylistMediaRelation WHERE playlist_id = ?", (pid,)
                ).fetchone()
                for i, mid in enumerate(media):
                    con.execute(
                        "INSERT INTO PlaylistMediaRelation (media_id, playlist_id, position)"
                        " VALUES (?, ?, ?)",
                        (mid, pid, int(count) + i),
                    )
        finally:
            con.close()

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        st = ctx.state
        tab = int(st.get("tab", 0))
        self.refresh(ctx.now_ms(MINUTE_MS) // 1000)  # stamps new files; no screen shows its seconds
        videos = self.videos()
        pages = (self.video_tab, self.browse_tab, self.playlists_tab)
        bar, listing = pages[tab](ctx, videos)

        def choose(i: int) -> None:
            st.clear()
            st["tab"] = i

        screen = Column(
            bg="surface", children=[bar, listing, tabs(TABS, tab, choose, ("play", "folder", "menu"))]
        )
        layers: list[View] = [screen]
        found = [v for v in videos if v.id == st.get("sheet")]
        if found:
            layers.append(self.context_sheet(ctx, found[0]))
        if st.get("dialog"):
            layers.append(self.playlist_dialog(ctx, [int(i) for i in st["dialog"]]))
        return Stack(bg="surface", children=layers)

    def video_row(self, ctx: ScreenContext, v: Video, title: str, selected: list[int] | None) -> View:
        """A video as the lists show it: thumbnail, title and length, its "More Actions" button. A tap
        plays it (or toggles it in a selection), a long press selects it where lists select (`selected`
        is None where they do not)."""
        st = ctx.state

        def tap() -> None:
            if selected:
                st["selected"] = [i for i in selected if i != v.id] if v.id in selected else [*selected, v.id]
            else:
                ctx.start(PLAYER, {"media_id": v.id})

        def hold() -> None:
            chosen = selected or []
            st["selected"] = chosen if v.id in chosen else [*chosen, v.id]

        return Row(
            id="video_list_item",
            height=72,
            pad=(16, 4, 4, 4),
            spacing=12,
            on_click=tap,
            on_long_click=hold if selected is not None else None,
            selected=v.id in (selected or []),
            bg="secondary_container" if v.id in (selected or []) else None,
            children=[
                Icon(
                    id="ml_item_thumbnail",
                    name="play",
                    size=32,
                    width=80,
                    height=56,
                    bg="#212121",
                    tint="#FFFFFF",
                ),
                Column(
                    weight=1,
                    children=[
                        Text(id="ml_item_title", text=title, size=16, lines=2),
                        Text(
                            id="ml_item_time",
                            text=format_duration(v.duration),
                            size=13,
                            color="on_surface_variant",
                        ),
                    ],
                ),
                IconButton(
                    id="item_more",
                    name="more_vert",
                    desc="More Actions",
                    on_click=lambda: st.update(sheet=v.id),
                ),
            ],
        )

    def browse_tab(self, ctx: ScreenContext, videos: list[Video]) -> tuple[View, View]:
        """Browse: "Internal memory", then its folders and the video files in each (file names shown)."""
        st = ctx.state
        folder = str(st.get("dir", ""))
        fs = self.device.fs

        def go(path: str) -> Callable[[], None]:
            return lambda: st.update(dir=path)

        if not folder:
            rows: list[View] = [
                list_item(
                    "Internal memory",
                    icon="folder",
                    on_click=go(STORAGE),
                    id="browser_item",
                    title_id="title",
                )
            ]
            return app_bar("Browse"), Scroll(id="network_list", key="browse", weight=1, children=rows)
        try:
            names = sorted(fs.listdir(folder), key=str.lower)
        except (OSError, PathEscapeError):
            names = []
        by_mrl = {v.mrl: v for v in videos}
        makers: list[Callable[[], View]] = [  # made as the list shows them
            partial(
                list_item,
                name,
                icon="folder",
                on_click=go(f"{folder}/{name}"),
                id="browser_item",
                title_id="title",
            )
            for name in names
            # A video the library knows is a file: only the other names need a look (a stat each).
            if not name.startswith(".")
            and f"file://{folder}/{name}" not in by_mrl
            and fs.is_dir(f"{folder}/{name}")
        ]
        makers += [
            partial(self.video_row, ctx, by_mrl[f"file://{folder}/{name}"], name, None)
            for name in names
            if f"file://{folder}/{name}" in by_mrl
        ]
        up = go("" if folder == STORAGE else folder.rsplit("/", 1)[0])
        ctx.on_back(up)
        title = "Internal memory" if folder == STORAGE else folder.rsplit("/", 1)[1]
        listing = Scroll(
            id="network_list",
            key=f"browse:{folder}",
            weight=1,
            rows=Rows.of(makers),
            empty=empty_state("folder", "Empty"),
        )
        return app_bar(title, back=up), listing

    def video_tab(self, ctx: ScreenContext, videos: list[Video]) -> tuple[View, View]:
        st = ctx.state
        selected: list[int] = [int(i) for i in st.get("selected", [])]
        rows = Rows(len(videos), lambda i: self.video_row(ctx, videos[i], videos[i].title, selected))
        if selected:

            def add() -> None:
                st["dialog"] = [v.id for v in videos if v.id in selected]  # in list order
                ctx.set_fields({})

            ctx.on_back(lambda: st.pop("selected", None))
            bar = app_bar(
                f"{len(selected)} selected",
                back=lambda: st.pop("selected", None),
                actions=[action("add", "Add to playlist", add, id="action_mode_audio_add_playlist")],
                bg="secondary_container",
            )
        else:
            bar = app_bar("Videos")
        listing = Scroll(
            id="media_list",
            key="videos",
            weight=1,
            rows=rows if videos else None,  # made as the list shows them
            children=[] if videos else [empty_state("play", "No video found")],
        )
        return bar, listing

    def context_sheet(self, ctx: ScreenContext, v: Video) -> View:
        """ContextSheet: the video's actions in a bottom sheet."""
        st = ctx.state

        def close() -> None:
            st.pop("sheet", None)

        def play() -> None:
            close()
            ctx.start(PLAYER, {"media_id": v.id})

        def add() -> None:
            close()
            st["dialog"] = [v.id]
            ctx.set_fields({})

        ctx.on_back(close)
        items: list[View] = [
            Row(
                id="ctx_item",
                height=56,
                pad=(24, 0, 24, 0),
                spacing=24,
                on_click=fn,
                children=[
                    Icon(name=icon, size=24, tint="on_surface_variant", width=24),
                    Text(id="ctx_option_title", text=label, size=16, weight=1),
                ],
            )
            for label, icon, fn in (("Play", "play", play), ("Add to playlist", "add", add))
        ]
        card = Column(
            id="ctx_list",
            bg="surface_container",
            radius=16,
            pad=(0, 16, 0, 24),
            width=480,  # wider than any phone: the sheet spans the screen
            align="bottom",
            blocks=True,
            children=[Text(id="ctx_title", text=v.title, size=18, medium=True, pad=(24, 0, 24, 8)), *items],
        )
        return Scrim(on_click=close, children=[card])

    def playlist_dialog(self, ctx: ScreenContext, media: list[int]) -> View:
        """SavePlaylistDialog: a new playlist's name, or one of the existing playlists."""
        st = ctx.state

        def close() -> None:
            st.pop("dialog", None)
            st.pop("selected", None)
            st.pop("focus", None)

        def add_to(name: str) -> None:
            self.add_to_playlist(name, media, ctx.now_ms() // 1000)
            ctx.toast(f"Added to {name}" if len(media) == 1 else f"{len(media)} items added to {name}")
            close()

        def create() -> None:
            name = ctx.field("playlist").strip()
            if not name:
                ctx.toast("Enter a playlist name")
                return
            add_to(name)

        def pick(name: str) -> Callable[[], None]:
            return lambda: add_to(name)

        ctx.on_back(close)
        body: list[View] = [
            EditText(
                id="dialog_playlist_name", key="playlist", hint="New playlist", text=ctx.field("playlist")
            )
        ]
        existing = self.playlists()
        if existing:
            body.append(Text(text="Existing playlists", size=14, medium=True, color="primary"))
            body.append(
                Scroll(
                    id="list",
                    key="dialog_playlists",
                    height=min(240, 48 * len(existing)),
                    rows=Rows.of(
                        [
                            partial(
                                Text,
                                id="playlist_item_title",
                                text=name,
                                size=16,
                                pad=(0, 12, 0, 12),
                                on_click=pick(name),
                            )
                            for _, name, _ in existing
                        ]
                    ),
                )
            )
        return dialog("Add to playlist", body, [("Cancel", close), ("Create", create)], close)

    def playlist_row(self, name: str, n: int, on_click: Callable[[], None]) -> View:
        """A playlist as the Playlists tab shows it: its name and how many videos it holds."""
        return Row(
            id="playlist_item",
            height=72,
            pad=(16, 4, 16, 4),
            spacing=16,
            on_click=on_click,
            children=[
                Icon(name="menu", size=32, width=56, height=56, bg="#FF8800", tint="#FFFFFF"),
                Column(
                    weight=1,
                    children=[
                        Text(id="ml_item_title", text=name, size=16),
                        Text(id="ml_item_subtitle", text=count_label(n), size=13, color="on_surface_variant"),
                    ],
                ),
            ],
        )

    def playlists_tab(self, ctx: ScreenContext, videos: list[Video]) -> tuple[View, View]:
        def open_playlist(pid: int) -> Callable[[], None]:
            return lambda: ctx.start(PLAYLIST, {"playlist_id": pid})

        found = self.playlists()

        def make(i: int) -> View:  # as the list shows it
            pid, name, n = found[i]
            return self.playlist_row(name, n, open_playlist(pid))

        listing = Scroll(
            id="playlist_list",
            key="playlists",
            weight=1,
            rows=Rows(len(found), make),
            empty=empty_state("menu", "No playlist"),
        )
        return app_bar("Playlists"), listing

    def playlist_media_row(self, n: int, v: Video, on_click: Callable[[], None]) -> View:
        """The playlist's n-th video (from 0): its position, title and length."""
        return Row(
            id="playlist_media_item",
            height=64,
            pad=(16, 4, 16, 4),
            spacing=12,
            on_click=on_click,
            children=[
                Text(id="ml_item_position", text=str(n + 1), size=14, width=24, color="on_surface_variant"),
                Column(
                    weight=1,
                    children=[
                        Text(id="ml_item_title", text=v.title, size=16),
                        Text(
                            id="ml_item_time",
                            text=format_duration(v.duration),
                            size=13,
                            color="on_surface_variant",
                        ),
                    ],
                ),
            ],
        )

    def playlist_screen(self, ctx: ScreenContext) -> View:
        pid = int(ctx.extras.get("playlist_id", 0))
        names = [name for i, name, _ in self.playlists() if i == pid]
        items = self.playlist_videos(pid)

        def play(mid: int) -> Callable[[], None]:
            return lambda: ctx.start(PLAYER, {"media_id": mid})

        rows = Rows(len(items), lambda n: self.playlist_media_row(n, items[n], play(items[n].id)))
        return Column(
            bg="surface",
            children=[
                app_bar(names[0] if names else "", back=ctx.finish),
                Text(
                    id="header_subtitle",
                    text=count_label(len(items)),
                    size=14,
                    pad=(16, 0, 16, 8),
                    color="on_surface_variant",
                ),
                Scroll(
                    key="items",
                    weight=1,
                    rows=rows if items else None,  # made as the list shows them
                    children=[] if items else [empty_state("play", "This playlist is empty")],
                ),
            ],
        )

    def frame(self, v: Video, ms: int) -> str:
        """Host path of a PNG of the video's frame at `ms`, decoded once into the app's cache; "" when
        OpenCV (the compat extra) is not installed or the file has no frame there."""
        out = f"{CACHE}/frame_{v.id}_{ms}.png"
        fs = self.device.fs
        try:
            if not fs.exists(out):
                import cv2  # optional: the sim's only video decoder

                capture = cv2.VideoCapture(str(fs.host(v.mrl.removeprefix("file://"))))
                capture.set(cv2.CAP_PROP_POS_MSEC, ms)
                ok, pixels = capture.read()
                capture.release()
                if not ok:
                    return ""
                fs.mkdir(CACHE, parents=True)
                buffer = io.BytesIO()
                Image.fromarray(pixels[:, :, ::-1]).save(buffer, "PNG")  # OpenCV's pixels are BGR
                fs.write_bytes(out, buffer.getvalue())
            return str(fs.host(out))
        except (ImportError, OSError, PathEscapeError):
            return ""

    def player(self, ctx: ScreenContext) -> View:
        """VideoPlayerActivity: the frame at the playback position over black, the position and length,
        a seek bar, and rewind / play-pause / forward by SEEK_MS. The position moves with the device
        clock while playing (AndroidWorld freezes the clock: then only seeking moves it)."""
        st = ctx.state
        mid = int(ctx.extras.get("media_id", 0))
        found = [v for v in self.videos() if v.id == mid]
        if not found:
            return Column(bg="#000000", children=[app_bar("", back=ctx.finish)])
        v = found[0]
        length = max(0, v.duration)
        now = ctx.now_ms()
        playing = bool(st.setdefault("playing", True))
        since = int(st.setdefault("since", now))
        pos = min(length, int(st.get("pos", 0)) + (now - since if playing else 0))

        def seek(to: int) -> None:
            st.update(pos=min(max(0, to), length), since=ctx.now_ms())

        def toggle() -> None:
            seek(pos)
            st["playing"] = not playing

        white = "#FFFFFF"
        shown_ms = (
            max(0, min(pos, length - 1)) // 1000 * 1000
        )  # one decoded frame a second; the last at the end
        picture = Picture(
            id="player_surface", weight=1, desc=v.title, source=self.frame(v, shown_ms), stamp=str(shown_ms)
        )
        controls = Row(
            justify="center",
            spacing=32,
            pad=(0, 8, 0, 24),
            children=[
                IconButton(
                    id="player_overlay_rewind",
                    name="chevron_left",
                    desc="Rewind 10 seconds",
                    on_click=lambda: seek(pos - SEEK_MS),
                    tint=white,
                ),
                IconButton(
                    id="player_overlay_play",
                    name="pause" if playing else "play",
                    desc="Pause" if playing else "Play",
                    on_click=toggle,
                    tint=white,
                ),
                IconButton(
                    id="player_overlay_forward",
                    name="chevron_right",
                    desc="Forward 10 seconds",
                    on_click=lambda: seek(pos + SEEK_MS),
                    tint=white,
                ),
            ],
        )
        return Column(
            bg="#000000",
            children=[
                Row(
                    height=56,
                    pad=(4, 0, 16, 0),
                    children=[
                        IconButton(name="arrow_back", desc="Navigate up", on_click=ctx.finish, tint=white),
                        Text(id="player_overlay_title", text=v.title, size=18, color=white, weight=1),
                    ],
                ),
                picture,
                Row(
                    pad=(16, 0, 16, 0),
                    children=[
                        Text(
                            id="player_overlay_time",
                            text=format_duration(pos),
                            size=14,
                            color=white,
                            weight=1,
                        ),
                        Text(id="player_overlay_length", text=format_duration(length), size=14, color=white),
                    ],
                ),
                Slider(
                    id="player_overlay_seekbar",
                    value=pos // 1000,
                    high=max(1, length // 1000),
                    on_change=lambda s: seek(s * 1000),
                ),
                controls,
            ],
        )
