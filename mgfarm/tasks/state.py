"""The device state a verdict is computed from, read over ADB, and its row-by-row diff.

A snapshot is a set of *tables*, each a mapping key -> row (a dict of column values):
- `DB.TABLE` for every table of every declared app database, keyed by the primary key (or rowid);
- `DB.ENTITY` for app entities that group related tables (a contact = raw_contacts + data +
  contacts rows), declared by the app's verifier module and handed in with the `StateSpec`; the
  tables an entity covers are then compared through the entity only, so one logical insert is one
  change;
- `settings.NS` (system, secure, global), keyed by setting name, row `{value}`;
- `files`, keyed by path under shared storage, row `{type, size, sha1, times}` (sha1 for small
  files; for larger ones `times`, their modification and change times, which a same-size overwrite
  moves);
- `prefs.NAME` for every declared SharedPreferences file (an app's own settings: Pro Expense's
  currency), keyed by preference name, row `{type, value}`;
- `props`, the system properties a verdict depends on (the time zone), row `{value}`.

Databases are pulled with their -wal file and opened on the host, so the diff sees exactly the
committed state an app left behind, whatever sqlite3 the device ships.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import sqlite3
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from mgfarm.errors import MgfarmError
from mgfarm.tasks.apps import AppTable
from mgfarm.tasks.device import TaskDevice, quote

SETTINGS_NAMESPACES = ("system", "secure", "global")
TIMEZONE_PROP = "persist.sys.timezone"
SHARED_STORAGE = "/storage/emulated/0"  # what /sdcard points at
HASH_LIMIT = 256 * 1024  # files up to this size are hashed; larger ones compare by size and times
# The device is hostile, the judge runs in the trainer's process: a database (or -wal) over this size
# is not pulled, and reading one stops after this many SQLite steps (a real app's database, well
# under a million).
MAX_DATABASE_BYTES = 64 * 1024 * 1024
READ_STEPS = 200_000_000
UNREADABLE = "__unreadable__"  # the table standing for a database the judge did not read
# Tables that change as a by-product of any write and say nothing about what the user did.
IGNORED_TABLES = {"sqlite_sequence", "android_metadata", "sqlite_stat1", "properties"}

Row = dict[str, Any]
Table = dict[str, Row]
EntityReader = Callable[[sqlite3.Connection], Table]


@dataclass(frozen=True)
class DatabaseDecl:
    """An app database the judge diffs: a short name, its device path, and how to damage it.

    `main` is the table (with its key column) whose rows stand for the app's records; the
    adversary matrix deletes and edits unrelated rows there (`edit` is an SQL SET clause) and
    adds a record (`extra`, an SQL INSERT: another SMS, call, alarm, ...).
    """

    name: str
    path: str
    app: str = ""
    main: str = ""
    key: str = "_id"
    edit: str = ""
    extra: str = ""


@dataclass(frozen=True)
class PrefsDecl:
    """An app's SharedPreferences file the judge diffs as table `prefs.NAME`: the settings the app
    keeps for itself (a currency, a language), which a policy that over-acts may change."""

    name: str
    path: str
    app: str = ""


@dataclass(frozen=True)
class EntityDecl:
    """A logical record spread over several tables of one database, compared as one row."""

    name: str  # DB.ENTITY
    db: str
    covers: tuple[str, ...]
    read: EntityReader


@dataclass(frozen=True)
class StateSpec:
    """What the verifier modules declare about app data: the databases `capture` reads, the entities
    that group their tables, and app-wide by-products every outcome allows (see
    outcome.incidental_match). Built by the catalog and passed in; nothing registers itself.

    Paths are declared on the default device profile; `apps` moves them to a device's profile
    (`database`, `path_on`), so every reader of app data finds it where that device keeps it.
    """

    databases: dict[str, DatabaseDecl] = field(default_factory=dict)
    entities: dict[str, EntityDecl] = field(default_factory=dict)
    incidental: tuple[str, ...] = ()
    apps: AppTable = field(default_factory=lambda: AppTable({}))
    prefs: dict[str, PrefsDecl] = field(default_factory=dict)

    def database(self, db: str, what: str, profile: str) -> str:
        """A declared database's device path on a device of `profile`, or `db` itself (moved to the
        profile) when it is a path; `what` names the asker."""
        if db in self.databases:
            return self.path_on(self.databases[db].path, profile)
        if db.startswith("/"):
            return self.path_on(db, profile)
        known = ", ".join(sorted(self.databases))
        raise MgfarmError(f"{what} names unknown database {db!r}; use one of {known} or a path.")

    def path_on(self, path: str, profile: str) -> str:
        """A device path named on the default profile, on a device of `profile` (see AppTable.path_on)."""
        return self.apps.path_on(path, profile)


@dataclass(frozen=True)
class Change:
    """One difference between two snapshots: a row inserted, deleted or updated."""

    kind: Literal["insert", "delete", "update"]
    where: str  # table, entity, settings.NS or files
    key: str
    before: Row | None = None
    after: Row | None = None

    def columns(self) -> list[str]:
        """The columns an update changed (all columns for inserts and deletes)."""
        old, new = self.before or {}, self.after or {}
        return sorted(c for c in set(old) | set(new) if _blank(old.get(c)) != _blank(new.get(c)))

    def line(self) -> str:
        """One readable line for reports: `update settings.global[wifi_on]: value 1 -> 0`."""
        head = f"{self.kind} {self.where}[{self.key}]"
        if self.kind == "update":
            old, new = self.before or {}, self.after or {}
            parts = [f"{c} {_short(old.get(c))} -> {_short(new.get(c))}" for c in self.columns()]
            return f"{head}: {', '.join(parts)}"
        row = self.after if self.kind == "insert" else self.before
        shown = {k: v for k, v in (row or {}).items() if v not in (None, "", 0)}
        return f"{head}: {_short(shown, 160)}"


def _blank(value: Any) -> Any:
    """NULL and '' are the same to a user: apps rewrite one as the other when they save a form."""
    return "" if value is None else value


def same_row(a: Row, b: Row) -> bool:
    """Rows equal up to NULL versus ''."""
    return all(_blank(a.get(c)) == _blank(b.get(c)) for c in set(a) | set(b))


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class StateSnapshot:
    """What the judge compares between the start and the end of an episode."""

    tables: dict[str, Table] = field(default_factory=dict)

    def table(self, name: str) -> Table:
        return self.tables.get(name, {})

    @property
    def timezone(self) -> str:
        """The device's time zone when the snapshot was taken (UTC when unknown)."""
        return str(self.table("props").get(TIMEZONE_PROP, {}).get("value") or "UTC")


