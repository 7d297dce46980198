"""VLC discovers the videos of shared storage into its media library and keeps playlists there as the
real medialibrary does: AndroidWorld's join of Playlist, PlaylistMediaRelation and Media finds each
playlist's files at positions from 0, in the order they were added; a video's duration is read from
its movie header as a player finds it."""

from __future__ import annotations

import asyncio
import io
import random
import struct
from pathlib import Path

import pytest
from PIL import Image

from mgfarm.sim.apps.audiorecorder import m4a
from mgfarm.sim.apps.base import sql
from mgfarm.sim.apps.camera import box, mp4_bytes
from mgfarm.sim.apps.vlc import format_duration, mp4_duration_ms
from mgfarm.sim.io import ShellIO
from tests.unit.fuzzkit import mutated
from tests.unit.sim_screen import Screen, boot_device, find, nodes

PKG = "org.videolan.vlc"
DB = f"/data/data/{PKG}/app_db/vlc_media.db"
ID = PKG + ":id/"
VIDEOS = "/storage/emulated/0/VLCVideos"
# AndroidWorld's query (task_evals/single/vlc.py).
PLAYLISTS = (
    "SELECT Playlist.name, Media.filename, PlaylistMediaRelation.position FROM PlaylistMediaRelation"
    " INNER JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id"
    " INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id"
    " ORDER BY Playlist.name, PlaylistMediaRelation.position"
)


def texts(screen: Screen, rid: str) -> list[str]:
    return [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] == ID + rid]


def drawn(screen: Screen) -> None:
    """The screen renders (a screencap of each step: a bad colour or view fails here, not on a phone)."""
    assert screen.wm.screencap_png().startswith(b"\x89PNG")


def add_to_playlist(screen: Screen, title: str, name: str, new: bool) -> None:
    """The row's More Actions (the one beside its title), Add to playlist, then a new or existing name."""
    xml = screen.xml()
    y = find(xml, rid=ID + "ml_item_title", text=title).center[1]
    more = [n for n in nodes(xml) if n.attrs["resource-id"] == ID + "item_more"]
    x, _ = min((n.center for n in more), key=lambda c: abs(c[1] - y))
    screen.wm.tap(x, y)
    drawn(screen)
    screen.tap(text="Add to playlist")
    drawn(screen)
    if new:
        screen.type_into(name, rid=ID + "dialog_playlist_name")
        screen.tap(text="Create")
    else:
        screen.tap(text=name)


def duration(data: bytes) -> int:
    return mp4_duration_ms(io.BytesIO(data))


def test_durations_come_from_the_movie_header() -> None:
    assert abs(duration(m4a(3.0)) - 3000) < 30
    assert duration(b"not a movie") == -1
    assert duration(mp4_bytes(65_500)) == 65_500
    assert [format_duration(ms) for ms in (61_000, 3_725_000, -1)] == ["1:01", "1:02:05", ""]


