"""A cheap fingerprint of an SQLite database file, to skip work whose inputs have not changed."""

from __future__ import annotations

import os
from pathlib import Path


def db_version(path: Path) -> tuple[int, ...]:
    """Changes whenever the database does: file replaced (inode), resized or written (mtime, and
    SQLite's change counter, bumped by every write transaction: mtime alone is too coarse), or a
    write-ahead log present (its writes reach the file only at a checkpoint). () when there is no file.
    """
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            counter = os.pread(fh.fileno(), 4, 24)
    except FileNotFoundError:
        return ()
    try:
        wal = os.stat(f"{path}-wal")
        log: tuple[int, ...] = (wal.st_ino, wal.st_size, wal.st_mtime_ns)
    except FileNotFoundError:
        log = ()
    return (st.st_ino, st.st_size, st.st_mtime_ns, int.from_bytes(counter, "big"), *log)
