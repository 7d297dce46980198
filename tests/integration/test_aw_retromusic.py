"""AndroidWorld's Retro Music tasks, unchanged, on a simulated device: each initialises (real MP3 files
pushed to Music/ and scanned), scores 0.0 untouched and 1.0 after a solution that only taps, types,
scrolls and reads the screen.

The solutions use the Songs tab (each row's "More options" menu: Add to playlist…, Add to playing
queue), the Playlists tab ("New playlist", a playlist's menu: Save as file) and the player's Playing
queue (cleared first when an earlier task left songs in it). RetroPlaylistDuration reads every song's
length from the list and picks songs whose lengths add up to 45 to 50 minutes.

RetroPlayingQueue's untouched check is made after opening the app once. AndroidWorld's own
initialize_task deletes the app's music_playback_state.db: clearing the playlist tables, its
push_file empties the whole databases/ folder before pushing playlist.db back, then closes the app.
Until the app runs again (its playback service re-creates the database when it opens it), is_successful
reads a missing file and raises sqlite3.OperationalError "no such table: playing_queue", on the sim as
on an emulator. An agent always has the app open before the judge runs, so this does not arise there.

AndroidWorld writes its MP3 files with pydub, which needs ffmpeg on the host (Debian's `ffmpeg`).
"""

from __future__ import annotations

import itertools
import shutil
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "retro music"
ID = "code.name.monkey.retromusic:id/"
ROW_MIN_PX = 150  # a song row (72 dp) shown whole, not cut off at the list's edge


def task_class(name: str) -> type:
    from android_world.task_evals.single import retro_music

    cls: type = getattr(retro_music, name)
    return cls


def bounds(el: ET.Element) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = (int(v) for v in el.attrib["bounds"].replace("][", ",").strip("[]").split(","))
    return x0, y0, x1, y1


def song_rows(dev: AwDevice) -> list[dict[str, Any]]:
    """The song rows shown whole: title, "artist • m:ss" text and the centre of their menu button."""
    rows = []
    for el in ET.fromstring(dev.phone.dump()).iter("node"):
        if el.attrib["resource-id"] != ID + "song_item":
            continue
        _, y0, _, y1 = bounds(el)
        if y1 - y0 < ROW_MIN_PX:
            continue
        row: dict[str, Any] = {}
        for child in el.iter("node"):
            rid = child.attrib["resource-id"].removeprefix(ID)
            if rid in ("title", "text"):
                row[rid] = child.attrib["text"]
            if rid == "menu":
                mx0, my0, mx1, my1 = bounds(child)
                row["menu"] = ((mx0 + mx1) // 2, (my0 + my1) // 2)
        rows.append(row)
    return rows


def scroll_up(dev: AwDevice) -> None:
    dev.phone.sh("input swipe 540 900 540 1800 300")


def to_top(dev: AwDevice) -> None:
    first = None
    while True:
        rows = song_rows(dev)
        if rows and rows[0]["title"] == first:
            return
        first = rows[0]["title"] if rows else None
        scroll_up(dev)


def find_song(dev: AwDevice, title: str) -> dict[str, Any]:
    """The Songs tab's row of a title: on screen, else scrolling down from the top of the list."""
    dev.phone.tap(desc="Songs")
    for row in song_rows(dev):
        if row["title"] == title:
            return row
    to_top(dev)
    last = None
    while True:
        rows = song_rows(dev)
        for row in rows:
            if row["title"] == title:
                return row
        if not rows or rows[-1]["title"] == last:
            raise AssertionError(f"no song {title!r} in the list")
        last = rows[-1]["title"]
        dev.scroll_down()


def song_menu(dev: AwDevice, title: str, item: str) -> None:
    x, y = find_song(dev, title)["menu"]
    dev.phone.sh(f"input tap {x} {y}")
    dev.phone.tap(text=item)


def all_songs(dev: AwDevice) -> dict[str, int]:
    """Every song's length in seconds, read from the list."""
    dev.phone.tap(desc="Songs")
    to_top(dev)
    seen: dict[str, int] = {}
    while True:
        fresh = 0
        for row in song_rows(dev):
            if row["title"] not in seen:
                fresh += 1
                minutes, seconds = row["text"].rsplit(" • ", 1)[1].split(":")
                seen[row["title"]] = int(minutes) * 60 + int(seconds)
        if not fresh:
            return seen
        dev.scroll_down()


def new_playlist(dev: AwDevice, name: str) -> None:
    dev.phone.tap(desc="Playlists")
    dev.phone.tap(desc="New playlist")
    dev.type_into(name, rid=ID + "actionNewPlaylist")
    dev.phone.tap(text="Create")


def fill_playlist(dev: AwDevice, name: str, titles: list[str]) -> None:
    dev.launch(APP)
    new_playlist(dev, name)
    for title in titles:
        song_menu(dev, title, "Add to playlist…")
        dev.phone.tap(text=name)


def titles(raw: dict[str, Any]) -> list[str]:
    return [f.split(".")[0] for f in raw["files"]]


# ---- solutions
def create_playlist(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    fill_playlist(dev, raw["playlist_name"], titles(raw))


def save_playlist(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    name = raw["playlist_name"]
    fill_playlist(dev, name, titles(raw))
    dev.phone.tap(desc="Playlists")
    dev.phone.tap(text=name)
    dev.phone.tap(desc="More options")
    dev.phone.tap(text="Save as file")


def playing_queue(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    if f'resource-id="{ID}miniPlayerFragment"' in dev.phone.dump():  # a queue left by an earlier task
        dev.phone.tap(rid=ID + "miniPlayerFragment")
        dev.phone.tap(desc="Playing queue")
        dev.phone.tap(desc="Clear playing queue")
    for title in titles(raw):
        song_menu(dev, title, "Add to playing queue")


def playlist_duration(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    lengths = all_songs(dev)
    names = sorted(lengths)
    # The fewest songs whose lengths add up to 45 to 50 minutes.
    pick = next(
        combo
        for size in range(1, len(names) + 1)
        for combo in itertools.combinations(names, size)
        if 45 * 60 + 1 <= sum(lengths[n] for n in combo) <= 50 * 60 - len(combo)
    )
    fill_playlist(dev, raw["playlist_name"], list(pick))


TASKS = [
    ("RetroCreatePlaylist", create_playlist),
    ("RetroPlayingQueue", playing_queue),
    ("RetroSavePlaylist", save_playlist),
    ("RetroPlaylistDuration", playlist_duration),
]


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="AndroidWorld writes its MP3 files with ffmpeg")
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_retro_music(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, task_class(name), seed, solve, opened=APP if name == "RetroPlayingQueue" else "")