class UnreadableData(Exception):
    """Device data a check would read that the judge will not or cannot: over its size bound, not a
    regular file, broken, or over the bounds of a read. The verdict fails, whatever the judge tree
    around the check says (a `not:` must not turn it into a pass)."""


QUERY_ROWS = 1_000_000  # the most rows one check's query returns into the trainer's process
NOT_MADE_YET = ("no such table", "no such column")  # SQLite's words for what the app has not created


def open_database(device: TaskDevice, path: str) -> sqlite3.Connection | None:
    """A device database (with its -wal) as a connection bounded like the capture's reads
    (`bounded`); None when it does not exist.

    Only the device's own answer that the file is missing means "no database": a device that died or
    a pull that broke raises, so a judge never reads an unreachable app as an empty one. One over
    MAX_DATABASE_BYTES or not a regular file raises UnreadableData before anything is pulled.
    """
    data, wal = pull_within(device, [path, path + "-wal"], MAX_DATABASE_BYTES)
    if data is None:
        return None
    try:
        return open_copy(data, wal)
    except (sqlite3.Error, ValueError) as exc:
        raise UnreadableData(f"{path}: {type(exc).__name__}: {exc}") from exc


def pull_within(device: TaskDevice, names: list[str], limit: int) -> list[bytes | None]:
    """Files a check reads (None for one that does not exist), each asked for its size and kind
    first: one over `limit` or not a regular file raises UnreadableData before anything is pulled,
    and so does one that grew past `limit` before the pull read it."""
    stats = parse_stats(device.shell(stat_command(names)).splitlines())
    if reason := not_readable(names, stats, limit):
        raise UnreadableData(f"{names[0]}: {reason}")
    contents = device.pull_many(names, limit=limit)
    if reason := grew(names, contents, limit):
        raise UnreadableData(reason)
    return contents


