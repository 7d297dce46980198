"""`sql` keeps a connection per database file; every statement still sees the file as it is now:
written by another connection, replaced, copied over in place, or deleted."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from mgfarm.sim.apps.base import sql


def make(path: Path, *names: str) -> None:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE IF NOT EXISTS t (name TEXT)")
        con.executemany("INSERT INTO t VALUES (?)", [(n,) for n in names])
    con.close()


def names(path: Path) -> list[str]:
    return [n for (n,) in sql(path, "SELECT name FROM t ORDER BY rowid")]


def test_each_statement_sees_the_file_as_it_is_now(tmp_path: Path) -> None:
    db = tmp_path / "app.db"
    make(db, "a")
    assert names(db) == ["a"]
    make(db, "b")  # another connection writes
    assert names(db) == ["a", "b"]
    sql(db, "INSERT INTO t VALUES (?)", ["c"])
    assert names(db) == ["a", "b", "c"]
    other = tmp_path / "other.db"
    make(other, "x")
    os.replace(other, db)  # a snapshot load or a push replaces the file
    assert names(db) == ["x"]
    copy = tmp_path / "copy.db"
    make(copy, "y")
    with open(copy, "rb") as src, open(db, "r+b") as dst:  # the same size, copied over in place
        assert os.fstat(src.fileno()).st_size == os.fstat(dst.fileno()).st_size
        shutil.copyfileobj(src, dst)
    assert names(db) == ["y"]
    db.unlink()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        names(db)
    make(db, "z")
    assert names(db) == ["z"]
