"""OsmAnd (net.osmand): an offline map of Liechtenstein with search, favourites, map markers and tracks.

The map is drawn, not tiled from real data: a tile grid and the places of the small gazetteer below
(the places of the Liechtenstein map AndroidWorld preloads, with its coordinates) around a centre
cross. The search box finds those places by name (accents optional) or a "lat, lon" pair; a result
centres the map on it and opens the place card, whose "Favorite" button opens the favourite editor
and whose "Marker" button adds a map marker. The menu opens "My places" (favourites and tracks),
"Map markers" and "Plan a route": there "Add point" adds the map centre (move it with the search or
a swipe), and "Save" writes the route as a track.

Where the real app keeps them: favourites in `files/favorites/favorites.gpx` of its external files
folder (GPX 1.1 `wpt` elements with OsmAnd's extensions), markers in the SQLite database
`databases/map_markers_db` (table `map_markers`, MapMarkersDbHelper's columns), tracks as GPX files
(`trk`/`trkseg`/`trkpt`) under `files/tracks/`.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import re
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import timezone
from functools import partial
from typing import Any

from PIL import Image, ImageDraw

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.system.clock import instant
from mgfarm.sim.system.cursor import get_int
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.ui.fonts import font
from mgfarm.sim.ui.kept import parsed_file
from mgfarm.sim.ui.views import (
    Button,
    Column,
    EditText,
    IconButton,
    Picture,
    Row,
    Rows,
    Scrim,
    Scroll,
    Stack,
    Text,
    View,
)
from mgfarm.sim.ui.widgets import app_bar, dialog, empty_state, list_item

PKG = "net.osmand"
MAIN = "net.osmand.plus.activities.MapActivity"
FILES = "/storage/emulated/0/Android/data/net.osmand/files"
FAVORITES = f"{FILES}/favorites/favorites.gpx"
TRACKS = f"{FILES}/tracks"
MARKERS_DB = "map_markers_db"
TAIL_NEXT = "tail_next"  # MapMarkersDbHelper.TAIL_NEXT_VALUE: the last active marker's next key
MARKER_COLORS = 7  # MapMarkersHelper.MAP_MARKERS_COLORS_COUNT
# MapMarkersDbHelper: the markers table (with the title column of OsmAnd 4.x) and the groups table.
SCHEMA = """
CREATE TABLE IF NOT EXISTS map_markers (marker_id TEXT PRIMARY KEY, marker_lat double, marker_lon double,
  marker_description TEXT, marker_active int, marker_added long, marker_visited long, group_name TEXT,
  group_key TEXT, marker_color int, marker_next_key TEXT, marker_disabled int, marker_selected int,
  marker_map_object_name TEXT, title TEXT);