def bounded_rows(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """A check's query on a device database: its rows, or none when the app has not made the table
    (or column) yet. Anything else (a read over the connection's bounds, a view that never ends,
    over QUERY_ROWS rows) raises UnreadableData, never "no rows"."""
    try:
        rows = conn.execute(sql, args).fetchmany(QUERY_ROWS + 1)
    except sqlite3.Error as exc:
        if isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(NOT_MADE_YET):
            return []
        raise UnreadableData(f"{type(exc).__name__}: {exc}") from exc
    if len(rows) > QUERY_ROWS:
        raise UnreadableData(f"the query returns over {QUERY_ROWS} rows")
    return rows


def open_copy(data: bytes, wal: bytes | None) -> sqlite3.Connection:
    """A pulled database (with the commits its -wal holds) as an in-memory connection.

    Without a -wal the image is read in place, with no host files to write and delete (which cost
    a capture more than its reads). A WAL-mode header is set back to rollback mode there, as a
    memory database has no WAL, and the checkpointed image holds every commit.
    """
    conn = sqlite3.connect(":memory:")
    bounded(conn)
    if not wal:
        if data:  # an empty file is an empty database
            image = bytearray(data)
            image[18:20] = b"\x01\x01"  # file format versions: 1 rollback journal, 2 WAL
            conn.deserialize(image)
        return conn
    with tempfile.TemporaryDirectory(prefix="mgfarm-state-") as tmp:
        (Path(tmp) / "db").write_bytes(data)
        (Path(tmp) / "db-wal").write_bytes(wal)
        with contextlib.closing(sqlite3.connect(Path(tmp) / "db")) as disk:
            disk.backup(conn)
    return conn


def bounded(conn: sqlite3.Connection) -> None:
    """Limits for reading a database a hostile device wrote: no value over the largest database
    read, no function in its schema with side effects, a bounded number of SQLite steps."""
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_DATABASE_BYTES)
    conn.execute("PRAGMA trusted_schema = OFF")
    steps = [0]

    def progress() -> int:
        steps[0] += 1000
        return int(steps[0] > READ_STEPS)  # nonzero interrupts the statement

    conn.set_progress_handler(progress, 1000)


def unreadable(db: str, reason: str) -> dict[str, Table]:
    """What stands for a database the judge would not or could not read: one row saying why. It is
    a change against a start state that read the database, so breaking or bloating an app's data
    never passes for the intended outcome."""
    return {f"{db}.{UNREADABLE}": {"database": {"reason": reason}}}


def stored_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The columns whose values the file holds (stored generated ones included); ValueError when
    the table computes a column on every read (VIRTUAL): no Android app's database does, and a
    hostile one could make each read allocate up to the value limit."""
    info = conn.execute(f'PRAGMA table_xinfo("{_ident(table)}")').fetchall()
    if any(r[6] == 2 for r in info):
        raise ValueError(f"table {table} has a column computed on every read")
    return [r[1] for r in info if r[6] in (0, 3)]  # 1: a virtual table's hidden column


def _ident(name: str) -> str:
    return name.replace('"', '""')


def primary_key(conn: sqlite3.Connection, table: str) -> list[str]:
    """The primary-key columns of a table, in key order (empty: the table is keyed by rowid)."""
    info = conn.execute(f'PRAGMA table_info("{_ident(table)}")').fetchall()
    return [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]


def read_table(conn: sqlite3.Connection, table: str, stored: list[str]) -> Table:
    """Every row of a table (its `stored` columns) keyed by its primary key (`_id`, rowid when none)."""
    pk = primary_key(conn, table)
    columns = ", ".join(f'"{_ident(c)}"' for c in stored)
    cursor = conn.execute(f'SELECT {"" if pk else "rowid AS __rowid__, "}{columns} FROM "{_ident(table)}"')
    names = [d[0] for d in cursor.description]
    rows: Table = {}
    for values in cursor:
        row = dict(zip(names, values, strict=True))
        key_cols = pk or ["__rowid__"]
        key = "/".join(str(row[c]) for c in key_cols)
        row.pop("__rowid__", None)
        rows[key] = row
    return rows


def read_database(db: str, db_file: Path, entities: dict[str, EntityDecl]) -> dict[str, Table]:
    """Tables (`DB.TABLE`) and entities (`DB.ENTITY`, of the declared `entities`) of one pulled database."""
    with contextlib.closing(sqlite3.connect(db_file)) as conn:
        bounded(conn)
        return read_tables(db, conn, entities)


def read_tables(db: str, conn: sqlite3.Connection, entities: dict[str, EntityDecl]) -> dict[str, Table]:
    """Tables (`DB.TABLE`) and entities (`DB.ENTITY`) of database `db` open on `conn`."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    # Every table's, the entities' too: their readers select columns by name.
    stored = {name: stored_columns(conn, name) for name in names}
    mine = [e for e in entities.values() if e.db == db]
    covered = {t for e in mine for t in e.covers}
    out = {f"{db}.{n}": read_table(conn, n, stored[n]) for n in names if n not in IGNORED_TABLES | covered}
    for entity in mine:
        try:
            out[entity.name] = entity.read(conn)
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise  # interrupted, or broken: never read as "no records"
            out[entity.name] = {}  # the app has not created its tables yet
    return out


