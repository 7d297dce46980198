"""The base App class and the context its screens are built with."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from mgfarm.sim.system.clock import local_time
from mgfarm.sim.system.dbfiles import remove_database, usable_database
from mgfarm.sim.system.dbversion import settled_db_version
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.prefs import read_prefs, write_prefs
from mgfarm.sim.system.profiles import app_names
from mgfarm.sim.system.space import app_write
from mgfarm.sim.ui.views import View

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice
    from mgfarm.sim.system.activities import ActivityManager, ActivityRecord

LOG = logging.getLogger(__name__)
T = TypeVar("T")
KEPT_READS = 4  # an app's screen reads a few things a frame (`App.unchanged_read`)
ScreenFn = Callable[["ScreenContext"], View]
SECOND_MS = 1000
MINUTE_MS = 60_000
SqlValue = str | int | float | bytes | None


class ScreenContext:
    """What a screen function may read and do while building its view tree."""

    def __init__(self, device: SimDevice, app: App, record: ActivityRecord) -> None:
        self.device = device
        self.app = app
        self.record = record
        self.back_handler: Callable[[], None] | None = None
        self.swipe_handler: Callable[[str], None] | None = None
        self.edge_to_edge = False  # content drawn under the status and navigation bars (launcher)
        self.toasts: list[str] = []
        # The finest unit of time (ms) the screen shows: its frame is composed again when the time
        # moves to the next one. The status bar's clock shows minutes.
        self.tick_ms = MINUTE_MS

    @property
    def state(self) -> dict[str, Any]:
        return self.record.state

    @property
    def extras(self) -> dict[str, Any]:
        return self.record.extras

    @property
    def am(self) -> ActivityManager:
        return self.device.services.activities

    def field(self, key: str, default: str = "") -> str:
        return str(self.state.setdefault("fields", {}).get(key, default))

    def set_field(self, key: str, value: str) -> None:
        self.state.setdefault("fields", {})[key] = value

    def set_fields(self, values: dict[str, str]) -> None:
        self.state["fields"] = dict(values)
        self.state.pop("focus", None)

    def focus(self, key: str | None) -> None:
        """Give a field focus and raise the keyboard (as a dialog's first field gets), or clear focus."""
        if key is None:
            self.state.pop("focus", None)
        else:
            self.state["focus"] = key
            self.state["show_ime"] = True

    def start(self, activity: str, extras: dict[str, Any] | None = None) -> None:
        """Start another activity of this app, on top of this one."""
        self.am.start(self.app.package, activity, extras=extras)

    def finish(self) -> None:
        self.am.finish(self.record)

    def toast(self, text: str) -> None:
        self.device.services.window.toast = text

    def on_back(self, handler: Callable[[], None]) -> None:
        """Let the screen handle BACK first (close a dialog, leave search)."""
        self.back_handler = handler

    def on_swipe(self, handler: Callable[[str], None]) -> None:
        """Gestures no list consumed: handler gets up, down, left or right."""
        self.swipe_handler = handler

    def now_ms(self, shown_to: int = SECOND_MS) -> int:
        """The device's time; `shown_to`: the finest unit of it the screen shows (a date: MINUTE_MS)."""
        self.tick_ms = min(self.tick_ms, shown_to)
        return now_ms(self.device)

    def local_now(self, shown_to: int = SECOND_MS) -> datetime:
        """The device's time in its time zone (`shown_to` as for `now_ms`)."""
        return local_time(self.device.props, self.now_ms(shown_to) / 1000)

    def today(self) -> date:
        """The device's date in its time zone (a date changes at a minute's turn)."""
        return self.local_now(MINUTE_MS).date()

    def setting(self, ns: str, key: str, default: str | None = None) -> str | None:
        value = self.device.services.settings.get(ns, key)
        return default if value is None else value

    def setting_int(self, ns: str, key: str, default: int) -> int:
        return self.device.services.settings.get_int(ns, key, default)

    def put_setting(self, ns: str, key: str, value: str) -> None:
        self.device.services.settings.put(ns, key, value)


def now_ms(device: SimDevice) -> int:
    """Device time from its clock service (tasks set and freeze it)."""
    return device.services.clock.now_ms()


class App:
    """One installed app. Subclasses set the class attributes and implement `screens`."""

    # Per instance: an app with a `role` takes both from its device's profile (see system.profiles).
    package: str = ""
    label: ClassVar[str] = ""
    main_activity: str = ""
    role: ClassVar[str] = ""  # clock, contacts, dialer, files: apps whose names differ between profiles
    icon: ClassVar[str] = "apps"
    icon_color: ClassVar[str] = "#5F6368"
    in_launcher: ClassVar[bool] = True
    intent_actions: ClassVar[dict[str, str]] = {}
    provider_packages: ClassVar[tuple[str, ...]] = ()  # packages holding this app's providers and data
    version_name: ClassVar[str] = "14"

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self._making_data = False  # create_data is running: its databases do not exist yet
        self._reads: OrderedDict[tuple[object, ...], object] = OrderedDict()  # see unchanged_read
        if self.role:
            names = app_names(device.config.profile, self.role)
            self.package, self.main_activity = names.package, names.main_activity
        self.activities: dict[str, ScreenFn] = self.screens()

    def screens(self) -> dict[str, ScreenFn]:
        """Activity class name -> function building its view tree."""
        raise NotImplementedError

    # ---- data
    def install(self) -> None:
        """Create databases and seed data (only when absent), register providers."""
        self.make_data()

    def make_data(self) -> None:
        """`create_data`, with this app's databases known to be in the making meanwhile."""
        self._making_data = True
        try:
            self.create_data()
        finally:
            self._making_data = False

    def create_data(self) -> None:
        """Schema and seed rows, as a fresh install has them; run through `make_data` at install,
        after `pm clear`, and when a database is missing or corrupt (`db_file`)."""

    def stopped(self) -> None:
        """The app's process ended (force-stop): release what it holds outside the device (a browser)."""

    def unchanged_read(self, db: Path, key: Hashable, read: Callable[[], T]) -> T:
        """`read()`, kept for the next call with the same key while database `db` is unchanged
        (`settled_db_version`): a shell can put tens of thousands of rows behind a screen, and
        reading them all on every frame stalled every device of the worker. What it returns is
        shared: not to be changed."""
        version = settled_db_version(db)
        if version is None:
            return read()
        full = (str(db), version, key)
        if full in self._reads:
            return cast(T, self._reads[full])
        value = self._reads[full] = read()
        while len(self._reads) > KEPT_READS:
            self._reads.popitem(last=False)
        return value

    def db_file(self, name: str, package: str | None = None) -> Path:
        """The host path of database `name` in `package`'s (default: the app's) databases folder."""
        return self.database_at(f"/data/data/{package or self.package}/databases/{name}")

    def database_at(self, device_path: str) -> Path:
        """The host path of one of the app's databases, as SQLiteOpenHelper opens it: one that is
        missing, empty or not a database (a root shell removed or overwrote it) is made again, as
        `onCreate` makes a new database and Android's DefaultDatabaseErrorHandler replaces a corrupt
        one, so the app goes on with its fresh-install data instead of failing on every screen."""
        path = self.device.fs.host(device_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self._making_data and not usable_database(path):
            self._make_again(path)
        return path

    def preferences(self) -> dict[str, Any]:
        """The app's default SharedPreferences (PreferenceManager's `PKG_preferences.xml`); a file a
        shell made unreadable, or a folder swapped for a link out of the app's data, reads as empty."""
        try:
            return read_prefs(self.device.fs.host(self._prefs_file()))
        except PathEscapeError:
            return {}

    def save_preferences(self, values: dict[str, Any]) -> None:
        """Commit `values` over the app's default SharedPreferences; a commit that cannot write is
        lost, as `commit()` returns false on a device."""
        merged = {**self.preferences(), **values}
        try:
            write_prefs(self.device.fs.host(self._prefs_file()), merged)
        except (OSError, PathEscapeError):
            LOG.warning("%s: its preferences could not be written", self.package)

    def _prefs_file(self) -> str:
        return f"/data/data/{self.package}/shared_prefs/{self.package}_preferences.xml"

    def _make_again(self, path: Path) -> None:
        if path.exists():  # a missing one is simply made (onCreate); a corrupt one is reported
            LOG.warning("%s: %s is not a database: made again", self.package, path.name)
        remove_database(path)
        try:
            self.make_data()
        except sqlite3.Error:  # another database of the app holds rows its seed would add again
            LOG.warning("%s: its data could not be made again", self.package, exc_info=True)


# Connections `sql` keeps open, per thread (sqlite3 connections stay in their thread), the most
# recently used last. A fresh connection reads and parses the database's schema at its first
# statement: ~0.2-1.3 ms for the apps' databases (contacts, telephony), against ~10 us for a query
# on a kept one, and screens query at every compose. ~40 KB each.
KEPT_CONNECTIONS = 8
_kept = threading.local()


def sql(path: Path, statement: str, args: Sequence[SqlValue] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on a database file (in a transaction of its own), through a connection kept
    for that file while the file is the same one, unchanged since it was opened."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    kept: OrderedDict[str, tuple[sqlite3.Connection, tuple[int, ...]]] = _kept.__dict__.setdefault(
        "connections", OrderedDict()
    )
    key = str(path)
    entry = kept.pop(key, None)
    # The file as it is now. An open connection pins its file's inode, so the same inode is the
    # same file (a snapshot load or `pm clear` replaces it). SQLite notices other connections'
    # writes by itself; size and mtime also catch a rewrite in place by other means (a copy over it).
    version = () if st is None else (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if entry is not None and (not version or entry[1] != version):
        entry[0].close()
        entry = None
    if entry is None:
        entry = (sqlite3.connect(path), version)  # stat first: a file replaced since is never kept
    con = entry[0]
    try:
        reading = statement.lstrip()[:6].upper() == "SELECT"
        with contextlib.nullcontext() if reading else app_write(path), con:
            rows = con.execute(statement, tuple(args)).fetchall()
    except BaseException:
        con.close()  # an odd state (a broken file, a lock) is not carried to the next statement
        raise
    if not version:  # the file did not exist: this call made it, and nothing is known of it
        con.close()
        return rows
    kept[key] = entry
    while len(kept) > KEPT_CONNECTIONS:
        kept.popitem(last=False)[1][0].close()
    return rows


def sql_insert(path: Path, statement: str, args: Sequence[SqlValue] = ()) -> int:
    """Run one INSERT and return the new row id."""
    con = sqlite3.connect(path)
    try:
        with app_write(path), con:
            cur = con.execute(statement, tuple(args))
            return int(cur.lastrowid or 0)
    finally:
        con.close()


def sql_script(path: Path, script: str, seed: Iterable[tuple[str, Sequence[SqlValue]]] = ()) -> None:
    """Create a schema and insert seed rows in one transaction."""
    con = sqlite3.connect(path)
    try:
        # No fsync for seed data (a kill -9 loses nothing: the page cache stays), which made seeding
        # the apps wait on the disk for ~0.1-0.4 s of a worker's start on a shared VM.
        con.execute("PRAGMA synchronous=OFF")
        with app_write(path), con:
            # executescript runs each statement in its own transaction unless told otherwise;
            # one transaction makes a boot ~17x faster (a journal file per statement is slow).
            con.executescript("BEGIN;\n" + script + "\nCOMMIT;")
            for statement, args in seed:
                con.execute(statement, tuple(args))
    finally:
        con.close()