CREATE TABLE IF NOT EXISTS map_markers_groups (group_name TEXT, group_marker_id TEXT, group_type int,
  group_disabled int, group_categories TEXT, group_wpt_categories TEXT);
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
"""
SEED = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
GPX_NS = "http://www.topografix.com/GPX/1/1"
# A larger favourites file reads as none: the map shows every favourite on every frame, and a shell
# can make the file as large as the partition (~60,000 favourites fit).
MAX_FAVORITES_BYTES = 8 * 1024 * 1024
OSMAND_NS = "https://osmand.net"
CREATOR = "OsmAnd Maps 4.6.13"
COUNTRY = "Liechtenstein"
# The places of AndroidWorld's preloaded Liechtenstein map, with the coordinates it uses.
PLACES: dict[str, tuple[float, float]] = {
    "Balzers": (47.0688832, 9.5061564),
    "Bendern": (47.2122151, 9.5062101),
    "Malbun": (47.1026191, 9.6083057),
    "Nendeln": (47.1973857, 9.5430636),
    "Oberplanken": (47.1784977, 9.5450163),
    "Planken": (47.1858882, 9.5452201),
    "Rotenboden": (47.1275785, 9.5387131),
    "Ruggell": (47.23976, 9.5262837),
    "Schaan": (47.1663432, 9.5103085),
    "Schaanwald": (47.2165476, 9.5699984),
    "Schönberg": (47.1303814, 9.5930117),
    "Triesen": (47.106997, 9.5274854),
}
HOME = (
    sum(lat for lat, _ in PLACES.values()) / len(PLACES),
    sum(lon for _, lon in PLACES.values()) / len(PLACES),
)
ZOOM = 12  # the whole country fits the screen
TILE_PX = 512  # a 256-pixel tile on a 2x screen
MAP_SIZE = (1080, 2000)
FAVORITE_COLOR = "#EECC22"  # OsmAnd's default favourite colour
MARKER_COLOR = "#2979FF"
ROUTE_COLOR = "#E65100"
NEAR_DEG = 0.0005  # a point this close to a place takes its name
Place = dict[str, Any]  # name, subtitle, lat, lon


def fold(text: str) -> str:
    """Lower case without accents: "Schonberg" finds Schönberg, as OsmAnd's search does."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def parse_coords(text: str) -> tuple[float, float] | None:
    """A "lat, lon" pair typed into the search, if that is what it is."""
    numbers = re.findall(r"-?\d+(?:\.\d+)?", text)
    if len(numbers) != 2 or re.search(r"[A-Za-z]", text):
        return None
    lat, lon = float(numbers[0]), float(numbers[1])
    return (lat, lon) if abs(lat) <= 90 and abs(lon) <= 180 else None


def coords_text(lat: float, lon: float) -> str:
    return f"{lat:.5f}, {lon:.5f}"


def bottom_sheet(rid: str, spacing: int, children: list[View]) -> View:
    """A card over the map's bottom edge, as wide as the screen (the context menu, Plan a route)."""
    return Column(
        id=rid,
        align="bottom",
        width=600,  # as wide as the screen
        bg="surface",
        radius=16,
        pad=(16, 12, 16, 12),
        spacing=spacing,
        blocks=True,
        children=children,
    )


def search(query: str) -> list[Place]:
    """Places whose name (or "name, country") contains the query; a coordinate pair is itself a result."""
    q = fold(query.strip())
    if not q:
        return []
    coords = parse_coords(query)
    if coords is not None:
        return [{"name": coords_text(*coords), "subtitle": "Location", "lat": coords[0], "lon": coords[1]}]
    found = [
        {"name": name, "subtitle": COUNTRY, "lat": lat, "lon": lon}
        for name, (lat, lon) in PLACES.items()
        if q in fold(f"{name}, {COUNTRY}")
    ]
    # An exact name first, then the rest A to Z.
    return sorted(found, key=lambda p: (fold(p["name"]) != q.split(",")[0].strip(), p["name"]))


def place_at(lat: float, lon: float) -> Place:
    """The point as a place: a gazetteer name when it is on one, else its coordinates."""
    for name, (plat, plon) in PLACES.items():
        if abs(plat - lat) < NEAR_DEG and abs(plon - lon) < NEAR_DEG:
            return {"name": name, "subtitle": COUNTRY, "lat": plat, "lon": plon}
    return {"name": coords_text(lat, lon), "subtitle": "Location", "lat": lat, "lon": lon}


# ---- the drawn map
def mercator_y(lat: float) -> float:
    rad = math.radians(lat)
    return math.log(math.tan(math.pi / 4 + rad / 2))


def world_px(lat: float, lon: float, zoom: int) -> tuple[float, float]:
    """Web Mercator pixel coordinates of a point at a zoom level (TILE_PX-pixel tiles)."""
    size = TILE_PX * 2**zoom
    return (lon + 180) / 360 * size, (1 - mercator_y(lat) / math.pi) / 2 * size


