"""A device's SQLite database files as an Android process opens them: whether one is usable, and
removing one with its journals (SQLiteOpenHelper and DefaultDatabaseErrorHandler's part)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
JOURNALS = ("-journal", "-wal", "-shm")


def usable_database(path: Path) -> bool:
    """Whether `path` is a database SQLite opens with its content: a file that starts with SQLite's
    header. A folder is left as it is (the app then fails, as it would on a phone)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        return os.pread(fd, len(SQLITE_HEADER), 0) == SQLITE_HEADER
    except OSError:
        return True  # a folder: not made again
    finally:
        os.close(fd)


def remove_database(path: Path) -> None:
    """Remove a database (a folder a root shell put in its place too) and its journal files, as
    DefaultDatabaseErrorHandler deletes a corrupt one before it is made again."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    for journal in JOURNALS:
        stale = path.with_name(path.name + journal)
        if not stale.is_dir():
            stale.unlink(missing_ok=True)
