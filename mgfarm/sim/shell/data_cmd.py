"""`content` (query/insert/update/delete on providers) and `sqlite3` with AOSP's output formats."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import stat as statmod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import run_bounded
from mgfarm.sim.system import sqlsafe
from mgfarm.sim.system.fs import DeviceFS, PathEscapeError
from mgfarm.sim.system.providers import ProviderError, SqliteProvider, Value, split_uri

CONTENT_USAGE = """usage: adb shell content [subcommand] [options]

usage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]
  <URI> a content provider URI.
  <BINDING> binds a typed value to a column and is formatted:
  <COLUMN_NAME>:<TYPE>:<COLUMN_VALUE> where:
  <TYPE> specifies data type such as:
  b - boolean, s - string, i - integer, l - long, f - float, d - double, n - null
  Note: Omit the value for passing an empty string, e.g column:s:

usage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>]
  <WHERE> is a SQL style where clause in quotes (You have to escape single quotes - see example below).

usage: adb shell content delete --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]\
 [--where <WHERE>]

usage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>]\
 [--where <WHERE>] [--sort <SORT_ORDER>]
  <PROJECTION> is a list of colon separated column names and is formatted:
  <COLUMN_NAME>[:<COLUMN_NAME>...]
  <SORT_ORDER> is the order in which rows in the result should be sorted.
"""


class UsageError(Exception):
    """Bad `content` arguments: printed as `[ERROR] message` followed by the usage text."""


def parse_binding(spec: str) -> tuple[str, Value]:
    """`col:TYPE:value` as Content.java reads it."""
    parts = spec.split(":", 2)
    if len(parts) < 2:
        raise UsageError(f"Binding not well formed: {spec}")
    column, kind = parts[0], parts[1]
    raw = parts[2] if len(parts) > 2 else ""
    try:
        if kind == "s":
            return column, raw
        if kind in ("i", "l"):
            # Integer.parseInt / Long.parseLong: plain digits only, and within the type's range.
            bits = 31 if kind == "i" else 63
            if not re.fullmatch(r"[-+]?[0-9]+", raw) or not -(2**bits) <= int(raw) < 2**bits:
                raise ValueError(raw)
            return column, int(raw)
        if kind in ("f", "d"):
            return column, float(raw)
        if kind == "b":
            return column, 1 if raw.lower() == "true" else 0  # Boolean.parseBoolean: "1" is false
        if kind == "n":
            return column, None
    except ValueError as exc:
        raise UsageError(f"Invalid binding value: {spec}") from exc
    raise UsageError(f"Unsupported type: {kind}")


def format_value(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return "BLOB"
    return str(value)


def format_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    if not rows:
        return "No result found.\n"
    out = []
    for i, row in enumerate(rows):
        cells = ", ".join(f"{c}={format_value(v)}" for c, v in zip(columns, row, strict=False))
        out.append(f"Row: {i} {cells}\n")
    return "".join(out)


def _content_args(args: list[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {"bind": {}}
    while args:
        opt = args.pop(0)
        if opt not in ("--uri", "--user", "--projection", "--where", "--sort", "--bind", "--method", "--arg"):
            raise UsageError(f"Unsupported argument: {opt}")
        if not args:
            raise UsageError(f'Argument expected after "{opt}"')
        value = args.pop(0)
        if opt == "--bind":
            column, bound = parse_binding(value)
            opts["bind"][column] = bound
        else:
            opts[opt[2:]] = value
    if "uri" not in opts:
        raise UsageError("Content provider URI not specified. Did you specify --uri argument?")
    return opts


@command("content")
async def content(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args:
        inv.out(CONTENT_USAGE)
        return 0
    verb = args[0]
    try:
        if verb not in ("query", "insert", "update", "delete"):
            raise UsageError(f"Unsupported operation: {verb}")
        opts = _content_args(args[1:])
        if verb == "insert" and not opts["bind"]:
            raise UsageError("Bindings not specified. Did you specify --bind argument(s)?")
    except UsageError as exc:
        inv.err(f"[ERROR] {exc}\n{CONTENT_USAGE}")
        return 1
    uri = opts["uri"]
    registry = inv.device.services.providers
    try:
        provider, _ = registry.resolve(uri)

        def call() -> str:
            if verb == "query":
                projection = opts["projection"].split(":") if "projection" in opts else None
                columns, rows = provider.query(uri, projection, opts.get("where"), [], opts.get("sort"))
                return format_rows(columns, rows)
            if verb == "insert":
                provider.insert(uri, opts["bind"])
            elif verb == "update":
                provider.update(uri, opts["bind"], opts.get("where"), [])
            else:
                provider.delete(uri, opts.get("where"), [])
            return ""

        # A SQLite provider runs the user's where clause in a worker thread (its connection is its
        # own and confined), so a slow query cannot stall the other devices of this process.
        inv.out(await run_bounded(call) if isinstance(provider, SqliteProvider) else call())
    except ProviderError as exc:
        authority = uri
        with contextlib.suppress(ProviderError):
            authority = split_uri(uri)[0]
        inv.err(f"Error while accessing provider:{authority}\njava.lang.IllegalArgumentException: {exc}\n")
        return 1
    return 0


def sqlite_text(value: Any) -> bytes:
    """A value as sqlite3's list mode prints it (NULL as empty, blobs raw)."""
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, float):
        return (repr(value) if value != int(value) or abs(value) >= 1e15 else f"{value:.1f}").encode()
    return str(value).encode()


