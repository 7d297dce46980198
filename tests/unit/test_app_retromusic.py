"""Retro Music reads each MP3's tags and length, and writes playlists, the playing queue and an
exported M3U file where the real app keeps them."""

from __future__ import annotations

import random
import sqlite3
import tracemalloc
from pathlib import Path

from mgfarm.sim.device import SimDevice
from mgfarm.sim.system.mp3 import Mp3Info, read_mp3
from tests.unit.fuzzkit import mutated
from tests.unit.sim_screen import Screen, boot_device, find, nodes

PKG = "code.name.monkey.retromusic"
ID = f"{PKG}:id/"
DATABASES = f"/data/data/{PKG}/databases"


def syncsafe(n: int) -> bytes:
    return bytes((n >> s) & 0x7F for s in (21, 14, 7, 0))


def mp3(title: str, artist: str, frames: int, delay: int = 576, padding: int = 1000) -> bytes:
    """An ID3v2.4 tag (UTF-8 title and artist), then an MPEG-1 layer III frame (44.1 kHz stereo) holding
    an Info header with the frame count and a LAME tag with the encoder delay and padding."""
    tag = b""
    for fid, text in (("TIT2", title), ("TPE1", artist)):
        body = b"\x03" + text.encode()
        tag += fid.encode() + syncsafe(len(body)) + b"\x00\x00" + body
    id3 = b"ID3\x04\x00\x00" + syncsafe(len(tag)) + tag
    lame = (
        b"LAME3.100" + bytes(12) + bytes([delay >> 4, ((delay & 0xF) << 4) | (padding >> 8), padding & 0xFF])
    )
    info = b"Info" + (1).to_bytes(4, "big") + frames.to_bytes(4, "big") + lame
    frame = b"\xff\xfb\x90\x00" + bytes(32) + info
    return id3 + frame + bytes(417 - len(frame))


def test_tags_and_length_come_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.mp3"
    path.write_bytes(mp3("Night Drive", "Zoë", 100))
    info = read_mp3(path)
    assert (info.title, info.artist) == ("Night Drive", "Zoë")
    assert info.duration_ms == round((100 * 1152 - 576 - 1000) * 1000 / 44100)


def retro(tmp_path: Path) -> tuple[SimDevice, Screen]:
    device = boot_device(tmp_path)
    device.fs.mkdir("/sdcard/Music", parents=True)
    device.fs.write_bytes("/sdcard/Music/b.mp3", mp3("Night Drive", "Ann", 10000))  # 4:21
    device.fs.write_bytes("/sdcard/Music/a.mp3", mp3("Golden Days", "Bob", 5000))  # 2:10
    screen = Screen(device)
    screen.am.start(PKG, f"{PKG}.activities.MainActivity")
    return device, screen


def db_rows(device: SimDevice, name: str, query: str) -> list[tuple[object, ...]]:
    con = sqlite3.connect(device.fs.host(f"{DATABASES}/{name}"))
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def song_texts(screen: Screen) -> list[str]:
    """Titles and "artist • length" lines of the song rows (the app bar's title left out)."""
    rids = (ID + "title", ID + "text")
    return [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] in rids][1:]


def song_menu(screen: Screen, title: str, item: str) -> None:
    index = song_texts(screen)[::2].index(title)
    menus = [n for n in nodes(screen.xml()) if n.attrs["resource-id"] == ID + "menu"]
    screen.wm.tap(*menus[index].center)
    screen.tap(text=item)


def test_songs_by_title_with_artist_and_length(tmp_path: Path) -> None:
    _, screen = retro(tmp_path)
    assert song_texts(screen) == ["Golden Days", "Bob • 2:10", "Night Drive", "Ann • 4:21"]


