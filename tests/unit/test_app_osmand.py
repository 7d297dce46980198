"""OsmAnd's search finds the preloaded places by name (accents optional) or a "lat, lon" pair, and a
favourite added over a file AndroidWorld rewrote (ElementTree's ns0: prefixes) keeps the old waypoints."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mgfarm.sim.apps.osmand import FAVORITES, GPX_NS, MAIN, PKG, search
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
