"""OpenTracks (de.dennisguse.opentracks): recorded tracks in its SQLite database `databases/database.db`.

The `tracks` table has the real app's columns (TracksColumns: `category` holds the localized activity
type, `activity_type` its id, times in ms since the epoch, distance in meters). The track list shows
the newest track first, each row as the app's track_list_item: name, the start date relative to today
(Today, Yesterday, the weekday within a week, else "8 Oct"), the start time, "total time (distance)"
and "[category] description". A tap opens the track's statistics. Distances, speeds and elevations
are in the unit system of the app's `statsUnits` preference (DistanceFormatter, SpeedFormatter):
METRIC by default, as on AndroidWorld's device (km with two decimals above half a km, else m with
two), IMPERIAL (mi, else ft), IMPERIAL_METER (mi, else m) or NAUTICAL (NM, else ft).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.system.clock import local_ms
from mgfarm.sim.ui.views import Column, Icon, Row, Rows, Scroll, Text, View
from mgfarm.sim.ui.widgets import app_bar, empty_state

PKG = "de.dennisguse.opentracks"
MAIN = f"{PKG}.TrackListActivity"
DETAIL = f"{PKG}.TrackRecordedActivity"
DB = "database.db"
# TracksColumns, TrackPointsColumns and MarkerColumns: CREATE_TABLE and CREATE_TABLE_INDEX of each.
SCHEMA = """
CREATE TABLE IF NOT EXISTS tracks (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT,
  category TEXT, starttime INTEGER, stoptime INTEGER, numpoints INTEGER, totaldistance FLOAT,
  totaltime INTEGER, movingtime INTEGER, avgspeed FLOAT, avgmovingspeed FLOAT, maxspeed FLOAT,
  minelevation FLOAT, maxelevation FLOAT, elevationgain FLOAT, icon TEXT, uuid BLOB, elevationloss FLOAT,
  starttime_offset INTEGER, activity_type TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS tracks_uuid_index ON tracks(uuid);
CREATE TABLE IF NOT EXISTS trackpoints (_id INTEGER PRIMARY KEY AUTOINCREMENT, trackid INTEGER NOT NULL,
  longitude INTEGER, latitude INTEGER, time INTEGER, elevation FLOAT, accuracy FLOAT, speed FLOAT,
  bearing FLOAT, sensor_heartrate FLOAT, sensor_cadence FLOAT, sensor_power FLOAT, elevation_gain FLOAT,
  elevation_loss FLOAT, type TEXT CHECK(type IN (-2, -1, 0, 1, 2)), sensor_distance FLOAT,
  accuracy_vertical FLOAT,
  FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS trackpoints_trackid_index ON trackpoints(trackid);
CREATE TABLE IF NOT EXISTS markers (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT,
  category TEXT, icon TEXT, trackid INTEGER NOT NULL, length FLOAT, duration INTEGER, longitude INTEGER,
  latitude INTEGER, time INTEGER, elevation FLOAT, accuracy FLOAT, bearing FLOAT, photoUrl TEXT,
  FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS markers_trackid_index ON markers(trackid);
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
"""
SEED = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
COLUMNS = (
    "_id",
    "name",
    "description",
    "category",
    "starttime",
    "totaldistance",
    "totaltime",
    "movingtime",
    "maxspeed",
    "elevationgain",
    "elevationloss",
)
# TracksColumns.MARKER_COUNT, the virtual column the app's track query adds.
MARKER_COUNT = "(SELECT count(*) FROM markers WHERE markers.trackid = tracks._id) AS markerCount"
UNITS_KEY = "statsUnits"  # R.string.stats_units_key


@dataclass(frozen=True)
class UnitSystem:
    """One of the app's UnitSystem values: a long and a short distance unit and a speed unit, each
    with its size in meters (speeds: in meters a second)."""

    long: tuple[str, float]
    short: tuple[str, float]
    speed: tuple[str, float]


MILE, FOOT, NAUTICAL_MILE = 1609.344, 1609.344 / 5280, 1852.0
UNIT_SYSTEMS = {
    "METRIC": UnitSystem(("km", 1000.0), ("m", 1.0), ("km/h", 1000 / 3600)),
    "IMPERIAL": UnitSystem(("mi", MILE), ("ft", FOOT), ("mph", MILE / 3600)),
    "IMPERIAL_METER": UnitSystem(("mi", MILE), ("m", 1.0), ("mph", MILE / 3600)),
    "NAUTICAL": UnitSystem(("NM", NAUTICAL_MILE), ("ft", FOOT), ("kn", NAUTICAL_MILE / 3600)),
}
METRIC = UNIT_SYSTEMS["METRIC"]


def format_elapsed(ms: int) -> str:
    """DateUtils.formatElapsedTime: "MM:SS" under an hour, else "H:MM:SS"."""
    seconds = int(ms // 1000)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def format_distance(
    meters: float, units: UnitSystem = METRIC, decimals: int = 2, threshold: float = 0.5
) -> str:
    """DistanceFormatter: the long unit above `threshold` of it, else the short one; en_US digits
    (thousands grouped)."""
    name, size = units.long if meters > threshold * units.long[1] else units.short
    return f"{meters / size:,.{decimals}f} {name}"


def format_elevation(meters: float, units: UnitSystem = METRIC) -> str:
    """StringUtils.getAltitudeParts: the short unit, no decimals."""
    return format_distance(meters, units, decimals=0, threshold=float("inf"))


def time_distance(ms: int, meters: float, markers: int = 0, units: UnitSystem = METRIC) -> str:
    """ListItemUtils.getTimeDistanceText: "total time (distance)", a dot after it when there are markers."""
    text = f"{format_elapsed(ms)} ({format_distance(meters, units)})"
    return text + "  ‧" if markers > 0 else text


def average_speed(track: dict[str, Any]) -> float:
    """Meters per second over the total time: the app recomputes a stored speed that does not fit."""
    ms = int(track["totaltime"] or 0)
    return float(track["totaldistance"] or 0) / (ms / 1000) if ms > 0 else 0.0


def format_speed(mps: float, units: UnitSystem = METRIC) -> str:
    """SpeedFormatter, reporting speed: one decimal."""
    name, size = units.speed
    return f"{mps / size:,.1f} {name}"


def relative_date(day: date, today: date) -> str:
    """StringUtils.formatDateTodayRelative: Today, Yesterday, the weekday within a week, else a short date."""
    days = (today - day).days
    if days == 0:
        return "Today"
    if days == 1:
        return "Yesterday"
    if days < 7:
        return day.strftime("%A")
    if day.year == today.year:
        return f"{day.day} {day.strftime('%b')}"
    return f"{day.day} {day.strftime('%b %Y')}"


def category_description(category: str, description: str) -> str:
    """StringUtils.getCategoryDescription: "[category] description"."""
    if not category:
        return description
    return f"[{category}] {description}".rstrip()


class OpenTracks(App):
    package = PKG
    label = "OpenTracks"
    main_activity = MAIN
    icon = "history"
    icon_color = "#1565C0"
    version_name = "v4.11.3"  # AndroidWorld installs de.dennisguse.opentracks_5705.apk

    def create_data(self) -> None:
        sql_script(self.db_file(DB), SCHEMA, SEED)  # the app starts with no tracks

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, DETAIL: self.detail}

    # ---- data
    def tracks(self, where: str = "1", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        rows = sql(
            self.db_file(DB),
            f"SELECT {', '.join(COLUMNS)}, {MARKER_COUNT} FROM tracks WHERE {where}"
            " ORDER BY starttime DESC, _id DESC",
            args,
        )
        keys = (*COLUMNS, "markerCount")
        return [{k: ("" if v is None else v) for k, v in zip(keys, r, strict=True)} for r in rows]

    def units(self) -> UnitSystem:
        """PreferencesUtils.getUnitSystem: the preference's value, METRIC when unset or unknown."""
        return UNIT_SYSTEMS.get(str(self.preferences().get(UNITS_KEY, "METRIC")), METRIC)

    def started(self, track: dict[str, Any]) -> datetime:
        return local_ms(self.device.props, track["starttime"])

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        today = ctx.today()
        units = self.units()

        def open_track(tid: int) -> Callable[[], None]:
            return lambda: ctx.start(DETAIL, {"track_id": tid})

        rows = [partial(self.list_row, t, today, units, open_track(int(t["_id"]))) for t in self.tracks()]
        return Column(
            bg="surface",
            children=[
                app_bar("OpenTracks"),
                Scroll(
                    id="track_list",
                    key="tracks",
                    weight=1,
                    rows=Rows.of(rows),
                    empty=empty_state("history", "No tracks yet"),
                ),
            ],
        )

    def list_row(
        self, t: dict[str, Any], today: date, units: UnitSystem, on_click: Callable[[], None]
    ) -> View:
        start = self.started(t)
        small = "on_surface_variant"
        count = int(t["markerCount"])
        markers: list[View] = (
            [Text(id="track_list_item_marker_count", text=str(count), size=12, color=small, pad=(0, 0, 8, 0))]
            if count
            else []
        )
        lines: list[View] = [
            Row(
                children=[
                    Text(id="track_list_item_name", text=str(t["name"]), size=16, weight=1),
                    Text(
                        id="track_list_item_date",
                        text=relative_date(start.date(), today),
                        size=12,
                        color=small,
                    ),
                ]
            ),
            Row(
                children=[
                    Text(
                        id="track_list_item_time_distance",
                        text=time_distance(
                            int(t["totaltime"] or 0), float(t["totaldistance"] or 0), count, units
                        ),
                        size=12,
                        color=small,
                        weight=1,
                    ),
                    *markers,
                    Text(id="track_list_item_time", text=start.strftime("%H:%M"), size=12, color=small),
                ]
            ),
        ]
        text = category_description(str(t["category"]), str(t["description"]))
        if text:
            lines.append(
                Text(id="track_list_item_category_description", text=text, size=12, lines=2, color=small)
            )
        return Row(
            pad=(8, 8, 8, 8),
            spacing=8,
            on_click=on_click,
            children=[
                Icon(id="track_list_item_icon", name="history", size=24, desc="Track", tint="primary"),
                Column(weight=1, spacing=2, children=lines),
            ],
        )

    def detail(self, ctx: ScreenContext) -> View:
        """StatisticsRecordedFragment (statistics_recorded.xml): name, description and start, then
        distance beside the moving and total times, the speeds (paces for the activity types that
        prefer them), and the elevation gain and loss when the track has them."""
        tid = int(ctx.extras.get("track_id", 0))
        found = self.tracks("_id = ?", (tid,))
        if not found:
            return Column(
                bg="surface", children=[app_bar("", back=ctx.finish), empty_state("history", "Not found")]
            )
        t = found[0]
        units = self.units()
        meters = float(t["totaldistance"] or 0)
        total_ms, moving_ms = int(t["totaltime"] or 0), int(t["movingtime"] or 0)
        moving = meters / (moving_ms / 1000) if moving_ms > 0 else 0.0
        by_speed = str(t["category"]) not in PACE_PREFERRED
        max_label, moving_label, average_label = (
            ("Max speed", "Avg moving speed", "Avg speed")
            if by_speed
            else ("Fastest pace", "Avg moving pace", "Avg pace")
        )
        top: list[View] = [
            Row(
                valign="top",
                children=[
                    Icon(id="stats_activity_type_icon", name="history", size=48, tint="primary"),
                    Column(
                        weight=1,
                        pad=(16, 0, 0, 0),
                        children=[
                            Text(id="stats_name_value", text=str(t["name"]), size=20, medium=True, lines=3),
                            *(
                                [
                                    Text(
                                        id="stats_description_value",
                                        text=str(t["description"]),
                                        size=16,
                                        lines=6,
                                    )
                                ]
                                if t["description"]
                                else []
                            ),
                        ],
                    ),
                ],
            ),
            Text(
                id="stats_start_datetime_value",
                text=medium_datetime(self.started(t)),
                size=14,
                gravity="right",
                pad=(0, 16, 0, 0),
            ),
        ]
        body: list[View] = [
            Column(pad=(8, 16, 8, 0), children=top),
            line("stats_information_horizontal_line"),
            pair(
                [stat("distance", "Distance", *parts(format_distance(meters, units)))],
                [
                    stat("moving_time", "Moving time", format_elapsed(moving_ms)),
                    stat("total_time", "Total time", format_elapsed(total_ms), primary=False),
                ],
            ),
            line("stats_speed_horizontal_line"),
            pair(
                [stat("max_speed", max_label, *rate(float(t["maxspeed"] or 0), units, by_speed))],
                [
                    stat("moving_speed", moving_label, *rate(moving, units, by_speed)),
                    stat(
                        "average_speed",
                        average_label,
                        *rate(average_speed(t), units, by_speed),
                        primary=False,
                    ),
                ],
            ),
        ]
        if t["elevationgain"] != "" and t["elevationloss"] != "":
            body += [
                line("stats_altitude_horizontal_line"),
                pair(
                    [
                        stat(
                            "altitude_gain",
                            "Gain",
                            *parts(format_elevation(float(t["elevationgain"]), units)),
                        )
                    ],
                    [
                        stat(
                            "altitude_loss",
                            "Loss",
                            *parts(format_elevation(float(t["elevationloss"]), units)),
                        )
                    ],
                ),
            ]
        body.append(line("stats_end_horizontal_line"))
        return Column(
            bg="surface",
            children=[app_bar(str(t["name"]), back=ctx.finish), Scroll(key="stats", weight=1, children=body)],
        )


# ActivityType entries with showSpeedPreferred false, by their localized (English) names: their
# statistics show paces ("min/km") instead of speeds (the `statsRate` preference's default).
PACE_PREFERRED = frozenset(
    {
        "climbing",
        "hiking",
        "running",
        "speed walking",
        "street running",
        "trail hiking",
        "trail running",
        "walking",
        "swimming",
        "swimming in open water",
        "workout",
    }
)


def parts(text: str) -> tuple[str, str]:
    """A formatted "value unit" as the statistics show it: value and unit in views of their own."""
    value, _, unit = text.rpartition(" ")
    return value, unit


def rate(mps: float, units: UnitSystem, by_speed: bool) -> tuple[str, str]:
    """SpeedFormatter.getSpeedParts: a speed with one decimal, or a pace as m:ss a long unit."""
    if by_speed:
        return parts(format_speed(mps, units))
    seconds = round(units.long[1] / mps) if mps > 0 else 0
    return f"{seconds // 60}:{seconds % 60:02d}", f"min/{units.long[0]}"


def medium_datetime(moment: datetime) -> str:
    """FormatStyle.MEDIUM in en_US: "Oct 8, 2023, 9:00:00 AM"."""
    hour = moment.hour % 12 or 12
    return (
        f"{moment:%b} {moment.day}, {moment.year}, {hour}:{moment:%M:%S} {'AM' if moment.hour < 12 else 'PM'}"
    )


def stat(key: str, label: str, value: str, unit: str = "", primary: bool = True) -> View:
    """One statistic: its header (primary: bold, coloured), its value, and its unit when it has one."""
    shown: list[View] = [Text(id=f"stats_{key}_value", text=value, size=36, medium=True)]
    if unit:
        shown.append(Text(id=f"stats_{key}_unit", text=unit, size=12, pad=(4, 0, 0, 0)))
    header = (
        Text(id=f"stats_{key}_label", text=label, size=14, medium=True, color="primary")
        if primary
        else Text(id=f"stats_{key}_label", text=label, size=11, color="on_surface_variant")
    )
    return Column(pad=(0, 8, 0, 0), children=[header, Row(valign="bottom", pad=(0, 8, 0, 8), children=shown)])


def pair(left: list[View], right: list[View]) -> View:
    """The two halves of the statistics grid, each a column of statistics from the top."""
    return Row(
        valign="top",
        pad=(8, 0, 8, 0),
        children=[Column(weight=1, children=left), Column(weight=1, children=right)],
    )


def line(key: str) -> View:
    """The statistics' HorizontalLine: 1 dp, 8 dp of margin round it."""
    return Column(pad=(8, 8, 8, 8), children=[View(id=key, height=1, bg="outline_variant")])
