"""The media store: `content://media/external/{file,images,audio,video,downloads}` over shared storage.

MediaProvider keeps a `files` table of what is on /sdcard; here the table is brought up to date with
the files before every call (new files are added, changed ones updated, removed ones dropped), so a
file pushed with `adb push` or written by an app is in the store at the next query, as after the
media scanner ran. Deleting a row deletes its file, as MediaProvider does.
"""

from __future__ import annotations

import contextlib
import mimetypes
import os
import posixpath
import sqlite3
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mgfarm.sim.system.dbversion import db_version
from mgfarm.sim.system.providers import ProviderError, Route, Rows, SqliteProvider, Value

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

PACKAGE = "com.google.android.providers.media.module"
DB = f"/data/data/{PACKAGE}/databases/external.db"
STORAGE = "/storage/emulated/0"
MAX_FILES = 20000  # a scan stops here: an agent filling /sdcard must not make every query slow
NONE, IMAGE, AUDIO, VIDEO = 0, 1, 2, 3
SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, _data TEXT UNIQUE COLLATE NOCASE, _display_name TEXT,
  _size INTEGER, mime_type TEXT, media_type INTEGER DEFAULT 0, title TEXT, date_added INTEGER,
  date_modified INTEGER, date_taken INTEGER, relative_path TEXT, bucket_id INTEGER,
  bucket_display_name TEXT, volume_name TEXT DEFAULT 'external_primary', is_pending INTEGER DEFAULT 0,
  is_trashed INTEGER DEFAULT 0, is_favorite INTEGER DEFAULT 0, is_download INTEGER DEFAULT 0,
  duration INTEGER, width INTEGER, height INTEGER, owner_package_name TEXT, format INTEGER DEFAULT 0);
"""
ROUTES = {
    "file": Route("files"),
    "images/media": Route("files", where=f"media_type = {IMAGE}", defaults={"media_type": IMAGE}),
    "audio/media": Route("files", where=f"media_type = {AUDIO}", defaults={"media_type": AUDIO}),
    "video/media": Route("files", where=f"media_type = {VIDEO}", defaults={"media_type": VIDEO}),
    "downloads": Route("files", where="is_download = 1", defaults={"is_download": 1}),
}
# The short forms name the same collections (content://media/external/images).
ROUTES |= {name.split("/")[0]: route for name, route in ROUTES.items() if "/" in name}


def guess_mime(name: str) -> str:
    """A file name's MIME type from Python's table. Not `mimetypes.guess_type`: its first call reads
    the host's /etc/mime.types, which a confined device may not open (the scan then failed)."""
    ext = posixpath.splitext(name)[1].lower()
    return mimetypes.types_map.get(ext) or "application/octet-stream"


def media_type(mime: str) -> int:
    kind = mime.split("/", 1)[0]
    return {"image": IMAGE, "audio": AUDIO, "video": VIDEO}.get(kind, NONE)


