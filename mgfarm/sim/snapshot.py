"""Named snapshots of a whole device: its file tree plus the in-memory state of its services.

A snapshot is `snapshot_dir/<name>/` with `files/` (a copy of the device root) and `state.json`.
Once written a snapshot is never modified in place (files 0444, folders 0555), so many devices can
load one golden snapshot; `golden_dir` holds read-only snapshots searched after `snapshot_dir`.

Every change is atomic against kill -9: a save is written into a staging folder and renamed into
place. A load brings the device root back to the snapshot in place, touching only what differs
(an episode changes a few databases; copying the whole tree, folders included, was most of a
reset): before its first change it leaves a marker naming the snapshot, and `recover` finishes a
load a kill cut short at the next start, by a full copy swapped in with the device root (renameat2
RENAME_EXCHANGE, or two renames that `recover` completes or undoes). A device therefore comes back
whole, with its old files or the snapshot's, never a mix. Loads check the snapshot first (`PRAGMA
quick_check` on every database, the shape of state.json) and refuse a corrupt one in one sentence,
leaving the device as it was. A restored file is always a file of the device's own (copied, never
linked), so nothing a device writes after a load can reach the snapshot.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import shutil
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mgfarm.sim.system.space import measure

if TYPE_CHECKING:
    from mgfarm.sim.device import DeviceConfig, SimDevice

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


class SnapshotError(Exception):
    """A snapshot request that cannot be done; the message is shown after `KO: `."""


@dataclass(frozen=True)
class SnapshotInfo:
    name: str
    size: int
    created: float
    uptime_ms: int

    def console_line(self) -> str:
        """A row of `avd snapshot list`, columns aligned like the emulator's."""
        size = f"{max(1, self.size // (1024 * 1024))}M"
        date = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.created))
        secs, ms = divmod(self.uptime_ms, 1000)
        mins, secs = divmod(secs, 60)
        hours, mins = divmod(mins, 60)
        return f"{'--':<10}{self.name:<20}{size:>7} {date}   {hours:02d}:{mins:02d}:{secs:02d}.{ms:03d}"


def check_name(name: str) -> None:
    if not NAME.match(name):
        raise SnapshotError(f"invalid snapshot name '{name}': use letters, digits, '_', '.' and '-'")


def export_state(device: SimDevice) -> dict[str, Any]:
    """Everything the device keeps in memory, as JSON-ready data."""
    services = {name: service.export_state() for name, service in device.services.stateful().items()}
    return {"props": dict(device.props.values), "root_adbd": device.root_adbd, "services": services}


def import_state(device: SimDevice, state: dict[str, Any]) -> None:
    device.props.values = dict(state.get("props", device.props.values))
    device.root_adbd = bool(state.get("root_adbd", device.root_adbd))
    stateful = device.services.stateful()
    for name, data in state.get("services", {}).items():
        if name in stateful:
            stateful[name].import_state(data)


# Staging names use '+', which snapshot names cannot hold, and the pid, so that `recover` never
# touches the work of another live process sharing the folder.
SAVE_PREFIX, OLD_PREFIX, ROOT_NEW, ROOT_OLD = ".save+", ".old+", ".root-new+", ".root-old+"
RESTORING = ".restoring+"  # marker of a load under way in the device folder; holds the snapshot's path
SQLITE_MAGIC = b"SQLite format 3\x00"
RENAME_EXCHANGE = 2
AT_FDCWD = -100

_checked: dict[tuple[int, int, int], None] = {}  # snapshots that passed the checks, by state.json identity


