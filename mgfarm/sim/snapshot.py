"""Named snapshots of a whole device: its file tree plus the in-memory state of its services.

A snapshot is `snapshot_dir/<name>/` with `files/` (a copy of the device root) and `state.json`.
Once written a snapshot is never modified in place (files 0444, folders 0555), so many devices can
load one golden snapshot; `golden_dir` holds read-only snapshots searched after `snapshot_dir`.

Every change is atomic against kill -9: a save is written into a staging folder and renamed into
place; a load copies into a fresh root that is swapped with the device root (renameat2
RENAME_EXCHANGE, or two renames that `recover` completes or undoes at the next start). A device
therefore comes back whole, with its old files or the snapshot's, never a mix. Loads check the
snapshot first (`PRAGMA quick_check` on every database, the shape of state.json) and refuse a
corrupt one in one sentence, leaving the device as it was.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import shutil
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
        (staging / "state.json").write_text(json.dumps({"meta": meta, "state": export_state(device)}))
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
    root = device.fs.root
    fresh = root.with_name(f"{ROOT_NEW}{os.getpid()}+{time.monotonic_ns()}")
    try:
        copy_tree(folder / "files", fresh, writable=True)
    except OSError as exc:
        remove_tree(fresh)
        raise SnapshotError(f"snapshot '{name}' could not be restored: {exc.strerror or exc}") from exc
    before = export_state(device)
    try:
        old = swap(fresh, root, ROOT_OLD)
    except OSError as exc:  # nothing was swapped: the device keeps its root
        remove_tree(fresh)
        raise SnapshotError(f"snapshot '{name}' could not be restored: {exc.strerror or exc}") from exc
    try:
        import_state(device, state)
    except Exception as exc:  # a service refused its part: the device goes back as it was
        remove_tree(swap(old, root, ROOT_OLD))
        import_state(device, before)
        raise SnapshotError(
            f"snapshot '{name}' has a state the device cannot use ({exc}); save it again or delete it"
        ) from exc
    # Removing folders is the slowest part of a reset (rmdir on overlay filesystems): the old tree
    # goes in the background; if the process dies first, `recover` deletes it at the next start.
    threading.Thread(target=remove_tree, args=(old,), daemon=True, name="snapshot-cleanup").start()


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
