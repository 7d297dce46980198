"""OsmAnd (net.osmand): favourites and tracks are GPX files in shared storage (the judge reads them
as files); map markers are rows of its `map_markers_db` (MapMarkersDbHelper's `map_markers`, one row
a marker, keyed by `marker_id`), the database AndroidWorld's OsmAndMarker task reads."""

from __future__ import annotations

from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "osmand",
        "/data/data/net.osmand/databases/map_markers_db",
        app="osmand",
        main="map_markers",
        key="marker_id",
        edit="title = title || ' 2'",
        extra=(
            "INSERT INTO map_markers (marker_id, marker_lat, marker_lon, marker_description, marker_active,"
            " marker_added, marker_visited, group_name, group_key, marker_color, marker_next_key,"
            " marker_disabled, marker_selected, marker_map_object_name, title) VALUES ('47.2,9.55', 47.2,"
            " 9.55, 'Ghost', 1, 1772600000000, 0, '', '', 0, '', 0, 0, '', 'Ghost')"
        ),
    ),
)
# Adding a marker links the last active one to it (MapMarkersDbHelper keeps the list's order there).
INCIDENTAL = ("osmand.map_markers:marker_next_key",)