def save(device: SimDevice, name: str) -> None:
    """Capture the device's files and state under `name`, replacing an older snapshot of that name."""
    check_name(name)
    base = device.config.snapshot_dir
    staging = base / f"{SAVE_PREFIX}{name}+{os.getpid()}+{time.monotonic_ns()}"
    try:
        base.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
        copy_tree(device.fs.root, staging / "files")
        meta = {"name": name, "created": time.time(), "uptime_ms": uptime_ms(device)}
        state = export_state(device)
        state["space"] = list(measure(staging / "files"))  # a load then needs no walk of its files
        (staging / "state.json").write_text(json.dumps({"meta": meta, "state": state}))
        seal(staging)
        swap_in(staging, base / name, OLD_PREFIX)
    except OSError as exc:
        remove_tree(staging)
        raise SnapshotError(f"could not save snapshot '{name}': {exc.strerror or exc}") from exc


def find(device: SimDevice, name: str) -> Path | None:
    """The folder of snapshot `name`: the device's own first, then the read-only golden folder."""
    for base in (device.config.snapshot_dir, device.config.golden_dir):
        if base is not None and (base / name / "state.json").is_file():
            return base / name
    return None


def load(device: SimDevice, name: str) -> None:
    """Replace the device's files and state with the snapshot `name`, or refuse and change nothing."""
    check_name(name)
    folder = find(device, name)
    if folder is None:
        raise SnapshotError(f"snapshot '{name}' does not exist")
    state = verified_state(folder, name)
    before = export_state(device)
    try:  # the state first: a state the device refuses leaves the files untouched
        import_state(device, state)
    except Exception as exc:
        import_state(device, before)
        raise SnapshotError(
            f"snapshot '{name}' has a state the device cannot use ({exc}); save it again or delete it"
        ) from exc
    marker = Marker(device.config.data_dir, folder)
    device.fs.space.stale()  # other files: measured again, unless the snapshot says what they take
    try:
        restore(folder, device.fs.root, marker)
    except OSError:  # a file it could not replace in place: a whole fresh copy swapped in instead
        try:
            restore_by_copy(folder, device.fs.root)
        except OSError as exc:
            import_state(device, before)
            raise SnapshotError(
                f"snapshot '{name}' could not be restored ({exc.strerror or exc}); the device's files are "
                "partly restored, load it again"
            ) from exc
    space = state.get("space")
    if isinstance(space, list) and len(space) == 2 and all(type(v) is int and v >= 0 for v in space):
        device.fs.space.set_usage(space[0], space[1])
    marker.clear()


def restore_by_copy(folder: Path, root: Path, background: bool = True) -> None:
    """Put a full copy of the snapshot's files in place of `root` in one swap (kill -9 safe).

    `background`: the old tree is deleted by a thread (a load), else before returning (`recover`).
    """
    fresh = root.with_name(f"{ROOT_NEW}{os.getpid()}+{time.monotonic_ns()}")
    try:
        copy_tree(folder / "files", fresh, writable=True)
        old = swap(fresh, root, ROOT_OLD)
    except OSError:
        remove_tree(fresh)
        raise
    _restored.pop(os.fspath(root), None)
    if not background:
        remove_tree(old)
        return
    # Removing folders is slow (rmdir on overlay filesystems): the old tree goes in the background;
    # if the process dies first, `recover` deletes it at the next start.
    threading.Thread(target=remove_tree, args=(old,), daemon=True, name="snapshot-cleanup").start()