def run_sections(device: TaskDevice, commands: dict[str, str], before: str = "") -> dict[str, list[str]]:
    """Several shell commands in one round trip: each one's output lines (stdout and stderr), by name;
    `before` is a script run first, whose output is the section "".

    Sections are told apart by marker lines holding a random nonce, which no app data, file name or
    setting an agent wrote can contain; an output that stops before the last marker (a device that
    died mid-way) raises, so a capture never reads an unreachable device as an empty one.
    """
    nonce = secrets.token_hex(8)
    marker = f"##mgfarm-{nonce} "
    parts = [f"echo '{marker}{name}'; {cmd}" for name, cmd in commands.items()]
    script = "; ".join([*parts, f"echo '{marker}end'"])
    text = device.shell(f"{before}\n{script}" if before else script)
    sections: dict[str, list[str]] = {"": []}
    lines: list[str] = sections[""]
    for line in text.splitlines():
        if line.startswith(marker):
            lines = sections.setdefault(line[len(marker) :].strip(), [])
        else:
            lines.append(line)
    if "end" not in sections or any(name not in sections for name in commands):
        raise MgfarmError(
            f"The device's reply to the state capture stopped early ({len(text)} bytes); "
            "check the device with `mgfarm ps`."
        )
    return sections


def unreadable_row(reason: str) -> Table:
    """A listing the capture cannot read as rows (settings, preferences): one `__unreadable__` row
    saying why, a change against any start state."""
    return {UNREADABLE: {"value": reason}}


SETTINGS_COMMANDS = {f"settings.{ns}": f"settings list {ns}" for ns in SETTINGS_NAMESPACES}


def settings_tables(sections: dict[str, list[str]]) -> dict[str, Table]:
    """`settings list` outputs (sections named `settings.NS`) as `settings.NS -> {key: {value}}`.

    `settings list` prints values as they are, line breaks included: a value an agent wrote could
    hide the rest of itself (a line without "=") or add a line for another key (a key twice). Such a
    listing cannot be read as rows; the namespace then holds one `__unreadable__` row, a change."""
    tables: dict[str, Table] = {}
    for name in SETTINGS_COMMANDS:
        table: Table = {}
        for line in sections.get(name, []):
            key, equals, value = line.partition("=")
            if not equals or key in table:
                table = unreadable_row("a value holds a line break")
                break
            table[key] = {"value": value}
        tables[name] = table
    return tables


PREFS_BYTES = 64 * 1024  # a real app's preferences are a few KB; the device is hostile
PREF_TYPES = ("string", "boolean", "int", "long", "float", "set")


def read_prefs_command(path: str) -> str:
    """Prints a SharedPreferences file (one byte past the bound, to tell it was over), then a line
    break, so a file that does not end with one cannot run into the next section's marker; nothing
    when the app has not written it yet."""
    return f"[ -e {quote(path)} ] && {{ head -c {PREFS_BYTES + 1} {quote(path)}; echo; }}"


def prefs_table(lines: list[str]) -> Table:
    """A SharedPreferences file's entries by name, row `{type, value}` (a set's value is its sorted
    strings); no entries when the file does not exist. A file the app would not load (not its XML,
    over PREFS_BYTES, a name twice, an element it never writes) is one `__unreadable__` row: a
    change, never "no preferences"."""
    text = "\n".join(lines)
    if not text.strip():
        return {}
    if len(text.encode()) > PREFS_BYTES:
        return unreadable_row(f"over {PREFS_BYTES} bytes")
    try:
        # Safe on a hostile file: expat refuses entity expansion bombs, and nothing external is loaded.
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        return unreadable_row(f"not XML: {exc}")
    if root.tag != "map":
        return unreadable_row(f"root element <{root.tag}>, not <map>")
    table: Table = {}
    for el in root:
        name = el.get("name")
        if el.tag not in PREF_TYPES or name is None or name in table:
            return unreadable_row(f"<{el.tag} name={name!r}> is not one preference")
        if el.tag == "string":
            value: Any = el.text or ""
        elif el.tag == "set":
            value = tuple(sorted(item.text or "" for item in el))
        else:
            value = el.get("value", "")
        table[name] = {"type": el.tag, "value": value}
    return table