def test_playlists_keep_the_order_files_were_added_in(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    for name, seconds in (("b_clip.mp4", 2.1), ("a_scene.mp4", 65.5), ("c_noise.mp4", 1.1)):
        device.fs.write_bytes(f"{VIDEOS}/{name}", m4a(seconds))
    screen = Screen(device)
    screen.am.launch(PKG)
    assert texts(screen, "ml_item_title") == ["a_scene", "b_clip", "c_noise"]
    assert texts(screen, "ml_item_time") == ["1:05", "0:02", "0:01"]
    add_to_playlist(screen, "b_clip", "Road Trips", new=True)
    add_to_playlist(screen, "a_scene", "Road Trips", new=False)
    db = device.fs.host(DB, "/")
    assert sql(db, PLAYLISTS) == [("Road Trips", "b_clip.mp4", 0), ("Road Trips", "a_scene.mp4", 1)]
    screen.tap(desc="Playlists")
    drawn(screen)
    assert texts(screen, "ml_item_subtitle") == ["2 videos"]
    screen.tap(text="Road Trips")
    drawn(screen)
    assert texts(screen, "ml_item_title") == ["b_clip", "a_scene"]


def test_media_rows_deleted_behind_its_back_are_rediscovered(tmp_path: Path) -> None:
    """AndroidWorld empties Media, Playlist and PlaylistMediaRelation, then pushes new videos."""
    device = boot_device(tmp_path)
    device.fs.write_bytes(f"{VIDEOS}/old.mp4", m4a(1.0))
    screen = Screen(device)
    screen.am.launch(PKG)
    db = device.fs.host(DB, "/")
    for table in ("Playlist", "Media", "PlaylistMediaRelation"):
        sql(db, f"DELETE FROM {table}")
    device.fs.unlink(f"{VIDEOS}/old.mp4")
    device.fs.write_bytes(f"{VIDEOS}/new.mp4", m4a(1.0))
    screen.am.launch(PKG)
    assert texts(screen, "ml_item_title") == ["new"]
    assert sql(db, "SELECT filename, type FROM Media") == [("new.mp4", 1)]
    assert sql(db, "SELECT mrl FROM File") == [(f"file://{VIDEOS}/new.mp4",)]


def test_the_library_follows_its_database_files_and_snapshots_at_every_compose(tmp_path: Path) -> None:
    """What changed behind the screen (rows deleted by `sqlite3` with the files unchanged, a file
    added or removed, a snapshot loaded) shows at the next compose."""
    from mgfarm.sim import snapshot

    def shell(command: str) -> None:
        assert asyncio.run(device.shell(command, ShellIO.buffered())) == 0

    device = boot_device(tmp_path)
    shell(f"mkdir -p {VIDEOS}")
    device.fs.write_bytes(f"{VIDEOS}/a.mp4", m4a(1.0))
    screen = Screen(device)
    screen.am.launch(PKG)
    assert texts(screen, "ml_item_title") == ["a"]
    db = device.fs.host(DB, "/")
    shell(f"sqlite3 {DB} 'DELETE FROM Media'")
    assert texts(screen, "ml_item_title") == ["a"]
    assert sql(db, "SELECT filename FROM Media") == [("a.mp4",)]
    snapshot.save(device, "one")
    shell(f"cp {VIDEOS}/a.mp4 {VIDEOS}/b.mp4")
    assert texts(screen, "ml_item_title") == ["a", "b"]
    snapshot.load(device, "one")
    assert texts(screen, "ml_item_title") == ["a"]
    shell(f"rm {VIDEOS}/a.mp4")
    assert texts(screen, "ml_item_title") == []
    assert sql(db, "SELECT count(*) FROM Media") == [(0,)]


def test_the_player_shows_the_frame_at_its_position(tmp_path: Path) -> None:
    """A video's words drawn into its frames (as AndroidWorld makes them) are on the player's surface."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    local = tmp_path / "words.mp4"
    out = cv2.VideoWriter(str(local), cv2.VideoWriter_fourcc(*"mp4v"), 1, (320, 240))
    for shade in (0, 0, 255, 255):  # two seconds black, two white
        out.write(np.full((240, 320, 3), shade, dtype=np.uint8))
    out.release()
    device = boot_device(tmp_path)
    device.fs.write_bytes(f"{VIDEOS}/words.mp4", local.read_bytes())
    screen = Screen(device)
    screen.am.launch(PKG)
    screen.tap(rid=ID + "ml_item_title", text="words")
    assert texts(screen, "player_overlay_length") == ["0:04"]
    cache = f"/data/data/{PKG}/cache"

    def shade(name: str) -> int:
        pixel = Image.open(device.fs.host(f"{cache}/{name}", "/")).convert("L").getpixel((10, 10))
        assert isinstance(pixel, int)
        return pixel

    assert device.fs.listdir(cache) == ["frame_1_0.png"]
    assert shade("frame_1_0.png") < 30
    screen.tap(desc="Forward 10 seconds")  # past the end: the last frame stays on
    assert texts(screen, "player_overlay_time") == ["0:04"]
    assert shade("frame_1_3000.png") > 225
    drawn(screen)


def test_a_selection_goes_into_the_playlist_in_list_order(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    for name in ("a.mp4", "b.mp4", "c.mp4"):
        device.fs.write_bytes(f"{VIDEOS}/{name}", m4a(1.0))
    screen = Screen(device)
    screen.am.launch(PKG)
    for title in ("c", "a"):
        x, y = find(screen.xml(), rid=ID + "ml_item_title", text=title).center
        screen.wm.long_press(x, y)
    assert texts(screen, "title") == ["2 selected"]
    screen.tap(desc="Add to playlist")
    screen.type_into("Picks", rid=ID + "dialog_playlist_name")
    screen.tap(text="Create")
    drawn(screen)
    assert sql(device.fs.host(DB, "/"), PLAYLISTS) == [("Picks", "a.mp4", 0), ("Picks", "c.mp4", 1)]
    assert texts(screen, "title") == ["Videos"]


def test_browse_reaches_the_videos_folder_and_adds_from_there(tmp_path: Path) -> None:
    """AndroidWorld's goal says "located in Internal Memory/VLCVideos": Browse goes there."""
    device = boot_device(tmp_path)
    device.fs.write_bytes(f"{VIDEOS}/clip_1_HD.mp4", m4a(1.0))
    screen = Screen(device)
    screen.am.launch(PKG)
    screen.tap(desc="Browse")
    screen.tap(text="Internal memory")
    screen.tap(text="VLCVideos")
    drawn(screen)
    assert texts(screen, "ml_item_title") == ["clip_1_HD.mp4"]
    add_to_playlist(screen, "clip_1_HD.mp4", "Clips", new=True)
    assert sql(device.fs.host(DB, "/"), PLAYLISTS) == [("Clips", "clip_1_HD.mp4", 0)]
    screen.wm.key(4)  # BACK: up to Internal memory
    assert screen.has(text="VLCVideos") and screen.has(text="Internal memory")


def test_the_movie_header_is_found_by_its_box_not_read_whole(tmp_path: Path) -> None:
    """A video is read as a player reads it: its boxes walked, the media data seeked past. The whole
    file was read (a device's video can fill its 2 GiB partition) and searched for "mvhd", which
    media data can hold."""
    fake = box(b"mvhd", bytes([0]) + bytes(11) + struct.pack(">II", 1000, 999_000))
    movie = mp4_bytes(4_000)
    cut = struct.unpack(">I", movie[:4])[0]  # the ftyp box, then moov and an empty mdat
    ftyp, rest = movie[:cut], movie[cut:]
    assert duration(ftyp + box(b"mdat", b"x" * 100 + fake) + rest) == 4_000
    path = tmp_path / "big.mp4"
    with open(path, "wb") as f:  # a 2 GiB mdat (a 64-bit size), sparse on disk
        f.write(ftyp + struct.pack(">I4sQ", 1, b"mdat", 16 + (1 << 31)))
        f.seek(1 << 31, io.SEEK_CUR)
        f.write(rest)
    reads: list[int] = []

    class Counted(io.FileIO):
        def read(self, n: int | None = -1) -> bytes:
            out = super().read(n)
            reads.append(len(out))
            return out

    with Counted(path) as f:
        assert mp4_duration_ms(f) == 4_000
    assert sum(reads) < 4096
    with open(path, "r+b") as f:  # a movie box claiming 4 bytes, shorter than its own header
        f.write(struct.pack(">I4s", 4, b"moov"))
    reads.clear()
    with Counted(path) as f:
        assert mp4_duration_ms(f) == -1
    assert sum(reads) < 4096


def test_any_bytes_read_as_a_duration_or_none() -> None:
    """Fuzz: valid files changed, cut or spliced, and random bytes."""
    valid = [m4a(1.5), mp4_bytes(2_000)]
    rng = random.Random(11)
    for _ in range(3000):
        got = duration(mutated(rng, rng.choice(valid)))
        assert isinstance(got, int) and got >= -1
