"""SQLite connections for SQL that a device user wrote (`sqlite3`, `content --where`): confined.

An authorizer refuses what reaches past the database file (ATTACH, DETACH and so VACUUM INTO,
extension loading, pointer-taking functions such as `fts3_tokenizer`, which a forged pointer turns
into a crash or code execution) and a progress handler interrupts a statement after STATEMENT_CPU
seconds of CPU (a recursive query that never ends). Run these connections off the event loop:
SQLite releases the GIL while it steps, so the other devices keep answering.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from mgfarm.sim.system.space import DatabaseRoom, Space

STATEMENT_CPU = 2.0  # CPU seconds one statement may use, then "interrupted"
PROGRESS_STEPS = 200_000  # VM steps between deadline checks (each check takes the GIL: not too often)
MAX_ROWS = 200_000  # rows one query may return into memory
MAX_BYTES = 64 * 1024 * 1024  # bytes of text one query may return into memory

# Functions that take or return raw pointers, or reach the host (extensions, files).
DENIED_FUNCTIONS = frozenset(
    {
        "fts3_tokenizer",
        "fts5",
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "zipfile",
        "sqlar_uncompress",
    }
)
# Pragmas that name host paths, let a statement corrupt the schema the checker trusts, or change
# process-wide heap limits (every device of the process would feel them).
DENIED_PRAGMAS = frozenset(
    {"temp_store_directory", "data_store_directory", "writable_schema", "hard_heap_limit", "soft_heap_limit"}
)
MAX_VALUE = 16 * 1024 * 1024  # bytes of one string or blob (`hex(zeroblob(500000000))` is 1 GB)
# Pragmas only `connect` sets, a device's SQL may read them: the database's cap is the device's free
# space (system/space.py); temporary tables and sorts stay in memory, where the worker's memory cap
# bounds them (SQLite then fails with "out of memory"): on disk they were outside the device's
# space, and one `CREATE TEMP TABLE` of zeroblobs wrote 1 GB to the host.
BOUNDING_PRAGMAS = frozenset({"max_page_count", "temp_store"})


class Guard:
    """The authorizer and statement deadline of one connection."""

    def __init__(self, cpu: float = STATEMENT_CPU) -> None:
        self.cpu = cpu
        self.started = time.thread_time()
        self.denied = ""
        self.room: DatabaseRoom | None = None  # a writer's share of the device's space (`close`)

    def start(self) -> None:
        """Call before each statement: its CPU budget starts now (in this thread)."""
        self.started = time.thread_time()
        self.denied = ""

    def authorize(
        self, action: int, arg1: str | None, arg2: str | None, db: str | None, trig: str | None
    ) -> int:
        if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
            self.denied = "ATTACH, DETACH and VACUUM INTO are not allowed on this device"
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in DENIED_FUNCTIONS:
            self.denied = f"{arg2}() is not allowed on this device"
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in DENIED_PRAGMAS:
            self.denied = f"PRAGMA {arg1} is not allowed on this device"
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in BOUNDING_PRAGMAS and arg2 is not None:
            self.denied = f"PRAGMA {arg1} is set by this device (it bounds what SQL may write)"
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    def progress(self) -> int:
        """Non-zero interrupts the running statement (sqlite3.OperationalError: interrupted)."""
        return 1 if time.thread_time() - self.started > self.cpu else 0


def confine(conn: sqlite3.Connection, guard: Guard | None = None) -> Guard:
    """Install the authorizer and the deadline on `conn`; returns the Guard (call start() per
    statement when a connection runs several)."""
    guard = guard or Guard()
    conn.set_authorizer(guard.authorize)
    conn.set_progress_handler(guard.progress, PROGRESS_STEPS)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_VALUE)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    return guard


def connect(
    path: Path | str, uri: bool = False, autocommit: bool = False, space: Space | None = None
) -> tuple[sqlite3.Connection, Guard]:
    """A confined connection to `path`, a host path already resolved beneath a device root
    (`autocommit`: no implicit transactions, as the sqlite3 shell runs statements). With `space`,
    a writer: the database grows by the room the device has left at most (SQLITE_FULL beyond), held
    until `close`."""
    if autocommit:
        conn = sqlite3.connect(path, uri=uri, isolation_level=None)
    else:
        conn = sqlite3.connect(path, uri=uri)
    conn.execute("PRAGMA temp_store = MEMORY")
    room = None
    if space is not None:
        try:
            room = DatabaseRoom(space, conn, Path(path))  # before the authorizer refuses its pragma
        except sqlite3.Error:
            conn.close()
            raise
    guard = confine(conn)
    guard.room = room
    return conn, guard


def close(conn: sqlite3.Connection, guard: Guard) -> None:
    """Close a connection from `connect`, then count what it wrote in the device's space."""
    try:
        conn.close()
    finally:
        if guard.room is not None:
            guard.room.close()
            guard.room = None


def fetch_bounded(cur: sqlite3.Cursor) -> list[tuple[object, ...]]:
    """The rows of `cur`, refusing results that would fill memory (an endless recursive CTE
    produces millions of rows before its deadline)."""
    rows: list[tuple[object, ...]] = []
    size = 0
    while batch := cur.fetchmany(1000):
        rows.extend(batch)
        size += sum(len(v) if isinstance(v, str | bytes) else 8 for row in batch for v in row)
        if len(rows) > MAX_ROWS or size > MAX_BYTES:
            raise sqlite3.OperationalError("result too large (more than 200,000 rows or 64 MiB)")
    return rows


def error_text(exc: sqlite3.Error, guard: Guard) -> str:
    """SQLite's message, with the reason when the authorizer refused (`not authorized` says little)."""
    text = str(exc)
    if guard.denied and ("not authorized" in text or "authorization denied" in text):
        return f"{text}: {guard.denied}"
    return text
