"""`content` (query/insert/update/delete on providers) and `sqlite3` with AOSP's output formats."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from typing import Any

from mgfarm.sim.shell.files import CommandError, host_path
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.providers import ProviderError, ProviderRegistry, Value, split_uri

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
            return column, int(raw)
        if kind in ("f", "d"):
            return column, float(raw)
        if kind == "b":
            return column, 1 if raw.lower() == "true" or raw == "1" else 0
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
    registry: ProviderRegistry = inv.device.services["providers"]
    try:
        provider, _ = registry.resolve(uri)
        if verb == "query":
            projection = opts["projection"].split(":") if "projection" in opts else None
            columns, rows = provider.query(uri, projection, opts.get("where"), [], opts.get("sort"))
            inv.out(format_rows(columns, rows))
        elif verb == "insert":
            provider.insert(uri, opts["bind"])
        elif verb == "update":
            provider.update(uri, opts["bind"], opts.get("where"), [])
        else:
            provider.delete(uri, opts.get("where"), [])
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


def run_dot(conn: sqlite3.Connection, line: str) -> bytes:
    """The dot commands scripts use: .tables and .schema."""
    words = line.split()
    if words[0] == ".tables":
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table','view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        return "".join(n + "\n" for n in names).encode()
    if words[0] == ".schema":
        sql = "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
        params: tuple[str, ...] = ()
        if len(words) > 1:
            sql += " AND tbl_name = ?"
            params = (words[1],)
        return "".join(r[0] + ";\n" for r in conn.execute(sql, params)).encode()
    raise sqlite3.OperationalError(f'unknown command or invalid arguments:  "{words[0][1:]}"')


@command("sqlite3")
async def sqlite3_cmd(inv: Invocation) -> int:
    args = inv.argv[1:]
    sep, header = b"|", False
    positional: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in ("-separator", "-cmd") and args:
            value = args.pop(0)
            if arg == "-separator":
                sep = value.encode()
        elif arg in ("-header", "-noheader", "-batch", "-bail", "-list", "-readonly"):
            header = arg == "-header" or (header and arg != "-noheader")
        else:
            positional.append(arg)
    if not positional:
        inv.err("Error: no database file given\n")
        return 1
    db = positional[0]
    sql = " ".join(positional[1:]) if len(positional) > 1 else (await inv.io.stdin.read()).decode()
    try:
        path = host_path(inv, db)
        if not path.parent.is_dir():
            raise CommandError(f'unable to open database "{db}": unable to open database file')
    except CommandError as exc:
        inv.err(f"Error: {exc}\n")
        return 1
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        inv.err(f'Error: unable to open database "{db}": {exc}\n')
        return 1
    try:
        conn.execute("PRAGMA synchronous=OFF")  # task setup runs many INSERTs; an fsync each costs ~20 ms
        return await run_sql(inv, conn, _script_parts(sql), sep, header)
    except (sqlite3.Error, ValueError) as exc:  # e.g. `file is not a database`, before any statement
        inv.err(f"Error: {exc}\n")
        return 1
    finally:
        conn.close()


async def run_sql(
    inv: Invocation, conn: sqlite3.Connection, parts: list[str], sep: bytes, header: bool
) -> int:
    """Statements and dot commands in order, rows in list mode; stops at the first error (exit 1)."""
    for part in parts:
        try:
            if part.startswith("."):
                inv.out(run_dot(conn, part))
                continue
            cur = conn.execute(part)
            rows = cur.fetchall()
            if header and cur.description and rows:
                inv.out(sep.join(d[0].encode() for d in cur.description) + b"\n")
            for row in rows:
                inv.out(sep.join(sqlite_text(v) for v in row) + b"\n")
        except (sqlite3.Error, ValueError) as exc:
            inv.err(f"Error: {exc}\n")
            return 1
        await inv.io.stdout.maybe_flush()
    return 0


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