class MediaStore(SqliteProvider):
    """MediaProvider's external volume; `external`, `external_primary` and `external_primary` paths."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        super().__init__("media", lambda: device.fs.host(DB), {}, device.fs.space)
        # The files the last scan found and the table's version after it.
        self._scanned: tuple[dict[str, tuple[int, int]], tuple[int, ...]] | None = None

    def create(self) -> None:
        path = self.db_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(path) as conn:
            conn.executescript(SCHEMA)
        conn.close()

    def route(self, uri: str) -> tuple[Route, str, str | None]:
        prefix = "content://media/"
        rest = uri[len(prefix) :] if uri.startswith(prefix) else ""
        volume, _, path = rest.partition("/")
        if volume not in ("external", "external_primary"):
            raise ProviderError(f"Unknown URI: {uri}")
        segments = [s for s in path.split("/") if s]
        row_id = segments.pop() if segments and segments[-1].isdigit() else None
        key = "/".join(segments)
        if key not in ROUTES:
            raise ProviderError(f"Unknown URI: {uri}")
        return ROUTES[key], key, row_id

    # ---- keeping the table in step with the files
    def scan(self) -> None:
        """Add, update and drop rows so that the table lists the files under shared storage."""
        if not self.db_path().exists():
            self.create()
        found: dict[str, tuple[int, int]] = {}
        _walk(str(self.device.fs.host(STORAGE)), STORAGE, found, top=True)
        # The table was brought up to date with these very files, and nothing wrote it since: the
        # comparison below would change nothing (an app's screen queries the store at every compose).
        if self._scanned is not None and self._scanned == (found, db_version(self.db_path())):
            return
        with sqlite3.connect(self.db_path()) as conn:
            known = {
                row[0]: (row[1], row[2])
                for row in conn.execute("SELECT _data, _size, date_modified FROM files")
            }
            gone = [p for p in known if p not in found]
            conn.executemany("DELETE FROM files WHERE _data = ?", [(p,) for p in gone])
            for path, (size, mtime) in found.items():
                if known.get(path) == (size, mtime):
                    continue
                conn.execute(
                    "INSERT INTO files (_data, _display_name, _size, mime_type, media_type, title,"
                    " date_added, date_modified, relative_path, bucket_id, bucket_display_name, is_download)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT(_data) DO UPDATE SET _size = excluded._size,"
                    " date_modified = excluded.date_modified",
                    self._row(path, size, mtime),
                )
        conn.close()
        self._scanned = (found, db_version(self.db_path()))

    def _row(self, path: str, size: int, mtime: int) -> tuple[Value, ...]:
        name = path.rsplit("/", 1)[1]
        relative = path[len(STORAGE) + 1 : -len(name)]
        mime = guess_mime(name)
        bucket = relative.rstrip("/").rsplit("/", 1)[-1] if relative else ""
        added = int(self.device.services.clock.now())
        title = name.rsplit(".", 1)[0]
        bucket_id = zlib.crc32(relative.lower().encode()) if relative else 0
        download = 1 if relative.startswith("Download/") else 0
        return (
            path,
            name,
            size,
            mime,
            media_type(mime),
            title,
            added,
            mtime,
            relative,
            bucket_id,
            bucket,
            download,
        )

    # ---- the provider API, each call on an up-to-date table
    def query(
        self,
        uri: str,
        projection: Sequence[str] | None,
        selection: str | None,
        args: Sequence[Value],
        sort: str | None,
    ) -> tuple[list[str], Rows]:
        self.route(uri)
        self.scan()
        return super().query(uri, projection, selection, args, sort)

    def insert(self, uri: str, values: dict[str, Value]) -> str:
        self.route(uri)
        self.scan()
        return super().insert(uri, values)

    def update(self, uri: str, values: dict[str, Value], selection: str | None, args: Sequence[Value]) -> int:
        self.route(uri)
        self.scan()
        return super().update(uri, values, selection, args)

    def delete(self, uri: str, selection: str | None, args: Sequence[Value]) -> int:
        """Deletes the rows and their files (MediaProvider removes the file of a deleted row)."""
        self.route(uri)
        self.scan()
        _, rows = super().query(uri, ["_data"], selection, args, None)
        for (path,) in rows:
            if isinstance(path, str) and path.startswith(STORAGE + "/") and ".." not in path.split("/"):
                with contextlib.suppress(OSError):
                    self.device.fs.host(path).unlink()
        count = super().delete(uri, selection, args)
        self.device.changed()
        return count


def _walk(host: str, device: str, found: dict[str, tuple[int, int]], top: bool = False) -> None:
    """Files under host folder `host` (device path `device`) into `found`: device path -> (size,
    mtime), a folder's files before its subfolders, as os.walk goes (the rows' ids follow this
    order); links to folders are not followed, and `Android` at the top is the apps' own. Strings
    and one lstat a file: 20,000 files by `Path` took ~0.6 s a query. Stops at MAX_FILES."""
    try:
        with os.scandir(host) as it:
            entries = list(it)
    except OSError:
        return
    folders = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink() and not (top and entry.name == "Android"):
                folders.append(entry.name)
            continue
        if len(found) >= MAX_FILES:
            return
        try:
            st = os.lstat(entry.path)
        except OSError:
            continue
        found[f"{device}/{entry.name}"] = (st.st_size, int(st.st_mtime))
    for name in folders:
        _walk(f"{host}/{name}", f"{device}/{name}", found)
