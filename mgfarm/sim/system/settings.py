"""Android settings (system, secure, global) kept in SQLite where the settings provider keeps them."""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mgfarm.sim.system.dbfiles import remove_database
from mgfarm.sim.system.space import DatabaseRoom, Space

LOG = logging.getLogger(__name__)
SETTINGS_DB = "/data/data/com.android.providers.settings/databases/settings.db"
NAMESPACES = ("system", "secure", "global")
INT_TEXT = re.compile(r"[+-]?\d{1,9}")  # what Integer.parseInt reads, within its range

# Values a freshly wiped API 34 emulator reports (frameworks/base/packages/SettingsProvider defaults).
DEFAULTS: dict[str, dict[str, str]] = {
    "global": {
        "adb_enabled": "1",
        "airplane_mode_on": "0",
        "airplane_mode_radios": "cell,bluetooth,wifi,nfc,wimax",
        "auto_time": "1",
        "auto_time_zone": "1",
        "bluetooth_on": "0",
        "data_roaming": "0",
        "development_settings_enabled": "1",
        "device_name": "mgfarm_sim",
        "device_provisioned": "1",
        "mobile_data": "1",
        "package_verifier_enable": "0",
        "stay_on_while_plugged_in": "0",
        "transition_animation_scale": "1.0",
        "window_animation_scale": "1.0",
        "animator_duration_scale": "1.0",
        "wifi_on": "1",
        "wifi_sleep_policy": "2",
        "zen_mode": "0",
    },
    "secure": {
        "android_id": "a1b2c3d4e5f60718",
        "default_input_method": "com.android.inputmethod.latin/.LatinIME",
        "enabled_input_methods": "com.android.inputmethod.latin/.LatinIME",
        "location_mode": "3",
        "screensaver_enabled": "0",
        "show_ime_with_hard_keyboard": "1",
        "user_setup_complete": "1",
        "zen_duration": "0",  # every device has it; AndroidWorld's get_all_settings drops it by name
    },
    "system": {
        "accelerometer_rotation": "0",
        "dtmf_tone": "1",
        "font_scale": "1.0",
        "haptic_feedback_enabled": "1",
        "screen_brightness": "102",
        "screen_brightness_mode": "0",
        "screen_off_timeout": "60000",
        "sound_effects_enabled": "1",
        "time_12_24": "12",
        "user_rotation": "0",
        "volume_music": "5",
        "volume_ring": "5",
    },
}


class SettingsStore:
    """`settings get/put/delete/list`: one table per namespace, like SettingsProvider's legacy db."""

    def __init__(
        self, db_path: Path, on_write: Callable[[], None] | None = None, space: Space | None = None
    ) -> None:
        self.db_path = db_path
        self.on_write = on_write  # the device's `changed`: a setting may be on screen
        self.space = space  # the device's: a write may grow the database by the room it has left
        # Every table read at once, with the file version it came from (see `_version`): composing a
        # screen reads a handful of settings, and a connection per read cost ~0.2 ms each.
        self._read: tuple[tuple[int, ...], dict[str, dict[str, str | None]]] | None = None

    def _version(self) -> tuple[int, ...]:
        """Changes whenever the file does: replaced (inode), resized, or written (SQLite bumps the
        change counter in its header on every write transaction; mtime alone is too coarse)."""
        # os calls, not Path.open: a screen reads several settings, and a buffered file object per
        # read was most of their cost.
        fd = os.open(self.db_path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            counter = os.pread(fd, 4, 24)
        finally:
            os.close(fd)
        return (st.st_ino, st.st_size, st.st_mtime_ns, int.from_bytes(counter, "big"))

    def _tables(self) -> dict[str, dict[str, str | None]]:
        try:
            version = self._version()
        except OSError:  # missing, or not a file
            version = ()
        if self._read is None or self._read[0] != version or not version:
            try:
                tables = self._select_all()
            except sqlite3.DatabaseError:
                self._recreate()
                tables = self._select_all()
                version = self._version()
            self._read = (version, tables)
        return self._read[1]

    def _select_all(self) -> dict[str, dict[str, str | None]]:
        with self._connect() as conn:
            return {ns: dict(conn.execute(f"SELECT name, value FROM {ns}").fetchall()) for ns in NAMESPACES}

    def _recreate(self) -> None:
        """A database a root shell removed, emptied or overwrote starts again from the defaults, as
        SettingsProvider starts from its defaults when its settings files are missing or unreadable:
        the system keeps running, and every reader (the status bar, the shade) with it."""
        LOG.warning("%s is not a settings database: created again with the defaults", self.db_path)
        remove_database(self.db_path)
        self.create()

    @contextmanager
    def _connect(self, writing: bool = False) -> Iterator[sqlite3.Connection]:
        # A connection per operation: a snapshot load may replace the file between calls.
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.db_path)
        room = None
        try:
            # No fsync per write: a simulated device has no power loss to survive, and an fsync costs
            # ~20 ms per `settings put` on this machine. Data still reaches the file before we return.
            conn.execute("PRAGMA synchronous=OFF")
            if writing and self.space is not None:
                room = DatabaseRoom(self.space, conn, self.db_path)
            with conn:
                yield conn
        finally:
            conn.close()
            if room is not None:
                room.close()

    def create(self) -> None:
        """Create the tables, and fill in defaults for keys that have no value yet."""
        with self._connect() as conn:
            for ns in NAMESPACES:
                conn.execute(
                    f"CREATE TABLE IF NOT EXISTS {ns} (_id INTEGER PRIMARY KEY AUTOINCREMENT, "
                    "name TEXT UNIQUE ON CONFLICT REPLACE, value TEXT)"
                )
                conn.executemany(
                    f"INSERT OR IGNORE INTO {ns} (name, value) VALUES (?, ?)", DEFAULTS[ns].items()
                )

    @staticmethod
    def _check(ns: str) -> None:
        if ns not in NAMESPACES:
            raise ValueError(f"Invalid namespace '{ns}'")

    def get(self, ns: str, key: str) -> str | None:
        self._check(ns)
        return self._tables()[ns].get(key)

    def get_int(self, ns: str, key: str, default: int) -> int:
        """`Settings.System.getInt(cr, name, def)`: `default` when unset or not an integer, since
        anyone with a shell may `settings put` any text where the system expects a number."""
        value = self.get(ns, key)
        # Integer.parseInt: an optional sign and digits, nothing else (no spaces, no underscores).
        if value is None or not INT_TEXT.fullmatch(value):
            return default
        return int(value)

    def put(self, ns: str, key: str, value: str | None) -> None:
        self._check(ns)
        self._tables()  # a broken database is made again first
        with self._connect(writing=True) as conn:
            conn.execute(f"INSERT INTO {ns} (name, value) VALUES (?, ?)", (key, value))
        self._wrote()

    def delete(self, ns: str, key: str) -> int:
        self._check(ns)
        self._tables()
        with self._connect(writing=True) as conn:
            count: int = conn.execute(f"DELETE FROM {ns} WHERE name = ?", (key,)).rowcount
        self._wrote()
        return count

    def _wrote(self) -> None:
        self._read = None
        if self.on_write is not None:
            self.on_write()

    def items(self, ns: str) -> list[tuple[str, str]]:
        self._check(ns)
        self._tables()
        with self._connect() as conn:
            rows = conn.execute(f"SELECT name, value FROM {ns} ORDER BY name").fetchall()
        return [(name, "null" if value is None else str(value)) for name, value in rows]