# -q: an unprintable character in a name as '?', so no file name an agent chose (one holding a
# newline and a made-up `ls -l` line) can add an entry to the listing.
LIST_FILES = f"ls -lRq {SHARED_STORAGE}"


# A size as `ls` and `stat` print one. Bounded: a hostile binary's 5,000-digit number would make int()
# raise; and ASCII only (str.isdigit() takes "²", which int() refuses).
SIZE = re.compile(r"[0-9]{1,19}")


def listed_files(lines: list[str]) -> tuple[Table, list[str]]:
    """`ls -lR` of shared storage as entries keyed by path (sha1 not yet filled), and the files
    small enough to hash."""
    entries: Table = {}
    small: list[str] = []
    folder = ""
    for line in lines:
        if line.startswith(SHARED_STORAGE) and line.endswith(":"):
            folder = line[:-1]
            continue
        parts = line.split(maxsplit=7)
        if not folder or len(parts) < 8 or parts[0] == "total":
            continue
        path = f"{folder}/{parts[7]}"
        if parts[0].startswith("d"):
            entries[path] = {"type": "dir", "size": None, "sha1": None, "times": None}
            continue
        size = int(parts[4]) if SIZE.fullmatch(parts[4]) else None
        entries[path] = {"type": "file", "size": size, "sha1": None, "times": None}
        if size is not None and size <= HASH_LIMIT:
            small.append(path)
    return entries, small


AMBIGUOUS = "?"  # a path printed twice (a file named with a line break and a made-up line): no value
SUM_LINE = re.compile(r"([0-9a-f]{40})  (.+)")
MISSING_LINE = re.compile(r"sha1sum: (.+): No such file or directory")


def sha1_command(paths: list[str]) -> str:
    return "sha1sum " + " ".join(quote(p) for p in paths)


STAT_LINE = re.compile(r"([0-9]{1,19}) ([a-z ]+?) (/.+)")  # size, kind ("regular file", "directory"...), path
REGULAR = ("regular file", "regular empty file")


def stat_command(paths: list[str]) -> str:
    return "stat -c '%s %F %n' " + " ".join(quote(p) for p in paths) + " 2>/dev/null"


def parse_stats(lines: list[str]) -> dict[str, tuple[int, str]]:
    """`stat -c '%s %F %n'` output: each existing path's size in bytes and kind ("regular file",
    "directory", "symbolic link", ...)."""
    return {m.group(3): (int(m.group(1)), m.group(2)) for line in lines if (m := STAT_LINE.fullmatch(line))}


def not_readable(names: list[str], stats: dict[str, tuple[int, str]], limit: int) -> str:
    """Why the judge will not pull these files (a database and its -wal, a file a check reads), or
    "" when it will: one larger than `limit`, or not a regular file (a folder or a link where an app
    keeps a file). A file `stats` does not list does not exist, which is no reason."""
    for name in names:
        size, kind = stats.get(name, (0, "regular file"))
        if kind not in REGULAR:
            return f"{name} is a {kind}"
        if size > limit:
            return f"{size} bytes, over {limit}"
    return ""


def parse_sums(lines: list[str]) -> tuple[dict[str, str], set[str]]:
    """`sha1sum` output: the sha1 of each file it read (AMBIGUOUS for a path printed twice), and the
    files the device says do not exist (a file in neither was unreadable)."""
    sums: dict[str, str] = {}
    missing: set[str] = set()
    for line in lines:
        if found := SUM_LINE.fullmatch(line):
            sums[found.group(2)] = AMBIGUOUS if found.group(2) in sums else found.group(1)
        elif gone := MISSING_LINE.fullmatch(line):
            missing.add(gone.group(1))
    return sums, missing


