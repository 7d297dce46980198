"""AndroidWorld's VLC tasks, unchanged, on a simulated device: VlcCreatePlaylist and
VlcCreateTwoPlaylists each initialise, score 0.0 untouched and 1.0 after a solution that only uses the
UI: for each file in order, the video row's "More Actions", "Add to playlist", then the new playlist's
name and Create for the first file, a tap on the playlist's name for the others. AndroidWorld reads
Playlist, PlaylistMediaRelation and Media of app_db/vlc_media.db, which the app keeps as the real
media library does (positions from 0).

MarkorTranscribeVideo (tests/integration/test_aw_markor.py) plays its video with `play` below: VLC's
player shows the frame at the playback position, decoded with OpenCV (which AndroidWorld needs too).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "vlc"
ID = "org.videolan.vlc:id/"
BOUNDS = re.compile(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]")


def bounds(el: ET.Element) -> tuple[int, int, int, int]:
    m = BOUNDS.fullmatch(el.attrib["bounds"])
    assert m, el.attrib
    x0, y0, x1, y1 = (int(v) for v in m.groups())
    return x0, y0, x1, y1


def find_row(dev: AwDevice, title: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Centres of the title and of the "More Actions" button of the video row titled `title`, if it
    is wholly on screen."""
    nodes = list(ET.fromstring(dev.phone.dump()).iter("node"))
    titles = [
        bounds(n)
        for n in nodes
        if n.attrib["resource-id"] == ID + "ml_item_title" and n.attrib["text"] == title
    ]
    buttons = [bounds(n) for n in nodes if n.attrib["resource-id"] == ID + "item_more"]
    for x0, y0, x1, y1 in titles:
        for bx0, by0, bx1, by1 in buttons:
            if by0 <= (y0 + y1) // 2 <= by1 and by1 - by0 > 40:
                return ((x0 + x1) // 2, (y0 + y1) // 2), ((bx0 + bx1) // 2, (by0 + by1) // 2)
    return None


def scroll_to(dev: AwDevice, title: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Scroll VLC's video list from its top until the row titled `title` shows."""
    for _ in range(3):
        dev.phone.sh("input swipe 540 700 540 2000 200")
    for _ in range(12):
        found = find_row(dev, title)
        if found:
            return found
        dev.phone.sh("input swipe 540 1700 540 1100 400")
    raise AssertionError(f"no video titled {title} in VLC's list")


def open_more(dev: AwDevice, title: str) -> None:
    x, y = scroll_to(dev, title)[1]
    dev.phone.sh(f"input tap {x} {y}")


def play(dev: AwDevice, file: str) -> None:
    """Open the video in VLC's player from the Video tab."""
    dev.launch(APP)
    x, y = scroll_to(dev, file.rsplit(".", 1)[0])[0]
    dev.phone.sh(f"input tap {x} {y}")


def make_playlist(dev: AwDevice, name: str, files: list[str]) -> None:
    for i, file in enumerate(files):
        open_more(dev, file.rsplit(".", 1)[0])
        dev.phone.tap(text="Add to playlist")
        if i == 0:
            dev.type_into(name, rid=ID + "dialog_playlist_name")
            dev.phone.tap(text="Create")
        else:
            dev.phone.tap(text=name)


def create_playlist(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    make_playlist(dev, raw["playlist_name"], raw["files"])


def create_two_playlists(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    make_playlist(dev, raw["playlist_name1"], raw["files1"])
    make_playlist(dev, raw["playlist_name2"], raw["files2"])


TASKS = [
    ("VlcCreatePlaylist", create_playlist),
    ("VlcCreateTwoPlaylists", create_two_playlists),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_vlc(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    from android_world.task_evals.single import vlc

    run_task(aw_device, getattr(vlc, name), seed, solve)