class Marker:
    """The device folder's note that a load is changing its root, written before the first change."""

    def __init__(self, data_dir: Path, folder: Path) -> None:
        self.data_dir = data_dir
        self.folder = folder
        self.path: Path | None = None

    def set(self) -> None:
        if self.path is None:
            path = self.data_dir / f"{RESTORING}{os.getpid()}+{time.monotonic_ns()}"
            path.write_text(os.fspath(self.folder.resolve()))
            self.path = path

    def clear(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None


@dataclass(frozen=True)
class Entry:
    """One entry of a snapshot's file tree: a folder, a regular file or a symlink."""

    kind: str  # "d", "f" or "l"
    mode: int = 0  # permission bits as the device gets them (write bits back on)
    size: int = 0
    atime_ns: int = 0
    mtime_ns: int = 0
    target: str = ""  # a symlink's target


Index = dict[str, dict[str, Entry]]  # folder relative to files/ ("" for the top) -> name -> entry
INDEXES_KEPT = 8
TRUST_AFTER_NS = 2_000_000_000  # a file's ctime this much older than a check is safe to go by
_indexes: dict[tuple[int, int, int], Index] = {}
# Per device root: the snapshot it was last restored from and, for files found equal to it, their
# (inode, size, mtime, ctime, mode). Any write since changes the ctime, which nothing can set back,
# so an unchanged stat means unchanged bytes; ctimes newer than TRUST_AFTER_NS at the check are not
# kept (timestamps are coarse: a write in the same tick would not show).
_restored: dict[str, tuple[tuple[int, int, int], dict[str, tuple[int, int, int, int, int]]]] = {}


def snapshot_index(folder: Path) -> tuple[tuple[int, int, int], Index]:
    """The snapshot's tree by folder, read once per process (a snapshot never changes once written)."""
    st = os.stat(folder / "state.json")
    key = (st.st_dev, st.st_ino, st.st_mtime_ns)
    index = _indexes.get(key)
    if index is None:
        index = {}
        files = os.fspath(folder / "files")
        pending = [""]
        while pending:
            rel = pending.pop()
            names: dict[str, Entry] = {}
            with os.scandir(f"{files}/{rel}" if rel else files) as entries:
                for entry in entries:
                    est = entry.stat(follow_symlinks=False)
                    bits = stat.S_IMODE(est.st_mode)
                    if stat.S_ISLNK(est.st_mode):
                        names[entry.name] = Entry("l", target=os.readlink(entry.path))
                    elif stat.S_ISDIR(est.st_mode):
                        names[entry.name] = Entry("d", bits | 0o700)
                        pending.append(f"{rel}/{entry.name}" if rel else entry.name)
                    elif stat.S_ISREG(est.st_mode):
                        times = (est.st_atime_ns, est.st_mtime_ns)
                        names[entry.name] = Entry("f", bits | 0o200, est.st_size, *times)
            index[rel] = names
        while len(_indexes) >= INDEXES_KEPT:
            _indexes.pop(next(iter(_indexes)))
        _indexes[key] = index
    return key, index


def restore(folder: Path, root: Path, marker: Marker) -> None:
    """Bring `root` back to the snapshot's files in place, changing only what differs.

    Extra entries go, missing ones are copied, a file is replaced (copy beside it, then rename over
    it) when its size or bytes differ, and gets the snapshot's mode and times. Raises OSError when
    something cannot be changed; the marker is then left for the caller's fallback.
    """
    key, index = snapshot_index(folder)
    source = os.fspath(folder / "files")
    top = os.fspath(root)
    known_key, known = _restored.get(top, (None, {}))
    trusted = known if known_key == key else {}
    kept: dict[str, tuple[int, int, int, int, int]] = {}
    trust_before = time.time_ns() - TRUST_AFTER_NS
    top_st = os.lstat(top)
    top_mode = (stat.S_IMODE(os.stat(source).st_mode)) | 0o700
    if stat.S_IMODE(top_st.st_mode) != top_mode:
        marker.set()
        os.chmod(top, top_mode)
    pending = [""]
    while pending:
        rel = pending.pop()
        wanted = index[rel]
        here = f"{top}/{rel}" if rel else top
        present: set[str] = set()
        with os.scandir(here) as scan:
            entries = list(scan)
        for entry in entries:
            name, path = entry.name, entry.path
            sub = f"{rel}/{name}" if rel else name
            want = wanted.get(name)
            est = entry.stat(follow_symlinks=False)
            kind = "d" if stat.S_ISDIR(est.st_mode) else "l" if stat.S_ISLNK(est.st_mode) else "f"
            if kind == "f" and not stat.S_ISREG(est.st_mode):
                kind = "?"  # a fifo or socket: snapshots hold none
            if want is None or want.kind != kind:
                marker.set()
                if kind == "d":
                    remove_tree(Path(path))
                else:
                    os.unlink(path)
                continue
            if kind == "l":
                if os.readlink(path) != want.target:
                    marker.set()
                    os.unlink(path)
                    continue
            elif kind == "d":
                if stat.S_IMODE(est.st_mode) != want.mode:
                    marker.set()
                    os.chmod(path, want.mode)
                pending.append(sub)
            else:
                seen = (est.st_ino, est.st_size, est.st_mtime_ns, est.st_ctime_ns, est.st_mode)
                same = (
                    est.st_size == want.size
                    and est.st_mtime_ns == want.mtime_ns
                    and stat.S_IMODE(est.st_mode) == want.mode
                    and (trusted.get(sub) == seen or same_bytes(f"{source}/{sub}", path, want.size))
                )
                if not same:
                    marker.set()
                    replace_file(f"{source}/{sub}", path, name)
                elif est.st_ctime_ns < trust_before:
                    kept[sub] = seen
            present.add(name)
        for name, want in wanted.items():
            if name in present:
                continue
            marker.set()
            sub = f"{rel}/{name}" if rel else name
            into = f"{here}/{name}"
            if want.kind == "d":
                copy_tree(Path(f"{source}/{sub}"), Path(into), writable=True)
            elif want.kind == "l":
                os.symlink(want.target, into)
            else:
                copy_file(f"{source}/{sub}", into, 0o200)
    _restored[top] = (key, kept)


def same_bytes(a: str, b: str, size: int) -> bool:
    """True when two files of `size` bytes hold the same bytes (never follows a link)."""
    fd_a = os.open(a, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fd_b = os.open(b, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            done = 0
            while done < size:
                chunk = os.read(fd_a, 1 << 20)
                if not chunk or os.read(fd_b, len(chunk)) != chunk:
                    return False
                done += len(chunk)
            return True
        finally:
            os.close(fd_b)
    finally:
        os.close(fd_a)


def replace_file(source: str, target: str, name: str) -> None:
    """Put a fresh copy of `source` at `target` in one rename: a reader never sees half a file."""
    staged = f"{os.path.dirname(target)}/.{name}{RESTORING}{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(staged)
    copy_file(source, staged, 0o200)
    os.replace(staged, target)


def verified_state(folder: Path, name: str) -> dict[str, Any]:
    """The snapshot's device state after the integrity checks; SnapshotError names what is wrong."""
    fix = f"save it again or delete it with `avd snapshot delete {name}`"
    try:
        st = os.stat(folder / "state.json")
        data = json.loads((folder / "state.json").read_text())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"snapshot '{name}' has an unreadable state.json ({exc}); {fix}") from exc
    problem = state_problem(data)
    if problem:
        raise SnapshotError(f"snapshot '{name}' is corrupt: state.json {problem}; {fix}")
    key = (st.st_dev, st.st_ino, st.st_mtime_ns)
    if key not in _checked:
        bad = broken_database(folder / "files")
        if bad:
            raise SnapshotError(f"snapshot '{name}' is corrupt: database {bad}; {fix}")
        _checked[key] = None
    state: dict[str, Any] = data["state"]
    return state


def state_problem(data: object) -> str:
    """What is wrong with the shape of a state.json, or '' when it is sound."""
    if not isinstance(data, dict) or not isinstance(data.get("meta"), dict):
        return "has no 'meta' object"
    state = data.get("state")
    if not isinstance(state, dict):
        return "has no 'state' object"
    props = state.get("props", {})
    if not isinstance(props, dict) or not all(isinstance(v, str) for v in props.values()):
        return "has 'props' that are not a map of strings"
    if not isinstance(state.get("root_adbd", True), bool):
        return "has a 'root_adbd' that is not true or false"
    services = state.get("services", {})
    if not isinstance(services, dict) or not all(isinstance(v, dict) for v in services.values()):
        return "has 'services' that are not a map of objects"
    return ""


def broken_database(files: Path) -> str:
    """The device path of the first SQLite database failing `PRAGMA quick_check`, or ''."""
    for dirpath, _dirs, names in os.walk(files):
        for fname in names:
            path = Path(dirpath) / fname
            if path.is_symlink() or not path.is_file():
                continue
            with open(path, "rb") as handle:
                if handle.read(16) != SQLITE_MAGIC:
                    continue
            shown = "/" + str(path.relative_to(files))
            try:
                # immutable: no journal or lock files next to a read-only snapshot
                with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)) as db:
                    rows = db.execute("PRAGMA quick_check").fetchall()
            except sqlite3.DatabaseError as exc:
                return f"{shown} ({exc})"
            if rows != [("ok",)]:
                return f"{shown} ({rows[0][0]})"
    return ""