def render_map(center: tuple[float, float], zoom: int, pins: list[tuple[float, float, str]]) -> Image.Image:
    """A map image centred on `center`: tile grid, places with names, pins (favourites, markers, route
    points, as lat, lon, colour) and the centre cross."""
    w, h = MAP_SIZE
    cx, cy = world_px(*center, zoom)
    left, top = cx - w / 2, cy - h / 2
    image = Image.new("RGB", MAP_SIZE, (242, 239, 233))
    draw = ImageDraw.Draw(image)
    first_x = math.floor(left / TILE_PX) * TILE_PX
    first_y = math.floor(top / TILE_PX) * TILE_PX
    for gx in range(int(first_x), int(left + w) + 1, TILE_PX):
        draw.line((gx - left, 0, gx - left, h), fill=(222, 216, 206), width=2)
    for gy in range(int(first_y), int(top + h) + 1, TILE_PX):
        draw.line((0, gy - top, w, gy - top), fill=(222, 216, 206), width=2)
    label = font(34, medium=True)
    for name, (lat, lon) in PLACES.items():
        px, py = world_px(lat, lon, zoom)
        x, y = px - left, py - top
        if -200 < x < w + 200 and -50 < y < h + 50:
            draw.ellipse(
                (x - 10, y - 10, x + 10, y + 10), fill=(96, 96, 96), outline=(255, 255, 255), width=3
            )
            draw.text(
                (x + 16, y - 20), name, font=label, fill=(60, 60, 60), stroke_width=3, stroke_fill="white"
            )
    for lat, lon, color in pins:
        px, py = world_px(lat, lon, zoom)
        x, y = px - left, py - top
        draw.ellipse((x - 18, y - 18, x + 18, y + 18), fill=color, outline=(255, 255, 255), width=4)
    mx, my = w / 2, h / 2
    draw.line((mx - 28, my, mx + 28, my), fill=(230, 81, 0), width=5)
    draw.line((mx, my - 28, mx, my + 28), fill=(230, 81, 0), width=5)
    return image


PIN_REACH = 20  # a pin's disc reaches 18 pixels from its point


def pins_in_view(
    center: tuple[float, float], zoom: int, pins: list[tuple[float, float, str]]
) -> list[tuple[float, float, str]]:
    """The pins whose disc reaches into the map image: the others draw nothing (a shell can add tens
    of thousands of favourites and markers, and drawing each took ~5 us a frame)."""
    w, h = MAP_SIZE
    cx, cy = world_px(*center, zoom)
    left, top = cx - w / 2, cy - h / 2
    shown = []
    for pin in pins:
        px, py = world_px(pin[0], pin[1], zoom)
        if -PIN_REACH < px - left < w + PIN_REACH and -PIN_REACH < py - top < h + PIN_REACH:
            shown.append(pin)
    return shown


def pan(center: tuple[float, float], zoom: int, dx_px: float, dy_px: float) -> tuple[float, float]:
    """The centre moved by a number of map pixels."""
    size = TILE_PX * 2**zoom
    cx, cy = world_px(*center, zoom)
    x, y = cx + dx_px, cy + dy_px
    lon = x / size * 360 - 180
    lat = math.degrees(2 * math.atan(math.exp((1 - 2 * y / size) * math.pi)) - math.pi / 2)
    return lat, lon


# ---- files
def gpx_root() -> ET.Element:
    root = ET.Element(f"{{{GPX_NS}}}gpx", {"version": "1.1", "creator": CREATOR})
    return root


def write_gpx(fs: Any, path: str, root: ET.Element) -> None:
    ET.register_namespace("", GPX_NS)
    ET.register_namespace("osmand", OSMAND_NS)
    ET.indent(root)
    data = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    fs.mkdir(path.rsplit("/", 1)[0], parents=True)
    fs.write_bytes(path, data)


