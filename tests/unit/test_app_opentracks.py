"""OpenTracks keeps tracks in the real app's `tracks` table and lists them as the app does: newest first,
the date relative to today, "total time (distance)" in the units of its `statsUnits` preference
(metric unless set), the marker count and "[category] description"."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from mgfarm.sim.apps.base import sql
from mgfarm.sim.apps.opentracks import (
    UNIT_SYSTEMS,
    format_distance,
    format_elapsed,
    format_elevation,
    format_speed,
    relative_date,
)
from mgfarm.sim.system.prefs import write_prefs
from tests.unit.sim_screen import Screen, boot_device, nodes

PKG = "de.dennisguse.opentracks"
DB = f"/data/data/{PKG}/databases/database.db"
ID = PKG + ":id/"
NOW = datetime(2023, 10, 15, 15, 34, tzinfo=timezone.utc)
ADD = (
    "INSERT INTO tracks (name, description, category, activity_type, starttime, stoptime, totaldistance,"
    " totaltime, movingtime, uuid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, randomblob(16))"
)


def ms(day: int, hour: int) -> int:
    return int(datetime(2023, 10, day, hour, tzinfo=timezone.utc).timestamp() * 1000)


def test_formats_follow_the_app() -> None:
    assert format_elapsed(45 * 60_000) == "45:00"
    assert format_elapsed(135 * 60_000) == "2:15:00"
    # DistanceFormatter: two decimals, the long unit above half of it; grouped thousands.
    assert [format_distance(m) for m in (1979, 500, 370, 1_234_567)] == [
        "1.98 km",
        "500.00 m",
        "370.00 m",
        "1,234.57 km",
    ]
    imperial, nautical = UNIT_SYSTEMS["IMPERIAL"], UNIT_SYSTEMS["NAUTICAL"]
    assert [format_distance(m, imperial) for m in (1979, 370)] == ["1.23 mi", "1,213.91 ft"]
    assert format_distance(370, UNIT_SYSTEMS["IMPERIAL_METER"]) == "370.00 m"
    assert format_distance(1979, nautical) == "1.07 NM"
    # SpeedFormatter: one decimal; altitudes in the short unit, no decimals.
    assert [format_speed(5.5), format_speed(5.5, imperial), format_speed(5.5, nautical)] == [
        "19.8 km/h",
        "12.3 mph",
        "10.7 kn",
    ]
    assert [format_elevation(1234.4), format_elevation(40, imperial)] == ["1,234 m", "131 ft"]
    today = NOW.date()
    labels = [relative_date(datetime(2023, 10, d).date(), today) for d in (15, 14, 9, 8)]
    assert labels == ["Today", "Yesterday", "Monday", "8 Oct"]


def test_track_list_shows_each_track_newest_first_with_its_marker_count(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    device.services.clock.freeze(True)
    device.services.clock.set_ms(int(NOW.timestamp() * 1000))
    db = device.fs.host(DB, "/")
    sql(db, ADD, ("Morning Run", "", "running", "running", ms(14, 7), ms(14, 8), 1979.0, 45 * 60_000, 0))
    sql(
        db,
        ADD,
        ("Lake Kayaking", "calm", "kayaking", "kayaking", ms(8, 9), ms(8, 11), 370.0, 135 * 60_000, 0),
    )
    sql(db, "INSERT INTO markers (name, trackid, time) VALUES ('Summit', 1, ?)", (ms(14, 7),))
    screen = Screen(device)
    screen.am.launch(PKG)
    rows = [
        n.attrs["text"]
        for n in nodes(screen.xml())
        if n.attrs["resource-id"].removeprefix(ID).startswith("track_list_item_") and n.attrs["text"]
    ]
    assert rows == [
        *("Morning Run", "Yesterday", "45:00 (1.98 km)  ‧", "1", "07:00", "[running]"),
        *("Lake Kayaking", "8 Oct", "2:15:00 (370.00 m)", "09:00", "[kayaking] calm"),
    ]
    # The unit setting lives in the app's default SharedPreferences, read at every screen.
    write_prefs(
        device.fs.host(f"/data/data/{PKG}/shared_prefs/{PKG}_preferences.xml", "/"),
        {"statsUnits": "IMPERIAL"},
    )
    screen.wm.key(4)
    screen.am.launch(PKG)
    shown = [
        n.attrs["text"]
        for n in nodes(screen.xml())
        if n.attrs["resource-id"] == ID + "track_list_item_time_distance"
    ]
    assert shown == ["45:00 (1.23 mi)  ‧", "2:15:00 (1,213.91 ft)"]
    # Its statistics: value and unit apart, speeds for kayaking, paces for running (ActivityType).
    screen.tap(text="Lake Kayaking")
    assert stats(screen) == {
        "name": "Lake Kayaking",
        "description": "calm",
        "start_datetime": "Oct 8, 2023, 9:00:00 AM",
        "distance": "Distance 1,213.91 ft",
        "moving_time": "Moving time 00:00",
        "total_time": "Total time 2:15:00",
        "max_speed": "Max speed 0.0 mph",
        "moving_speed": "Avg moving speed 0.0 mph",
        "average_speed": "Avg speed 0.1 mph",
    }
    screen.wm.key(4)
    screen.tap(text="Morning Run")
    paces = stats(screen)
    assert (paces["max_speed"], paces["average_speed"]) == (
        "Fastest pace 0:00 min/mi",
        "Avg pace 36:36 min/mi",
    )


def stats(screen: Screen) -> dict[str, str]:
    """The statistics screen's values by name, as label, value and unit read together."""
    found: dict[str, list[str]] = {}
    for n in nodes(screen.xml()):
        m = re.fullmatch(ID + r"stats_(\w+?)(_label|_value|_unit)", n.attrs["resource-id"])
        if m and n.attrs["text"]:
            found.setdefault(m.group(1), []).append(n.attrs["text"])
    return {key: " ".join(texts) for key, texts in found.items()}
