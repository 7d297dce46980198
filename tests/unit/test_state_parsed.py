"""A database image read once is not read again, and a changed image is never served stale tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mgfarm.tasks.state import EntityDecl, Table, database_tables


def image(tmp_path: Path, rows: list[tuple[int, str]]) -> bytes:
    path = tmp_path / f"db{len(list(tmp_path.iterdir()))}.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (_id INTEGER PRIMARY KEY, v TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", rows)
    conn.close()
    return path.read_bytes()


def test_same_bytes_give_the_same_rows_and_new_bytes_new_rows(tmp_path: Path) -> None:
    first = image(tmp_path, [(1, "a"), (2, "b")])
    again = database_tables("db", first, None, {})
    assert (
        again
        == database_tables("db", first, None, {})
        == {"db.t": {"1": {"_id": 1, "v": "a"}, "2": {"_id": 2, "v": "b"}}}
    )
    changed = image(tmp_path, [(1, "a"), (2, "c")])
    assert database_tables("db", changed, None, {})["db.t"]["2"] == {"_id": 2, "v": "c"}
    assert database_tables("other", first, None, {}) == {"other.t": again["db.t"]}  # named by the database


def test_entities_are_read_with_the_readers_given(tmp_path: Path) -> None:
    data = image(tmp_path, [(1, "a")])

    def count(conn: sqlite3.Connection) -> Table:
        return {"n": {"rows": conn.execute("SELECT count(*) FROM t").fetchone()[0]}}

    entity = EntityDecl("db.count", "db", ("t",), count)
    assert database_tables("db", data, None, {}) == {"db.t": {"1": {"_id": 1, "v": "a"}}}
    assert database_tables("db", data, None, {"db.count": entity}) == {"db.count": {"n": {"rows": 1}}}
