"""The device's data partition: its size, and what the device's files take of it.

A device is hostile: a shell loop of `cp` or `adb push` would otherwise fill the host's disk and stop
every farm on it. Like a phone's userdata partition, a device's files get a fixed size (and one entry
per 16 KiB, ext4's default inode ratio); a write beyond it fails with ENOSPC, "No space left on
device", as it would on the phone, while reading and deleting keep working.

What the files take is measured once by walking the device's root (~5 us an entry), then counted
as the sim writes: every write beneath the root is reserved before it happens (`reserve`), bytes
received outside it are held until they move in (`hold`), a database connection that may write
gets the room left as its cap and counts what it grew (`DatabaseRoom`), and an app's own write to
its database (one statement, as the user saves a note) is refused once the files fill the partition
and counted after it (`app_write`). Deleting leaves the count high; a count that says full is
checked by a fresh walk before a write is refused. A snapshot load replaces the files and the count
with what the snapshot recorded when saved (`set_usage`), or has the next question walk again
(`stale`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat as statmod
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from mgfarm.sim.system.dbfiles import JOURNALS

DEFAULT_STORAGE = 2 * 1024**3  # the emulator's data partition is 2-6 GiB; 64 devices must fit a host
MIN_STORAGE = 64 * 1024**2  # room for the golden image and what tasks push
BLOCK = 4096  # what an entry takes at least: a folder, a link, a file's first block
INODE_RATIO = 16 * 1024  # ext4's default: one inode per 16 KiB of the partition


def no_space(name: str = "") -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), name or None)


def measure(root: Path) -> tuple[int, int]:
    """(bytes, entries) the files under `root` take: allocated blocks, at least BLOCK an entry.

    Entries are read with lstat, never followed; one that vanishes mid-walk is skipped."""
    total, entries = 0, 0
    stack = [os.fspath(root)]
    while stack:
        try:
            listing = os.scandir(stack.pop())
        except OSError:
            continue
        with listing:
            for entry in listing:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                entries += 1
                total += max(st.st_blocks * 512, BLOCK)
                if statmod.S_ISDIR(st.st_mode):
                    stack.append(entry.path)
    return total, entries


def database_bytes(path: Path) -> int:
    """What a database and its journals take on disk now."""
    total = 0
    for suffix in ("", *JOURNALS):
        with contextlib.suppress(OSError):
            total += os.stat(f"{path}{suffix}", follow_symlinks=False).st_blocks * 512
    return total


# Each device's space by its root, for code that holds a host path only (an app's `sql`).
_by_root: weakref.WeakValueDictionary[str, Space] = weakref.WeakValueDictionary()


def space_of(path: Path) -> Space | None:
    """The space of the device whose root holds host path `path`, if any."""
    for parent in path.parents:
        found = _by_root.get(os.fspath(parent))
        if found is not None:
            return found
    return None


@contextlib.contextmanager
def app_write(path: Path) -> Iterator[None]:
    """An app writing its own database `path` (`apps.base.sql`): ENOSPC when the device's files
    fill its partition already, else the write happens and what the database grew is counted.

    Not capped like `DatabaseRoom`: an app's write is one statement holding what the user entered,
    and holding the room for a connection the app keeps would refuse every other writer."""
    space = space_of(path)
    if space is None:
        yield
        return
    space.refuse_when_full(path.name)
    before = database_bytes(path)
    try:
        yield
    finally:
        after = database_bytes(path)
        space.add(max(0, after - before), 1 if after and not before else 0)


class Space:
    """One device's partition: `size` bytes and `size // INODE_RATIO` entries under `root`.

    Shell commands and providers run in worker threads as well as on the event loop: a lock keeps
    each check and its count together."""

    def __init__(self, root: Path, size: int = DEFAULT_STORAGE) -> None:
        self.root = root
        self.size = size
        self._used: tuple[int, int] | None = None  # (bytes, entries): the last walk and writes since
        self.held = 0  # bytes outside the root that will move in (a push), or a writer's room
        self._freed = False  # something was deleted since the walk: the count may be high
        self._lock = threading.Lock()
        _by_root[os.fspath(root)] = self

    @property
    def max_entries(self) -> int:
        return max(1, self.size // INODE_RATIO)

    def usage(self) -> tuple[int, int]:
        """(bytes, entries) beneath the root, as counted (walked when not known)."""
        with self._lock:
            return self._usage()

    def _usage(self) -> tuple[int, int]:
        if self._used is None:
            self._used = measure(self.root)
            self._freed = False
        return self._used

    def used(self) -> int:
        return self.usage()[0] + self.held

    def free(self) -> int:
        return max(0, self.size - self.used())

    def stale(self) -> None:
        """The files were replaced (a snapshot load): the next question walks again."""
        with self._lock:
            self._used = None

    def set_usage(self, nbytes: int, entries: int) -> None:
        """The files were replaced by ones measured before (a snapshot's)."""
        with self._lock:
            self._used = (nbytes, entries)
            self._freed = False

    def freed(self) -> None:
        """Something was deleted, truncated or replaced: the count may be high until a walk."""
        self._freed = True

    def recount_if_freed(self) -> None:
        """Walk again when something was deleted since the count: `df` shows the room an `rm` made."""
        with self._lock:
            if self._freed:
                self._used = None

    def take_room(self) -> tuple[int, int]:
        """Hold every byte free for one writer, until `release`; returns (bytes, entries) free."""
        with self._lock:
            used, count = self._usage()
            # A count that may be high (a deletion) or says the device is nearly full is walked
            # again: what a writer may grow by should not be short because of old deletions.
            if self._freed or self.size - used < self.size // 16:
                self._used = None
                used, count = self._usage()
            room = max(0, self.size - used - self.held)
            self.held += room
            return room, max(0, self.max_entries - count)

    def _check(self, nbytes: int, entries: int, name: str) -> tuple[int, int]:
        """(bytes, entries) in use, when `nbytes` and `entries` more fit; ENOSPC otherwise. A
        count that says full (deletions leave it high) is checked by a fresh walk first."""
        for fresh in (False, True):
            if fresh:
                self._used = None
            used, count = self._usage()
            # Out of entries stops new ones only: bytes still go to files that exist, as on ext4.
            entries_fit = not entries or count + entries <= self.max_entries
            if used + self.held + nbytes <= self.size and entries_fit:
                return used, count
        raise no_space(name)

    def refuse_when_full(self, name: str = "") -> None:
        """ENOSPC when the files beneath the root fill the partition (room held aside for other
        writers left out). A count that says full is checked by a fresh walk; nothing counted yet
        (no question since boot) is not walked for this."""
        with self._lock:
            if self._used is None or self._used[0] < self.size:
                return
            self._used = None
            if self._usage()[0] < self.size:
                return
        raise no_space(name)

    def reserve(self, nbytes: int, entries: int = 0, name: str = "") -> None:
        """Count a write of `nbytes` (and `entries` new entries) beneath the root before it happens;
        ENOSPC when the partition cannot hold it."""
        with self._lock:
            used, count = self._check(nbytes, entries, name)
            self._used = (used + nbytes + entries * BLOCK, count + entries)

    def unreserve(self, nbytes: int, entries: int = 0) -> None:
        """A reserved write did not happen (the entry existed already, say)."""
        self.add(-nbytes - entries * BLOCK, -entries)

    def add(self, nbytes: int, entries: int = 0) -> None:
        """Count what was written beneath the root and checked already (held bytes moved in)."""
        with self._lock:
            if self._used is not None:
                used, count = self._used
                self._used = (used + nbytes, count + entries)

    def hold(self, nbytes: int, name: str = "") -> None:
        """Count bytes written outside the root (a staged push) until `release`: no walk sees them."""
        with self._lock:
            self._check(nbytes, 0, name)
            self.held += nbytes

    def release(self, nbytes: int) -> None:
        """Held bytes were dropped, or moved beneath the root and counted there (`add`)."""
        with self._lock:
            self.held = max(0, self.held - nbytes)


class DatabaseRoom:
    """A connection that may write a database: capped at the room left, which it holds while it
    is open (two writers never share it), then its real growth is counted. Close it after `conn`."""

    def __init__(self, space: Space, conn: sqlite3.Connection, path: Path) -> None:
        self.space = space
        self.path = path
        self.before = database_bytes(path)
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]  # raises first for a file not SQLite
        self.room = space.take_room()[0]
        try:
            # SQLITE_FULL, "database or disk is full", beyond it; a journal takes room too, so the
            # database may not use all of it.
            conn.execute(f"PRAGMA max_page_count = {max(1, pages + self.room // 2 // page_size)}")
        except BaseException:
            space.release(self.room)
            raise

    def close(self) -> None:
        after = database_bytes(self.path)
        self.space.release(self.room)
        self.space.add(max(0, after - self.before), 1 if after and not self.before else 0)
