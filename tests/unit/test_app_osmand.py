"""OsmAnd's search finds the preloaded places by name (accents optional) or a "lat, lon" pair, and a
favourite added over a file AndroidWorld rewrote (ElementTree's ns0: prefixes) keeps the old waypoints,
and a map holding thousands of favourites and markers costs a frame what the pins in view do."""

from __future__ import annotations

import random
import re
import sqlite3
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mgfarm.sim.apps import osmand
from mgfarm.sim.apps.osmand import FAVORITES, GPX_NS, MAIN, PKG, pins_in_view, render_map, search
from mgfarm.sim.ui.kept import SETTLED_NS
from tests.unit.sim_screen import Screen, boot_device, find

NS = {"gpx": GPX_NS}


def test_search_by_name_accents_and_coordinates() -> None:
    assert [p["name"] for p in search("Planken")] == ["Planken", "Oberplanken"]  # the exact name first
    assert [p["name"] for p in search("schonberg")] == ["Schönberg"]
    assert [p["name"] for p in search("Schaan, Liechtenstein")] == ["Schaan"]
    [coords] = search("47.1663432, 9.5103085")
    assert (coords["lat"], coords["lon"], coords["name"]) == (47.1663432, 9.5103085, "47.16634, 9.51031")
    assert search("Vaduz") == []


OLD = (
    f'<ns0:gpx xmlns:ns0="{GPX_NS}" version="1.1"><ns0:wpt lat="47.0" lon="9.0">'
    "<ns0:name>Old</ns0:name></ns0:wpt></ns0:gpx>"
)


@pytest.mark.parametrize(
    ("old", "kept"),
    [
        (OLD, [("Old", "47.0")]),
        # A file a shell wrote naming an encoding that does not exist: read as no favourites.
        ("<?xml version='1.0' encoding='utf-f'?>" + OLD, []),
    ],
)
def test_favorite_is_appended_to_a_rewritten_file(
    tmp_path: Path, old: str, kept: list[tuple[str, str]]
) -> None:
    device = boot_device(tmp_path)
    device.fs.mkdir(FAVORITES.rsplit("/", 1)[0], parents=True)
    device.fs.write_bytes(FAVORITES, old.encode())
    device.services.activities.start(PKG, MAIN)
    screen = Screen(device)
    screen.tap(desc="Search")
    screen.type_into("Balzers", rid=f"{PKG}:id/searchEditText")
    screen.tap(rid=f"{PKG}:id/title")  # the result, not the field
    screen.tap(text="Favorite")
    screen.tap(text="Save")
    root = ET.fromstring(device.fs.read_bytes(FAVORITES))
    points = [(w.findtext("gpx:name", namespaces=NS), w.get("lat")) for w in root.findall("gpx:wpt", NS)]
    assert points == [*kept, ("Balzers", "47.0688832")]


def test_a_swipe_over_the_favorite_dialog_leaves_the_map_still(tmp_path: Path) -> None:
    """The dialog is modal: a swipe over it panned the map beneath, which closed the place's card,
    and the dialog, built from that card, crashed the app."""
    device = boot_device(tmp_path)
    device.services.activities.start(PKG, MAIN)
    screen = Screen(device)
    screen.tap(desc="Search")
    screen.type_into("Balzers", rid=f"{PKG}:id/searchEditText")
    screen.tap(rid=f"{PKG}:id/title")
    screen.tap(text="Favorite")
    screen.wm.swipe(540, 700, 540, 300, 300)
    assert screen.has(text="Add favorite") and screen.am.resumed()[0] == PKG
    screen.tap(text="Cancel")
    screen.wm.swipe(540, 700, 540, 300, 300)  # the map pans again, and the card closes
    assert not screen.has(text="Favorite")