def split_statements(sql: str) -> list[str]:
    """Complete statements in order; a trailing one without `;` counts too."""
    out: list[str] = []
    buf = ""
    for piece in sql.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \t\r\n;"):
                out.append(buf)
            buf = ""
    if buf.strip(" \t\r\n;"):
        out.append(buf.rstrip(";"))
    return out


# What `sqlite3 -version` prints on Android 13 (API 33 ships SQLite 3.32).
SQLITE_VERSION = "3.32.2 2020-06-04 12:58:43 ec02243ea6ce33b090870ae55ab8aa2534b54d216d45c4aa2fdbb00e86861e8c"
SQLITE_USAGE = """Usage: sqlite3 [OPTIONS] FILENAME [SQL]
FILENAME is the name of an SQLite database. A new database is created
if the file does not previously exist.
OPTIONS include:
   -bail                stop after hitting an error
   -batch               force batch I/O
   -cmd COMMAND         run "COMMAND" before reading stdin
   -header              turn headers on
   -help                show this message
   -list                set output mode to 'list'
   -noheader            turn headers off
   -readonly            open the database read-only
   -separator SEP       set output column separator. Default: '|'
   -version             show SQLite version
"""
SQLITE_FLAGS = ("-header", "-noheader", "-batch", "-bail", "-list", "-readonly", "-interactive", "-echo")
MAX_SQL_OUTPUT = 64 * 1024 * 1024  # bytes one sqlite3 command may print
REFUSED_DOTS: tuple[str, ...] = (
    ".shell",
    ".system",
    ".load",
    ".output",
    ".once",
    ".backup",
    ".save",
    ".restore",
    ".import",
)
REFUSED_DOTS += (".read", ".clone", ".excel", ".archive", ".ar", ".log", ".trace")


EMPTY_NAME = '""'


class OutputFull(Exception):
    """A query printed more than MAX_SQL_OUTPUT."""


class Quit(Exception):
    """`.quit` / `.exit`: the remaining input is not run."""