# The sha1 of every small file in shared storage, and for every larger one (which hashing would make a
# capture cost what the largest file a device holds does) its modification and change times: an
# overwrite of the same size moves both, and a device's ctime cannot be set back (`touch` sets only the
# others). One walk, on the device: naming each file on the command line would pass the 128 KiB a
# device's exec allows one argument (`sh -c` gets the whole line) once a device holds a few thousand
# files, and a capture would fail on an emulator. `-size -Nc`: under N bytes.
HASH_SHARED = (
    f"find {SHARED_STORAGE} -type f \\( -size -{HASH_LIMIT + 1}c -exec sha1sum {{}} + -o"
    " -exec stat -c '%y %z %n' {} + \\)"
)
STAMP = r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})? [+-][0-9]{4}"
TIMES_LINE = re.compile(f"({STAMP} {STAMP}) (/.+)")
SHARED_COMMANDS = {"files": LIST_FILES, "shared_sums": HASH_SHARED}


def parse_times(lines: list[str]) -> dict[str, str]:
    """The `stat -c '%y %z %n'` lines of HASH_SHARED's output: each file's two times, as one string,
    by path; a path printed twice is AMBIGUOUS."""
    times: dict[str, str] = {}
    for line in lines:
        if m := TIMES_LINE.fullmatch(line):
            times[m.group(2)] = AMBIGUOUS if m.group(2) in times else m.group(1)
    return times


def shared_table(sections: dict[str, list[str]]) -> Table:
    """The `files` table from SHARED_COMMANDS' sections (one round trip): the listing, with the sha1
    of each small file and the times of each larger one. A file either misses (a link, a name
    `ls -q` had to change) keeps none: its size tells."""
    entries, small = listed_files(sections["files"])
    sums, _ = parse_sums(sections["shared_sums"])
    for path in small:
        entries[path]["sha1"] = sums.get(path)
    hashed = set(small)
    for path, times in parse_times(sections["shared_sums"]).items():
        entry = entries.get(path)
        if entry is not None and entry["type"] == "file" and path not in hashed:
            entry["times"] = times
    return entries


def read_files(device: TaskDevice) -> Table:
    """Files and folders in shared storage keyed by path: type, size, and sha1 or times."""
    return shared_table(run_sections(device, SHARED_COMMANDS))


class Prelude(Protocol):
    """Shell commands a capture runs first, in its round trip (setup steps still queued)."""

    def script(self) -> str: ...  # "" when there is nothing to run

    def check(self, output: str) -> list[str]: ...  # raises when a command failed


def capture(device: TaskDevice, spec: StateSpec, before: Prelude | None = None) -> StateSnapshot:
    """Settings, files in shared storage, the time zone, and every row of every database and every
    preference `spec` declares.

    One shell round trip reads the settings, the file listing, the time zone and the sha1, size and
    kind of every database file; one too large or not a file is not pulled (`unreadable`), one
    whose bytes (with its -wal) were read before is taken from the tables kept for them, and only
    the others are pulled, in one sync session. Small files in shared storage are hashed on the
    device in the same round trip, and the times of larger ones read. `before`'s commands (the last
    setup steps) run first in it and are checked.
    """
    decls = list(spec.databases.values())
    paths = [spec.path_on(decl.path, device.profile) for decl in decls]
    files = [p for path in paths for p in (path, path + "-wal")]
    prefs = {f"prefs.{d.name}": spec.path_on(d.path, device.profile) for d in spec.prefs.values()}
    sections = run_sections(
        device,
        {
            **SETTINGS_COMMANDS,
            **SHARED_COMMANDS,
            "zone": f"getprop {TIMEZONE_PROP}",
            "sums": sha1_command(files),
            "stats": stat_command(files),
            **{name: read_prefs_command(path) for name, path in prefs.items()},
        },
        before.script() if before is not None else "",
    )
    if before is not None:
        before.check("\n".join(sections[""]))
    snap = StateSnapshot(tables=settings_tables(sections))
    snap.tables.update((name, prefs_table(sections[name])) for name in prefs)
    snap.tables["files"] = shared_table(sections)
    zone = "".join(sections["zone"]).strip() or "UTC"
    snap.tables["props"] = {TIMEZONE_PROP: {"value": zone}}
    sums, missing = parse_sums(sections["sums"])
    stats = parse_stats(sections["stats"])
    to_pull: list[tuple[DatabaseDecl, str]] = []
    for decl, path in zip(decls, paths, strict=True):
        if path in missing:
            continue  # the device says the database does not exist: no rows
        if reason := not_readable([path, path + "-wal"], stats, MAX_DATABASE_BYTES):
            snap.tables.update(unreadable(decl.name, reason))
            continue
        wal = "" if path + "-wal" in missing else sums.get(path + "-wal")
        kept = kept_tables(decl.name, sums.get(path), wal, spec.entities)
        if kept is None:
            to_pull.append((decl, path))
        else:
            snap.tables.update(kept)
    if to_pull:
        names = [p for _, path in to_pull for p in (path, path + "-wal")]
        contents = device.pull_many(names, limit=MAX_DATABASE_BYTES)
        for (decl, path), data, wal_data in zip(to_pull, contents[::2], contents[1::2], strict=True):
            if reason := grew([path, path + "-wal"], [data, wal_data], MAX_DATABASE_BYTES):
                snap.tables.update(unreadable(decl.name, reason))
            elif data is not None:
                snap.tables.update(database_tables(decl.name, data, wal_data, spec.entities))
    return snap


