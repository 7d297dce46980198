"""A cheap fingerprint of an SQLite database file, to skip work whose inputs have not changed."""

from __future__ import annotations

import os
from pathlib import Path

from mgfarm.sim.ui.kept import settled


def db_version(path: Path) -> tuple[int, ...]:
    """Changes whenever the database does: file replaced (inode), resized or written (times, and
    SQLite's change counter, bumped by every write transaction: times alone are too coarse), or a
    write-ahead log present (its writes reach the file only at a checkpoint). () when there is no file.
    """
    version, _ = _version_and_change(path)
    return version


def settled_db_version(path: Path) -> tuple[int, ...] | None:
    """db_version, or None while the file or its log changed within the last tick of the kernel's
    clock: a log rewritten in place within a tick can keep its size and times (`kept.settled`)."""
    version, changed_ns = _version_and_change(path)
    return version if settled(changed_ns) else None


def _version_and_change(path: Path) -> tuple[tuple[int, ...], int]:
    """The version, and the latest change time of the file and its log (0 when there is no file)."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            counter = os.pread(fh.fileno(), 4, 24)
    except FileNotFoundError:
        return (), 0
    changed = st.st_ctime_ns
    try:
        wal = os.stat(f"{path}-wal")
        log: tuple[int, ...] = (wal.st_ino, wal.st_size, wal.st_mtime_ns, wal.st_ctime_ns)
        changed = max(changed, wal.st_ctime_ns)
    except FileNotFoundError:
        log = ()
    version = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, int.from_bytes(counter, "big"), *log)
    return version, changed