def iso(ms: int) -> str:
    return instant(ms, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class OsmAnd(App):
    package = PKG
    label = "OsmAnd"
    main_activity = MAIN
    icon = "language"
    icon_color = "#FF8800"
    version_name = "4.6.13"

    def create_data(self) -> None:
        sql_script(self.db_file(MARKERS_DB), SCHEMA, SEED)  # no markers yet
        self.device.fs.mkdir(TRACKS, parents=True)
        self.device.fs.mkdir(FAVORITES.rsplit("/", 1)[0], parents=True)

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    # ---- data
    def favorites(self) -> list[Place]:
        """The favourites file's waypoints (read again only when the file changed: the map shows them
        on every frame); none if it is missing, does not parse or is over MAX_FAVORITES_BYTES."""
        try:  # a missing file, or a folder in its place, reads as none
            found = parsed_file(self.device.fs.host(FAVORITES), MAX_FAVORITES_BYTES, waypoints)
        except PathEscapeError:
            return []
        return list(found or [])

    def add_favorite(self, place: Place, name: str, description: str, now_ms: int) -> None:
        """Append a waypoint to favorites.gpx, keeping what is there (AndroidWorld rewrites it too)."""
        fs = self.device.fs
        root = gpx_root()
        if fs.is_file(FAVORITES):
            with contextlib.suppress(ET.ParseError, LookupError):
                root = ET.fromstring(fs.read_bytes(FAVORITES))
        wpt = ET.SubElement(
            root, f"{{{GPX_NS}}}wpt", {"lat": f"{place['lat']:.7f}", "lon": f"{place['lon']:.7f}"}
        )
        ET.SubElement(wpt, f"{{{GPX_NS}}}time").text = iso(now_ms)
        ET.SubElement(wpt, f"{{{GPX_NS}}}name").text = name
        if description:
            ET.SubElement(wpt, f"{{{GPX_NS}}}desc").text = description
        ext = ET.SubElement(wpt, f"{{{GPX_NS}}}extensions")
        for key, value in (("icon", "special_star"), ("background", "circle"), ("color", "#eecc22")):
            ET.SubElement(ext, f"{{{OSMAND_NS}}}{key}").text = value
        write_gpx(fs, FAVORITES, root)

    def markers(self) -> list[Place]:
        rows = sql(
            self.db_file(MARKERS_DB),
            "SELECT title, marker_lat, marker_lon FROM map_markers WHERE marker_active = 1"
            " ORDER BY marker_added DESC",
        )
        return [
            {"name": t or coords_text(a, o), "subtitle": coords_text(a, o), "lat": a, "lon": o}
            for t, a, o in rows
        ]

    def add_marker(self, place: Place, now_ms: int) -> None:
        """A new active marker, as MapMarkersDbHelper.insertLast adds one: its id the time and three
        random digits (a marker added twice is two markers), last in the active list (the previous
        last one's next key names it), its colour the one after the newest marker's."""
        db = self.db_file(MARKERS_DB)
        taken = {
            str(r[0])
            for r in sql(db, "SELECT marker_id FROM map_markers WHERE marker_id LIKE ?", (f"{now_ms}%",))
        }
        marker_id = new_marker_id(now_ms, taken)
        newest = sql(
            db,
            "SELECT marker_color FROM map_markers WHERE marker_active = 1 ORDER BY marker_added DESC LIMIT 1",
        )
        color = (get_int(newest[0][0]) + 1) % MARKER_COLORS if newest else 0
        sql(
            db, "UPDATE map_markers SET marker_next_key = ? WHERE marker_next_key = ?", (marker_id, TAIL_NEXT)
        )
        sql(
            db,
            "INSERT INTO map_markers (marker_id, marker_lat, marker_lon,"
            " marker_description, marker_active, marker_added, marker_visited, group_name, group_key,"
            " marker_color, marker_next_key, marker_disabled, marker_selected, marker_map_object_name, title)"
            " VALUES (?, ?, ?, ?, 1, ?, 0, '', '', ?, ?, 0, 0, '', ?)",
            (marker_id, place["lat"], place["lon"], place["name"], now_ms, color, TAIL_NEXT, place["name"]),
        )

    def tracks(self) -> list[str]:
        fs = self.device.fs
        try:
            return sorted(n for n in fs.listdir(TRACKS) if n.endswith(".gpx"))
        except (OSError, PathEscapeError):
            return []

    def save_track(self, name: str, points: list[Place]) -> str:
        root = gpx_root()
        ET.SubElement(ET.SubElement(root, f"{{{GPX_NS}}}metadata"), f"{{{GPX_NS}}}name").text = name
        trk = ET.SubElement(root, f"{{{GPX_NS}}}trk")
        ET.SubElement(trk, f"{{{GPX_NS}}}name").text = name
        seg = ET.SubElement(trk, f"{{{GPX_NS}}}trkseg")
        for p in points:
            ET.SubElement(seg, f"{{{GPX_NS}}}trkpt", {"lat": f"{p['lat']:.7f}", "lon": f"{p['lon']:.7f}"})
        path = f"{TRACKS}/{name}.gpx"
        write_gpx(self.device.fs, path, root)
        return path

    def map_picture(self, center: tuple[float, float], zoom: int, route: list[Place]) -> Picture:
        """The map view for this centre, zoom and pins. The map is drawn in memory when shown (not
        saved and read back as a PNG file: encoding one cost ~40 ms a pan), and its stamp names
        exactly what decides its pixels, so devices at the same view share the drawn copy."""
        pins = [(p["lat"], p["lon"], FAVORITE_COLOR) for p in self.favorites()]
        pins += [(p["lat"], p["lon"], MARKER_COLOR) for p in self.markers()]
        pins += [(p["lat"], p["lon"], ROUTE_COLOR) for p in route]
        pins = pins_in_view(center, zoom, pins)
        digest = hashlib.sha1(repr((center, zoom, pins)).encode()).hexdigest()[:16]
        return Picture(
            id="map_view",
            desc="Map",
            pixels=lambda: render_map(center, zoom, pins),
            stamp=f"osmand-map:{digest}",
            crop=True,
        )

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        st = ctx.state
        st.setdefault("center", list(HOME))
        st.setdefault("zoom", ZOOM)
        mode = st.get("mode", "map")
        if mode == "search":
            return self.search_screen(ctx)
        if mode in ("places", "markers"):
            return self.list_screen(ctx, mode)
        return self.map_screen(ctx)

    def go(self, ctx: ScreenContext, mode: str) -> Callable[[], None]:
        def switch() -> None:
            ctx.state.update(mode=mode, menu=False)
            if mode == "search":  # a new search starts empty, the keyboard up
                ctx.set_fields({"query": ""})
                ctx.focus("query")
            else:
                ctx.focus(None)

        return switch

    def show(self, ctx: ScreenContext, place: Place) -> None:
        """Centre the map on a place and open its card (unless a route is being planned)."""
        ctx.state.update(center=[place["lat"], place["lon"]], mode="map", menu=False)
        ctx.focus(None)
        if ctx.state.get("plan") is None:
            ctx.state["card"] = place

    def map_screen(self, ctx: ScreenContext) -> View:
        st = ctx.state
        center = (float(st["center"][0]), float(st["center"][1]))
        zoom = int(st["zoom"])
        map_view = self.map_picture(center, zoom, st.get("plan") or [])

        def zoom_by(step: int) -> Callable[[], None]:
            return lambda: st.update(zoom=max(8, min(17, zoom + step)))

        def swiped(direction: str) -> None:
            dx, dy = {"left": (300, 0), "right": (-300, 0), "up": (0, 500), "down": (0, -500)}[direction]
            st["center"] = list(pan(center, zoom, dx, dy))
            st.pop("card", None)

        ctx.on_swipe(swiped)  # not while the drawer or a dialog is open: their scrim takes gestures
        layers: list[View] = [
            map_view,
            Row(
                align="top_start",
                spacing=8,
                children=[
                    IconButton(
                        id="map_menu_button",
                        name="menu",
                        desc="Menu",
                        on_click=lambda: st.update(menu=True),
                        bg="surface",
                        radius=24,
                        tint="on_surface",
                    ),
                    IconButton(
                        id="map_search_button",
                        name="search",
                        desc="Search",
                        on_click=self.go(ctx, "search"),
                        bg="surface",
                        radius=24,
                        tint="on_surface",
                    ),
                ],
            ),
            Column(
                align="center_end",
                spacing=8,
                children=[
                    IconButton(
                        id="map_zoom_in_button",
                        name="add",
                        desc="Zoom in",
                        on_click=zoom_by(1),
                        bg="surface",
                        radius=24,
                        tint="on_surface",
                    ),
                    Button(
                        id="map_zoom_out_button",
                        text="−",
                        desc="Zoom out",
                        on_click=zoom_by(-1),
                        style="tonal",
                        width=48,
                        height=48,
                        radius=24,
                    ),
                ],
            ),
        ]
        if st.get("plan") is not None:
            layers.append(self.plan_panel(ctx, center))
        elif st.get("card"):
            layers.append(self.card(ctx, st["card"]))
        else:
            layers.append(
                Text(
                    id="map_center_coordinates",
                    text=coords_text(*center),
                    size=14,
                    align="bottom",
                    bg="surface",
                    pad=(12, 6, 12, 6),
                    radius=12,
                )
            )
        if st.get("menu"):
            ctx.on_back(lambda: st.update(menu=False))
            layers.append(self.menu(ctx))
        elif st.get("dialog"):
            layers.append(self.dialog(ctx, center))
        elif st.get("card"):
            ctx.on_back(lambda: st.pop("card", None))
        return Stack(bg="surface", children=layers)

    def card(self, ctx: ScreenContext, place: Place) -> View:
        """The context menu of a place: its name, where it is, and what can be done with it."""

        def favorite() -> None:
            ctx.state["dialog"] = "favorite"
            ctx.set_fields({"name": place["name"], "description": ""})
            ctx.focus("name")

        def marker() -> None:
            self.add_marker(place, ctx.now_ms())
            ctx.toast(f"Marker added: {place['name']}")

        def action(rid: str, label: str, icon: str, fn: Callable[[], None]) -> View:
            return Column(
                id=rid,
                on_click=fn,
                weight=1,
                center=True,
                pad=(0, 8, 0, 8),
                children=[
                    IconButton(name=icon, desc=label, tint="primary", width=48, height=32),
                    Text(text=label, size=14, gravity="center", color="primary"),
                ],
            )

        return bottom_sheet(
            "context_menu_main",
            4,
            [
                Row(
                    children=[
                        Text(id="context_menu_line1", text=place["name"], size=22, medium=True, weight=1),
                        IconButton(
                            id="context_menu_close",
                            name="close",
                            desc="Close",
                            on_click=lambda: ctx.state.pop("card", None),
                        ),
                    ]
                ),
                Text(id="context_menu_line2", text=place["subtitle"], size=14, color="on_surface_variant"),
                Text(
                    id="context_menu_coordinates",
                    text=coords_text(place["lat"], place["lon"]),
                    size=14,
                    color="on_surface_variant",
                ),
                Row(
                    spacing=8,
                    children=[
                        action("context_menu_fav_button", "Favorite", "star_outline", favorite),
                        action("context_menu_marker_button", "Marker", "label", marker),
                    ],
                ),
            ],
        )

    def dialog(self, ctx: ScreenContext, center: tuple[float, float]) -> View:
        kind = ctx.state["dialog"]

        def close() -> None:
            ctx.state.pop("dialog", None)
            ctx.focus(None)

        ctx.on_back(close)
        if kind == "favorite":
            place: Place = ctx.state["card"]

            def save() -> None:
                name = ctx.field("name").strip()
                if not name:
                    ctx.toast("Please enter a name")
                    return
                self.add_favorite(place, name, ctx.field("description").strip(), ctx.now_ms())
                ctx.toast(f"Added to favorites: {name}")
                close()

            body: list[View] = [
                EditText(id="name_edit", key="name", hint="Name", text=ctx.field("name")),
                EditText(
                    id="description_edit",
                    key="description",
                    hint="Description",
                    text=ctx.field("description"),
                ),
                Text(id="group_name", text="Group: Favorites", size=14, color="on_surface_variant"),
            ]
            return dialog("Add favorite", body, [("Cancel", close), ("Save", save)], close)

        points: list[Place] = ctx.state.get("plan") or []

        def save_track() -> None:
            name = ctx.field("track").strip()
            if not name or "/" in name:
                ctx.toast("Please enter a valid file name")
                return
            self.save_track(name, points)
            ctx.toast(f"Track saved: {name}.gpx")
            ctx.state.pop("plan", None)
            close()

        body = [EditText(id="file_name_edit", key="track", hint="File name", text=ctx.field("track"))]
        return dialog("Save as new track", body, [("Cancel", close), ("Save", save_track)], close)

    def plan_panel(self, ctx: ScreenContext, center: tuple[float, float]) -> View:
        """Plan a route: the points so far, and Add point (the map centre), Undo, Save, Cancel."""
        points: list[Place] = ctx.state["plan"]

        def add() -> None:
            points.append(place_at(*center))

        def undo() -> None:
            if points:
                points.pop()

        def save() -> None:
            if len(points) < 2:
                ctx.toast("Add at least two points")
                return
            stamp = ctx.local_now()
            ctx.state["dialog"] = "track"
            ctx.set_fields({"track": stamp.strftime("%Y-%m-%d_%H-%M_%a")})
            ctx.focus("track")

        def cancel() -> None:
            ctx.state.pop("plan", None)

        ctx.on_back(cancel)
        rows: list[View] = [
            Text(id="plan_point", text=f"{i + 1}. {p['name']}", size=14) for i, p in enumerate(points)
        ]
        return bottom_sheet(
            "plan_route_panel",
            6,
            [
                Text(text="Plan a route", size=20, medium=True),
                Text(
                    id="plan_center",
                    text=f"Map centre: {place_at(*center)['name']}",
                    size=14,
                    color="on_surface_variant",
                ),
                Text(
                    id="plan_points_count", text=f"Points: {len(points)}", size=14, color="on_surface_variant"
                ),
                *rows,
                Row(
                    spacing=8,
                    children=[
                        Button(id="add_point_button", text="Add point", on_click=add),
                        Button(id="undo_button", text="Undo", style="text", on_click=undo),
                        Button(id="save_button", text="Save", style="text", on_click=save),
                        Button(id="cancel_button", text="Cancel", style="text", on_click=cancel),
                    ],
                ),
            ],
        )

    def menu(self, ctx: ScreenContext) -> View:
        st = ctx.state

        def plan() -> None:
            st.update(plan=[], menu=False, mode="map")
            st.pop("card", None)

        items: list[View] = [
            list_item("My places", icon="star", on_click=self.go(ctx, "places"), id="menu_my_places"),
            list_item("Map markers", icon="label", on_click=self.go(ctx, "markers"), id="menu_map_markers"),
            list_item("Plan a route", icon="edit", on_click=plan, id="menu_plan_route"),
            list_item("Search", icon="search", on_click=self.go(ctx, "search"), id="menu_search"),
        ]
        drawer = Column(
            id="drawer",
            bg="surface",
            width=300,
            height=900,  # the drawer runs the height of the screen
            blocks=True,
            children=[Text(text="OsmAnd", size=22, medium=True, pad=(16, 24, 16, 16)), *items],
        )
        # DrawerLayout: the map dims behind the drawer, and a tap or swipe beside it closes it.
        return Scrim(on_click=lambda: st.update(menu=False), children=[drawer])

    def search_screen(self, ctx: ScreenContext) -> View:
        query = ctx.field("query")
        back = self.go(ctx, "map")
        ctx.on_back(back)

        def pick(place: Place) -> Callable[[], None]:
            return lambda: self.show(ctx, place)

        results = search(query)
        rows: list[View] = [
            list_item(
                p["name"],
                p["subtitle"],
                icon="search",
                on_click=pick(p),
                id="search_result",
                title_id="title",
                subtitle_id="subtitle",
            )
            for p in results
        ]
        if query.strip() and not rows:
            rows = [empty_state("search", "Nothing found")]
        bar = Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 8, 0),
            children=[
                IconButton(name="arrow_back", desc="Navigate up", on_click=back, tint="on_surface"),
                EditText(
                    id="searchEditText", key="query", hint="Search", style="search", text=query, weight=1
                ),
            ],
        )
        return Column(
            bg="surface", children=[bar, Scroll(id="search_results", key="results", weight=1, children=rows)]
        )

    def list_screen(self, ctx: ScreenContext, mode: str) -> View:
        back = self.go(ctx, "map")
        ctx.on_back(back)

        def pick(place: Place) -> Callable[[], None]:
            return lambda: self.show(ctx, place_at(place["lat"], place["lon"]) | {"name": place["name"]})

        if mode == "markers":
            markers = [
                partial(list_item, p["name"], p["subtitle"], icon="label", on_click=pick(p), id="marker_item")
                for p in self.markers()
            ]
            return Column(
                bg="surface",
                children=[
                    app_bar("Map markers", back=back),
                    Scroll(
                        key="markers",
                        weight=1,
                        rows=Rows.of(markers),
                        empty=empty_state("label", "No map markers"),
                    ),
                ],
            )
        favorites: list[Callable[[], View]] = [
            partial(
                list_item,
                p["name"],
                coords_text(p["lat"], p["lon"]),
                icon="star",
                on_click=pick(p),
                id="favorite_item",
            )
            for p in self.favorites()
        ]
        tracks: list[Callable[[], View]] = [
            partial(list_item, n.removesuffix(".gpx"), "Track", icon="history", id="track_item")
            for n in self.tracks()
        ]
        body: list[Callable[[], View]] = [
            partial(Text, text="Favorites", size=14, medium=True, color="primary", pad=(16, 12, 16, 4)),
            *(favorites or [partial(Text, text="No favorites", size=14, pad=(16, 4, 16, 4))]),
            partial(Text, text="Tracks", size=14, medium=True, color="primary", pad=(16, 12, 16, 4)),
            *(tracks or [partial(Text, text="No tracks", size=14, pad=(16, 4, 16, 4))]),
        ]
        return Column(
            bg="surface",
            children=[app_bar("My places", back=back), Scroll(key="places", weight=1, rows=Rows.of(body))],
        )


