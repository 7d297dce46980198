"""AndroidWorld's OsmAnd tasks, unchanged, on a simulated device: each scores 0.0 untouched and 1.0
after a solution through the map's search and place card (OsmAndFavorite: Favorite, then Save in the
editor; OsmAndMarker: Marker) or, for OsmAndTrack, through Plan a route: each waypoint found with the
search, Add point, then Save as a new track. A location given by name is searched without its
", Liechtenstein" and without accents (as OsmAnd's search allows); one given as "lat, lon" is typed
as it is and its coordinate result picked.
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "osmand"
ID = "net.osmand:id/"
FAVORITES = "/storage/emulated/0/Android/data/net.osmand/files/favorites/favorites.gpx"


def query(location: str) -> str:
    """What to type for a location: its name without the country and accents, or the coordinates."""
    name = location.removesuffix(", Liechtenstein")
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def find(dev: AwDevice, location: str) -> None:
    """Search a location and open its result: the map centres on it."""
    dev.phone.tap(desc="Search")
    dev.type_into(query(location), rid=ID + "searchEditText")
    dev.phone.tap(rid=ID + "title")  # the first result: an exact name comes first


def add_favorite(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    find(dev, raw["location"])
    dev.phone.tap(text="Favorite")
    dev.phone.tap(text="Save")


def add_marker(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    find(dev, raw["location"])
    dev.phone.tap(text="Marker")


def save_track(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch(APP)
    dev.phone.tap(desc="Menu")
    dev.phone.tap(text="Plan a route")
    for waypoint in raw["waypoints"]:
        find(dev, waypoint)
        dev.phone.tap(text="Add point")
    dev.phone.tap(rid=ID + "save_button")
    dev.phone.tap(rid="android:id/button1")  # the Save of "Save as new track"


TASKS = [
    ("OsmAndFavorite", add_favorite),
    ("OsmAndMarker", add_marker),
    ("OsmAndTrack", save_track),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_osmand(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    from android_world.task_evals.single import osmand

    run_task(aw_device, getattr(osmand, name), seed, solve)


def test_favorite_is_gpx(aw_device: AwDevice) -> None:
    """A favourite is a GPX 1.1 waypoint with the place's name and coordinates in favorites.gpx."""
    add_favorite(aw_device, None, {"location": "Schaan, Liechtenstein"})
    root = ET.fromstring(aw_device.phone.d.sync.read_bytes(FAVORITES))
    ns = {"gpx": "http://www.topografix.com/GPX/1/1"}
    points = [
        (w.findtext("gpx:name", namespaces=ns), w.attrib["lat"], w.attrib["lon"])
        for w in root.findall("gpx:wpt", ns)
    ]
    assert ("Schaan", "47.1663432", "9.5103085") in points
    aw_device.phone.sh(f"rm {FAVORITES}")
