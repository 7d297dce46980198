"""Device state for side-effect detection: settings and declared app databases, read over ADB.

Databases are pulled with their -wal file and opened on the host, so a check sees exactly the
committed state an app left behind, whatever sqlite3 the device ships.
"""

from __future__ import annotations

import fnmatch
import sqlite3
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mgfarm.tasks.device import TaskDevice

SETTINGS_NAMESPACES = ("system", "secure", "global")
SHARED_STORAGE = "/storage/emulated/0"  # what /sdcard points at
# Tables that change as a by-product of any write and say nothing about what the user did.
IGNORED_TABLES = {"sqlite_sequence", "android_metadata", "sqlite_stat1", "properties"}


@dataclass(frozen=True)
class DatabaseDecl:
    """An app database the judge diffs: a short name and its path on the device."""

    name: str
    path: str


DATABASES: dict[str, DatabaseDecl] = {}


def declare_database(name: str, path: str) -> None:
    """Register a database whose changes count as side effects unless a template allows them."""
    DATABASES[name] = DatabaseDecl(name, path)


def pull_database(device: TaskDevice, path: str, into: Path) -> Path | None:
    """Copy a device database (and its -wal) into a host folder; None when it does not exist."""
    local = into / Path(path).name
    try:
        local.write_bytes(device.pull(path))
    except Exception:  # a missing file is an empty database; the controller raises various errors
        return None
    try:
        wal = device.pull(path + "-wal")
        if wal:
            (into / (local.name + "-wal")).write_bytes(wal)
    except Exception:  # no -wal: everything was checkpointed
        pass
    return local


def read_tables(db_file: Path) -> dict[str, Counter[tuple[object, ...]]]:
    """Every user table's rows as a multiset."""
    conn = sqlite3.connect(db_file)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {
            name: Counter(tuple(row) for row in conn.execute(f'SELECT * FROM "{name}"'))
            for name in names
            if name not in IGNORED_TABLES
        }
    finally:
        conn.close()


def read_settings(device: TaskDevice) -> dict[str, str]:
    """All settings as `settings.NS.KEY -> value`, in one shell round trip."""
    script = "; ".join(f"echo '##{ns}'; settings list {ns}" for ns in SETTINGS_NAMESPACES)
    values: dict[str, str] = {}
    namespace = ""
    for line in device.shell(script).splitlines():
        if line.startswith("##"):
            namespace = line[2:].strip()
        elif "=" in line and namespace:
            key, value = line.split("=", 1)
            values[f"settings.{namespace}.{key}"] = value
    return values


def read_files(device: TaskDevice) -> dict[str, str]:
    """Files and folders in shared storage as `files.PATH -> size` ('dir' for folders), from `ls -lR`."""
    entries: dict[str, str] = {}
    folder = ""
    for line in device.shell(f"ls -lR {SHARED_STORAGE}").splitlines():
        if line.startswith(SHARED_STORAGE) and line.endswith(":"):
            folder = line[:-1]
            continue
        parts = line.split(maxsplit=7)
        if not folder or len(parts) < 8 or parts[0] == "total":
            continue
        kind = "dir" if parts[0].startswith("d") else parts[4]
        entries[f"files.{folder}/{parts[7]}"] = kind
    return entries


@dataclass
class StateSnapshot:
    """What the judge compares between the start and the end of an episode."""

    settings: dict[str, str] = field(default_factory=dict)
    tables: dict[str, Counter[tuple[object, ...]]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)


def capture(device: TaskDevice) -> StateSnapshot:
    """Settings, files in shared storage, and the rows of every declared database."""
    snap = StateSnapshot(settings=read_settings(device), files=read_files(device))
    with tempfile.TemporaryDirectory(prefix="mgfarm-state-") as tmp:
        for decl in DATABASES.values():
            folder = Path(tmp) / decl.name
            folder.mkdir()
            local = pull_database(device, decl.path, folder)
            if local is None:
                continue
            for table, rows in read_tables(local).items():
                snap.tables[f"{decl.name}.{table}"] = rows
    return snap


def allowed(key: str, patterns: list[str]) -> bool:
    """Whether a change key is covered by the allow-list (`db`, `db.table`, `settings.ns.key`, globs)."""
    return any(key == p or key.startswith(p + ".") or fnmatch.fnmatchcase(key, p) for p in patterns)


def diff(before: StateSnapshot, after: StateSnapshot) -> list[str]:
    """Human-readable changes, one per setting or table that differs."""
    changes: list[str] = []
    for key in sorted(set(before.settings) | set(after.settings)):
        old, new = before.settings.get(key), after.settings.get(key)
        if old != new:
            changes.append(f"{key}: {old} -> {new}")
    for path in sorted(set(before.files) | set(after.files)):
        old, new = before.files.get(path), after.files.get(path)
        if old != new:
            what = "added" if old is None else "removed" if new is None else f"size {old} -> {new}"
            changes.append(f"{path}: {what}")
    for table in sorted(set(before.tables) | set(after.tables)):
        old_rows = before.tables.get(table, Counter())
        new_rows = after.tables.get(table, Counter())
        added, removed = new_rows - old_rows, old_rows - new_rows
        if added or removed:
            changes.append(f"{table}: {sum(added.values())} rows added, {sum(removed.values())} removed")
    return changes


def side_effects(before: StateSnapshot, after: StateSnapshot, expected: list[str]) -> list[str]:
    """Changes that the template's `expected_changes` does not allow."""
    return [c for c in diff(before, after) if not allowed(c.split(":", 1)[0], expected)]