def new_marker_id(now_ms: int, taken: set[str]) -> str:
    """The time and three random digits, as OsmAnd makes a marker's id; one not taken (the sim's clock
    can stand still while markers are added), past 999 once all 900 are."""
    for n in random.sample(range(100, 1000), 900):
        if f"{now_ms}{n}" not in taken:
            return f"{now_ms}{n}"
    n = 1000
    while f"{now_ms}{n}" in taken:
        n += 1
    return f"{now_ms}{n}"


def waypoints(data: bytes) -> list[Place]:
    """A GPX file's waypoints as places; none if it does not parse."""
    try:
        root = ET.fromstring(data)
    except (ET.ParseError, LookupError):  # LookupError: a file naming an encoding that does not exist
        return []
    found = []
    for wpt in root.iter(f"{{{GPX_NS}}}wpt"):
        try:
            at = latlon(wpt)
        except ValueError:
            continue  # a point with no number for a coordinate is not read
        if not all(math.isfinite(v) for v in at.values()):
            continue
        name = wpt.findtext(f"{{{GPX_NS}}}name") or ""
        found.append({"name": name, "subtitle": wpt.findtext(f"{{{GPX_NS}}}desc") or "", **at})
    return found


def latlon(el: ET.Element) -> dict[str, float]:
    return {"lat": float(el.attrib.get("lat", 0)), "lon": float(el.attrib.get("lon", 0))}