def test_a_playlist_keeps_its_songs_in_the_order_added_and_saves_as_m3u(tmp_path: Path) -> None:
    device, screen = retro(tmp_path)
    screen.tap(desc="Playlists")
    screen.tap(desc="New playlist")
    screen.type_into("Road Trip", rid=ID + "actionNewPlaylist")
    screen.tap(text="Create")
    screen.tap(desc="Songs")
    for title in ("Night Drive", "Golden Days"):
        song_menu(screen, title, "Add to playlist…")
        screen.tap(text="Road Trip")
    query = (
        "SELECT p.playlist_name, s.title, s.artist_name, s.data FROM PlaylistEntity p"
        " JOIN SongEntity s ON p.playlist_id = s.playlist_creator_id ORDER BY s.song_key"
    )
    assert db_rows(device, "playlist.db", query) == [
        ("Road Trip", "Night Drive", "Ann", "/storage/emulated/0/Music/b.mp3"),
        ("Road Trip", "Golden Days", "Bob", "/storage/emulated/0/Music/a.mp3"),
    ]
    screen.tap(desc="Playlists")
    assert find(screen.xml(), text="2 Songs")
    screen.tap(text="Road Trip")
    assert find(screen.xml(), rid=ID + "songTotalTime", text="2 Songs • 6:31")
    screen.tap(desc="More options")
    screen.tap(text="Save as file")
    m3u = device.fs.host("/sdcard/Download/Road Trip.m3u").read_text()
    assert m3u.splitlines()[0] == "#EXTM3U"
    assert "/storage/emulated/0/Music/b.mp3" in m3u.splitlines()[2]


def test_the_playing_queue_is_saved_in_order_and_as_a_playlist(tmp_path: Path) -> None:
    device, screen = retro(tmp_path)
    for title in ("Night Drive", "Golden Days"):
        song_menu(screen, title, "Add to playing queue")
    titles = "SELECT title FROM playing_queue ORDER BY rowid"
    assert db_rows(device, "music_playback_state.db", titles) == [("Night Drive",), ("Golden Days",)]
    screen.tap(rid=ID + "miniPlayerFragment")
    screen.tap(desc="Playing queue")
    screen.tap(desc="Save as playlist")
    screen.type_into("Queue", rid=ID + "actionNewPlaylist")
    screen.tap(text="Create")
    saved = "SELECT title FROM SongEntity ORDER BY song_key"
    assert db_rows(device, "playlist.db", saved) == [("Night Drive",), ("Golden Days",)]
    screen.tap(desc="Clear playing queue")
    assert db_rows(device, "music_playback_state.db", titles) == []


def test_a_large_tag_is_skipped_through_not_read(tmp_path: Path) -> None:
    """Cover art before the text frames is seeked past: the whole tag was read (a shell can make
    a tag of 256 MB, or one file of it linked under thousands of names)."""
    art = b"APIC" + syncsafe(30 << 20) + b"\x00\x00" + bytes(30 << 20)
    song = mp3("Night Drive", "Zoë", 100)
    tag_size = int.from_bytes(song[6:10], "big")  # syncsafe, but under 128 here
    tag = song[10 : 10 + tag_size]
    path = tmp_path / "art.mp3"
    path.write_bytes(b"ID3\x04\x00\x00" + syncsafe(len(art) + len(tag)) + art + tag + song[10 + tag_size :])
    del art
    tracemalloc.start()
    try:
        info = read_mp3(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (info.title, info.artist) == ("Night Drive", "Zoë")
    assert info.duration_ms == round((100 * 1152 - 576 - 1000) * 1000 / 44100)
    assert peak < 1 << 20  # 30 MB were read before


def test_a_file_cut_inside_its_tag_header_reads_as_no_tags(tmp_path: Path) -> None:
    """A file of "ID3" and two bytes raised IndexError out of Retro Music's song list."""
    path = tmp_path / "cut.mp3"
    path.write_bytes(b"ID3\x04\x00")
    assert read_mp3(path) == Mp3Info()


def test_tags_are_kept_only_for_the_files_there_now(tmp_path: Path) -> None:
    """Tags were kept for every file name ever seen: a shell renaming a song in a loop grew the app's
    memory without end."""
    device, screen = retro(tmp_path)
    app = device.services.activities.apps()[PKG]
    for i in range(40):
        device.fs.rename(
            "/sdcard/Music/a.mp3" if i == 0 else f"/sdcard/Music/a{i - 1}.mp3", f"/sdcard/Music/a{i}.mp3"
        )
        screen.tap(text="Playlists")
        screen.tap(text="Songs")
        assert "Golden Days" in song_texts(screen)
    assert len(app._tags) == 2


def test_any_bytes_read_as_tags_or_none(tmp_path: Path) -> None:
    """Fuzz: an MP3 with a tag, changed, cut or spliced, and random bytes."""
    path = tmp_path / "f.mp3"
    valid = mp3("Night Drive", "Zoë", 100)
    rng = random.Random(5)
    for _ in range(2000):
        path.write_bytes(mutated(rng, valid))
        info = read_mp3(path)
        assert isinstance(info.title, str) and info.duration_ms >= 0