def test_the_drawer_dims_the_map_and_a_touch_beside_it_closes_it(tmp_path: Path) -> None:
    """OsmAnd's drawer is a DrawerLayout's: over a scrim, so a tap or a swipe beside it closes it
    and never reaches the map (a swipe there panned the map under the open drawer)."""
    device = boot_device(tmp_path)
    device.services.activities.start(PKG, MAIN)
    screen = Screen(device)
    where = find(screen.xml(), rid=f"{PKG}:id/map_center_coordinates").attrs["text"]
    for close in (lambda: screen.wm.tap(1000, 1200), lambda: screen.wm.swipe(1000, 1400, 1000, 600, 300)):
        screen.tap(desc="Menu")
        assert screen.has(text="My places")
        close()
        assert not screen.has(text="My places")
        assert find(screen.xml(), rid=f"{PKG}:id/map_center_coordinates").attrs["text"] == where
    screen.tap(desc="Menu")
    screen.tap(text="My places")  # the drawer's own items still work
    assert not screen.has(text="Plan a route")


def test_the_map_draws_only_the_pins_in_view_and_the_same_pixels() -> None:
    """A shell can add tens of thousands of favourites and markers: each was drawn on every frame of
    the map, wherever it was (~0.2 s a frame at 40,000)."""
    rng = random.Random(5)
    for _ in range(12):
        center = (47.16 + rng.uniform(-0.05, 0.05), 9.54 + rng.uniform(-0.05, 0.05))
        zoom = rng.randint(9, 16)
        pins = [
            (
                center[0] + rng.uniform(-0.2, 0.2),
                center[1] + rng.uniform(-0.2, 0.2),
                f"#{rng.randrange(1 << 24):06x}",
            )
            for _ in range(rng.randint(0, 300))
        ]
        shown = pins_in_view(center, zoom, pins)
        assert render_map(center, zoom, shown).tobytes() == render_map(center, zoom, pins).tobytes()
        assert len(shown) < len(pins) or not pins or zoom < 12


def test_favorites_are_read_once_for_each_version_of_their_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The map shows the favourites on every frame; the file was parsed for each (~0.1 s a frame at
    20,000). A point whose coordinates are not numbers is left out, not a crash of the app."""
    parsed: list[int] = []
    real = osmand.waypoints

    def waypoints(data: bytes) -> list[osmand.Place]:
        parsed.append(1)
        return real(data)

    monkeypatch.setattr(osmand, "waypoints", waypoints)
    device = boot_device(tmp_path)
    device.fs.mkdir(FAVORITES.rsplit("/", 1)[0], parents=True)
    points = "".join(
        f'<wpt lat="{lat}" lon="9.54"><name>P{i}</name></wpt>'
        for i, lat in enumerate(["47.16", "x", "nan", "47.17"])
    )
    device.fs.write_bytes(FAVORITES, f'<gpx xmlns="{GPX_NS}">{points}</gpx>'.encode())
    time.sleep(SETTLED_NS / 1e9)
    device.services.activities.start(PKG, MAIN)
    screen = Screen(device)
    for _ in range(3):
        device.services.window.swipe(300, 1200, 700, 1300, 200)
        screen.xml()
    screen.tap(desc="Menu")
    screen.tap(text="My places")
    assert screen.has(text="P0") and screen.has(text="P3") and not screen.has(text="P1")
    assert len(parsed) == 1


def test_a_marker_added_twice_is_two_markers_in_a_list(tmp_path: Path) -> None:
    """As MapMarkersDbHelper adds them: an id of the time and three digits, the new marker last in
    the active list (the one before it names it as next), the next colour. The sim replaced the
    first marker by a second one at the same place, so a policy that added it twice went unseen."""
    device = boot_device(tmp_path)
    device.services.activities.start(PKG, MAIN)
    screen = Screen(device)
    for _ in range(2):
        screen.tap(desc="Search")
        screen.type_into("Balzers", rid=f"{PKG}:id/searchEditText")
        screen.tap(rid=f"{PKG}:id/title")
        screen.tap(text="Marker")
    db = sqlite3.connect(device.fs.host(f"/data/data/{PKG}/databases/map_markers_db"))
    rows = db.execute(
        "SELECT marker_id, marker_lat, title, marker_color, marker_next_key FROM map_markers"
        " ORDER BY marker_added, rowid"
    ).fetchall()
    db.close()
    assert len(rows) == 2 and rows[0][0] != rows[1][0]
    assert all(re.fullmatch(r"\d{16}", r[0]) for r in rows)
    assert [r[1:4] for r in rows] == [(47.0688832, "Balzers", 0), (47.0688832, "Balzers", 1)]
    assert (rows[0][4], rows[1][4]) == (rows[1][0], "tail_next")