def grew(names: list[str], contents: list[bytes | None], limit: int) -> str:
    """Why files pulled with `limit` are not read: one came back longer, having grown past the
    bound after its size was asked; "" when none did."""
    for name, content in zip(names, contents, strict=True):
        if content is not None and len(content) > limit:
            return f"{name} grew over {limit} bytes while being read"
    return ""


PARSED_KEPT = 64
# Tables of database images read before, by name, sha1 of the bytes (and of the -wal) and entity
# readers: a reset restores the same databases every episode, so most captures find every database
# here by the sha1 the device reports and pull none. Callers only read tables.
_parsed: dict[tuple[Any, ...], dict[str, Table]] = {}
EMPTY_SHA1 = hashlib.sha1(b"").hexdigest()


def _key(db: str, data_sha1: str, wal_sha1: str, entities: dict[str, EntityDecl]) -> tuple[Any, ...]:
    readers = tuple((e.name, e.read) for e in entities.values() if e.db == db)
    # An empty -wal holds nothing: the same image as none.
    return (db, data_sha1, "" if wal_sha1 == EMPTY_SHA1 else wal_sha1, readers)


def kept_tables(
    db: str, data_sha1: str | None, wal_sha1: str | None, entities: dict[str, EntityDecl]
) -> dict[str, Table] | None:
    """The tables of a database image read before, by the sha1 of its bytes and of its -wal ("" when
    there is none); None when either is unknown or the image was not read (or no longer kept)."""
    if data_sha1 is None or wal_sha1 is None:
        return None
    key = _key(db, data_sha1, wal_sha1, entities)
    tables = _parsed.pop(key, None)
    if tables is None:
        return None
    _parsed[key] = tables  # most recently used last
    return dict(tables)


def database_tables(
    db: str, data: bytes, wal: bytes | None, entities: dict[str, EntityDecl]
) -> dict[str, Table]:
    """Tables and entities of one pulled database image, read once per distinct image."""
    data_sha1, wal_sha1 = hashlib.sha1(data).hexdigest(), hashlib.sha1(wal).hexdigest() if wal else ""
    kept = kept_tables(db, data_sha1, wal_sha1, entities)
    if kept is not None:
        return kept
    try:
        with contextlib.closing(open_copy(data, wal)) as conn:
            tables = read_tables(db, conn, entities)
    except (sqlite3.Error, ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        # Not a database, broken, built to be costly, or rows of a shape no reader expects.
        tables = unreadable(db, f"{type(exc).__name__}: {exc}")
    while len(_parsed) >= PARSED_KEPT:
        _parsed.pop(next(iter(_parsed)))
    _parsed[_key(db, data_sha1, wal_sha1, entities)] = tables
    return dict(tables)


def diff(before: StateSnapshot, after: StateSnapshot) -> list[Change]:
    """Every row inserted, deleted or updated, table by table, in a stable order."""
    changes: list[Change] = []
    for name in sorted(set(before.tables) | set(after.tables)):
        old, new = before.table(name), after.table(name)
        for key in sorted(set(old) | set(new), key=_key_order):
            if key not in new:
                changes.append(Change("delete", name, key, old[key], None))
            elif key not in old:
                changes.append(Change("insert", name, key, None, new[key]))
            elif not same_row(old[key], new[key]):
                changes.append(Change("update", name, key, old[key], new[key]))
    return changes


def _key_order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (1 << 62, key)


def shared_path(path: str) -> str:
    """A shared-storage path as the diff keys it (/sdcard -> /storage/emulated/0)."""
    for alias in ("/sdcard", "/mnt/sdcard", "/storage/self/primary"):
        if path == alias or path.startswith(alias + "/"):
            return SHARED_STORAGE + path[len(alias) :]
    return path