def delete(device: SimDevice, name: str) -> None:
    check_name(name)
    folder = device.config.snapshot_dir / name
    if not (folder / "state.json").exists():
        if find(device, name) is not None:
            raise SnapshotError(f"snapshot '{name}' is a read-only golden snapshot and cannot be deleted")
        raise SnapshotError(f"snapshot '{name}' does not exist")
    doomed = folder.with_name(f"{OLD_PREFIX}{name}+{os.getpid()}+{time.monotonic_ns()}")
    try:
        os.rename(folder, doomed)  # gone at once for every reader; the files go after
    except OSError as exc:
        raise SnapshotError(f"could not delete snapshot '{name}': {exc.strerror or exc}") from exc
    remove_tree(doomed)


def list_snapshots(device: SimDevice) -> list[SnapshotInfo]:
    infos: dict[str, SnapshotInfo] = {}
    for base in (device.config.golden_dir, device.config.snapshot_dir):  # own ones win
        if base is None or not base.is_dir():
            continue
        for folder in sorted(base.iterdir()):
            if folder.name.startswith(".") or not (folder / "state.json").is_file():
                continue
            try:
                meta = json.loads((folder / "state.json").read_text()).get("meta", {})
                created, uptime = float(meta.get("created", 0)), int(meta.get("uptime_ms", 0))
            except (OSError, ValueError, AttributeError, TypeError):
                continue
            infos[folder.name] = SnapshotInfo(folder.name, tree_size(folder), created, uptime)
    return [infos[n] for n in sorted(infos)]


