"""OpenTracks (de.dennisguse.opentracks): recorded tracks in `database.db` (distance in meters, times in
epoch ms; `category` is the activity type the user sees)."""

from __future__ import annotations

from mgfarm.tasks.state import DatabaseDecl, PrefsDecl

DATABASES = (
    DatabaseDecl(
        "opentracks",
        "/data/data/de.dennisguse.opentracks/databases/database.db",
        app="opentracks",
        main="tracks",
        edit="totaldistance = totaldistance + 1000",
        extra="INSERT INTO tracks (name, description, category, starttime, stoptime, totaldistance,"
        " totaltime, movingtime) VALUES ('Ghost ride', '', 'biking', 1772600000000, 1772603600000, 20000,"
        " 3600000, 3500000)",
    ),
)
# Its own settings: the units distances and speeds show in (`statsUnits`).
PREFERENCES = (
    PrefsDecl(
        "opentracks",
        "/data/data/de.dennisguse.opentracks/shared_prefs/de.dennisguse.opentracks_preferences.xml",
        app="opentracks",
    ),
)