@dataclass
class SqlRun:
    """One sqlite3 invocation, run in a worker thread; output is collected, then printed."""

    fs: DeviceFS
    cwd: str
    sep: bytes = b"|"
    header: bool = False
    readonly: bool = False
    out: bytearray = field(default_factory=bytearray)
    err: list[str] = field(default_factory=list)
    pending_open: str = ""  # the file a `.open` names, opened by run() in place of the current one

    def emit(self, data: bytes) -> None:
        self.out += data
        if len(self.out) > MAX_SQL_OUTPUT:
            raise OutputFull("output larger than 64 MiB")

    def open(self, db: str) -> tuple[sqlite3.Connection, sqlsafe.Guard]:
        """A confined connection to a device path, resolved beneath the root (links in device terms);
        the host path SQLite opens contains no link, and no device link resolves on the host."""
        if db in ("", ":memory:"):
            return sqlsafe.connect(":memory:", autocommit=True)
        try:
            with self.fs.locate(db, self.cwd) as loc:
                if loc.name == ".":
                    raise IsADirectoryError(21, "Is a directory", db)
                with contextlib.suppress(FileNotFoundError):
                    if not statmod.S_ISREG(loc.lstat().st_mode):
                        raise IsADirectoryError(21, "not a regular file", db)
                self.fs.check(loc.path, "r", db)
                path = self.fs.root / loc.path.lstrip("/")
                # SQLite opens what it may not write read-only: its writes then fail.
                try:
                    self.fs.check(loc.path, "w", db)
                    writable = True
                except OSError:
                    writable = False
        except (OSError, PathEscapeError) as exc:
            raise sqlite3.OperationalError(
                f'unable to open database "{db}": unable to open database file'
            ) from exc
        if self.readonly or not writable:
            return sqlsafe.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, autocommit=True)
        conn, guard = sqlsafe.connect(path, autocommit=True, space=self.fs.space)
        conn.execute("PRAGMA synchronous=OFF")  # task setup runs many INSERTs; an fsync each costs ~20 ms
        return conn, guard

    def run(self, db: str, parts: list[str]) -> int:
        """Statements and dot commands in order, rows in list mode; stops at the first error (exit 1)."""
        try:
            conn, guard = self.open(db)
        except sqlite3.Error as exc:
            self.err.append(f"Error: {exc}\n")
            return 1
        try:
            for part in parts:
                guard.start()
                try:
                    if part.startswith("."):
                        if self.dot(conn, part) is None:
                            sqlsafe.close(conn, guard)
                            conn, guard = self.open(self.pending_open)
                        continue
                    cur = conn.execute(part)
                    first = True
                    while batch := cur.fetchmany(500):
                        if first and self.header and cur.description:
                            self.emit(self.sep.join(d[0].encode() for d in cur.description) + b"\n")
                        first = False
                        for row in batch:
                            self.emit(self.sep.join(sqlite_text(v) for v in row) + b"\n")
                except (sqlite3.Error, ValueError, OverflowError, OutputFull, MemoryError) as exc:
                    text = sqlsafe.error_text(exc, guard) if isinstance(exc, sqlite3.Error) else str(exc)
                    text = text or "out of memory"  # SQLITE_NOMEM at the worker's memory cap
                    self.err.append(f"Error: {text}\n")
                    return 1
                except Quit:
                    return 0
        finally:
            sqlsafe.close(conn, guard)
        return 0

    def dot(self, conn: sqlite3.Connection, line: str) -> bool | None:
        """The dot commands scripts use; None asks run() to reopen on `self.pending_open`."""
        words = line.split()
        name = words[0]
        if name == ".tables":
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type IN ('table','view') "
                    "AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
            self.emit("".join(n + "\n" for n in names).encode())
        elif name == ".schema":
            sql = "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
            params: tuple[str, ...] = ()
            if len(words) > 1:
                sql += " AND tbl_name = ?"
                params = (words[1],)
            self.emit("".join(r[0] + ";\n" for r in conn.execute(sql, params)).encode())
        elif name in (".headers", ".header") and len(words) > 1:
            self.header = words[1].lower() in ("on", "1", "yes", "true")
        elif name == ".separator" and len(words) > 1:
            self.sep = words[1].encode()
        elif name in (".quit", ".exit"):
            raise Quit
        elif name == ".databases":
            for _, schema, file in conn.execute("PRAGMA database_list"):
                self.emit(f"{schema}: {file or EMPTY_NAME} r/w\n".encode())
        elif name == ".open" and len(words) > 1:
            self.pending_open = words[-1]  # resolved beneath the root like the command's own file
            return None
        elif name in REFUSED_DOTS:
            raise sqlite3.OperationalError(f"{name} is not available on this device")
        else:
            raise sqlite3.OperationalError(f'unknown command or invalid arguments:  "{name[1:]}"')
        return True


@command("sqlite3")
async def sqlite3_cmd(inv: Invocation) -> int:
    args = inv.argv[1:]
    run = SqlRun(inv.fs, inv.cwd)
    positional: list[str] = []
    cmds: list[str] = []
    while args:
        arg = args.pop(0)
        flag = "-" + arg.lstrip("-") if arg.startswith("-") and len(arg) > 1 else arg
        if flag in ("-separator", "-cmd", "-newline", "-nullvalue", "-vfs") and args:
            value = args.pop(0)
            if flag == "-separator":
                run.sep = value.encode()
            elif flag == "-cmd":
                cmds.append(value)
        elif flag == "-version":
            inv.out(SQLITE_VERSION + "\n")
            return 0
        elif flag == "-help":
            inv.err(SQLITE_USAGE)
            return 0
        elif flag in SQLITE_FLAGS:
            run.header = flag == "-header" or (run.header and flag != "-noheader")
            run.readonly = run.readonly or flag == "-readonly"
        elif flag.startswith("-") and flag != "-":
            # As the real shell: an unknown option is an error, never a database file named `-x`.
            inv.err(f"sqlite3: Error: unknown option: {arg}\nUse -help for a list of options.\n")
            return 1
        else:
            positional.append(arg)
    if not positional:
        inv.err("Error: no database file given\n")
        return 1
    db = positional[0]
    sql = " ".join(positional[1:]) if len(positional) > 1 else (await inv.io.stdin.read()).decode()
    parts = [p for c in cmds for p in _script_parts(c)] + _script_parts(sql)
    # In a worker thread: SQLite releases the GIL while it steps, so the event loop keeps serving
    # the other devices; the statement deadline (sqlsafe) ends a query that never finishes.
    status = await run_bounded(run.run, db, parts)
    # No host path reaches the user (PRAGMA database_list, error messages).
    root = str(inv.fs.root).encode()
    inv.out(bytes(run.out).replace(root + b"/", b"/").replace(root, b"/"))
    inv.err(inv.fs.scrub("".join(run.err)))
    return status


def _script_parts(sql: str) -> list[str]:
    """Dot commands (whole lines starting with `.`) and SQL statements, in order."""
    parts: list[str] = []
    pending: list[str] = []
    for line in sql.splitlines():
        if line.strip().startswith(".") and not "".join(pending).strip():
            parts.append(line.strip())
            pending = []
        else:
            pending.append(line)
    parts.extend(split_statements("\n".join(pending)))
    return parts