def recover(config: DeviceConfig) -> None:
    """At start: finish or undo what a killed process left (half saves, half loads, stale copies).

    A device root is missing only when a two-rename swap was cut between its renames: the old root
    goes back. Everything else left behind is deleted.
    """
    root = config.data_dir / "root"
    folders = [(config.data_dir, ROOT_NEW, ROOT_OLD), (config.snapshot_dir, SAVE_PREFIX, OLD_PREFIX)]
    for folder, new_prefix, old_prefix in folders:
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir()):
            prefix = new_prefix if entry.name.startswith(new_prefix) else old_prefix
            if not entry.name.startswith(prefix) or owner_alive(entry.name):
                continue
            if prefix == ROOT_OLD and not root.exists():
                os.rename(entry, root)
                continue
            if prefix == OLD_PREFIX:
                target = folder / entry.name[len(prefix) :].split("+")[0]
                if not target.exists():
                    os.rename(entry, target)
                    continue
            remove_tree(entry)
    if config.data_dir.is_dir():
        for entry in sorted(config.data_dir.iterdir()):
            if entry.name.startswith(RESTORING) and not owner_alive(entry.name):
                finish_restore(entry, root)


def finish_restore(marker: Path, root: Path) -> None:
    """A load was cut short: the root gets the whole snapshot it was loading (when it still exists)."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        folder = Path(marker.read_text())
        if (folder / "files").is_dir() and root.is_dir():
            restore_by_copy(folder, root, background=False)
    marker.unlink(missing_ok=True)


def owner_alive(staging_name: str) -> bool:
    """True when the staging entry belongs to another process that still runs."""
    try:
        pid = int(staging_name.split("+")[-2])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def copy_tree(src: Path, dst: Path, writable: bool = False) -> None:
    """Copy a device tree: files with their times, symlinks as links (never followed), folders.

    `writable`: the copy belongs to a device, so write bits come back on what a sealed snapshot holds.
    Plain strings and descriptors rather than pathlib: a reset copies the whole tree, so per-entry
    overhead is the reset's latency.
    """
    file_bits, dir_bits = (0o200, 0o700) if writable else (0, 0)
    os.mkdir(dst, 0o700)
    pending = [(os.fspath(src), os.fspath(dst))]
    while pending:
        source, target = pending.pop()
        with os.scandir(source) as entries:
            for entry in entries:
                into = f"{target}/{entry.name}"
                if entry.is_symlink():
                    os.symlink(os.readlink(entry.path), into)
                elif entry.is_dir(follow_symlinks=False):
                    os.mkdir(into, 0o700)
                    pending.append((entry.path, into))
                elif entry.is_file(follow_symlinks=False):
                    copy_file(entry.path, into, file_bits)
        st = os.stat(source)
        os.chmod(target, (st.st_mode & 0o7777) | dir_bits)


def copy_file(source: str, target: str, extra_bits: int) -> None:
    """One regular file with its mode (plus `extra_bits`) and times; never follows a link."""
    fd_in = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        st = os.fstat(fd_in)
        fd_out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            done = 0
            while done < st.st_size:
                sent = os.sendfile(fd_out, fd_in, done, st.st_size - done)
                if not sent:
                    break
                done += sent
            os.fchmod(fd_out, (st.st_mode & 0o7777) | extra_bits)
            os.utime(fd_out, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)


def seal(folder: Path) -> None:
    """Make a written snapshot read-only on disk: no write bit on any file or folder."""
    for dirpath, dirnames, filenames in os.walk(folder, topdown=False):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, os.lstat(path).st_mode & 0o555)
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, os.lstat(path).st_mode & 0o555)
    os.chmod(folder, os.stat(folder).st_mode & 0o555)


def remove_tree(folder: Path) -> None:
    """Delete a tree even when sealed (its folders lack the write bit)."""
    if not folder.exists() and not folder.is_symlink():
        return
    with contextlib.suppress(OSError):
        shutil.rmtree(folder)  # a device tree: its folders are writable
        return
    for dirpath, dirnames, _files in os.walk(folder):
        with contextlib.suppress(OSError):
            os.chmod(dirpath, 0o700)
        for name in dirnames:
            with contextlib.suppress(OSError):
                if not os.path.islink(os.path.join(dirpath, name)):
                    os.chmod(os.path.join(dirpath, name), 0o700)
    shutil.rmtree(folder, ignore_errors=True)


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (renameat2 RENAME_EXCHANGE); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    return result == 0


def swap(new: Path, target: Path, old_prefix: str) -> Path:
    """Put `new` at `target` atomically; returns where the tree that was at `target` now is."""
    if exchange(new, target):
        return new
    old = target.with_name(f"{old_prefix}{target.name}+{os.getpid()}+{time.monotonic_ns()}")
    os.rename(target, old)  # a kill here leaves no target: `recover` renames `old` back
    try:
        os.rename(new, target)
    except OSError:
        os.rename(old, target)
        raise
    return old


def swap_in(new: Path, target: Path, old_prefix: str) -> None:
    """Put `new` at `target` atomically and delete what was there."""
    if not target.exists():
        os.rename(new, target)
        return
    remove_tree(swap(new, target, old_prefix))


def tree_size(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def uptime_ms(device: SimDevice) -> int:
    return int((time.monotonic() - device.started_at) * 1000)
