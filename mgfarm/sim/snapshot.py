"""Named snapshots of a whole device: its file tree plus the in-memory state of its services.

A snapshot is `snapshot_dir/<name>/` with `files/` (a copy of the device root) and `state.json`.
Once written a snapshot is never modified in place, so many devices can load one golden snapshot.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

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
    services: dict[str, Any] = {}
    for name, service in device.services.items():
        exporter = getattr(service, "export_state", None)
        if callable(exporter):
            services[name] = exporter()
    return {"props": dict(device.props.values), "root_adbd": device.root_adbd, "services": services}


def import_state(device: SimDevice, state: dict[str, Any]) -> None:
    device.props.values = dict(state.get("props", device.props.values))
    device.root_adbd = bool(state.get("root_adbd", device.root_adbd))
    for name, data in state.get("services", {}).items():
        importer = getattr(device.services.get(name), "import_state", None)
        if callable(importer):
            importer(data)


def save(device: SimDevice, name: str) -> None:
    """Capture the device's files and state under `name`, replacing an older snapshot of that name."""
    check_name(name)
    base = device.config.snapshot_dir
    base.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=base))
    try:
        shutil.copytree(device.fs.root, staging / "files", symlinks=True)
        meta = {"name": name, "created": time.time(), "uptime_ms": uptime_ms(device)}
        (staging / "state.json").write_text(json.dumps({"meta": meta, "state": export_state(device)}))
        replace_dir(staging, base / name)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SnapshotError(f"could not save snapshot '{name}': {exc.strerror or exc}") from exc


def load(device: SimDevice, name: str) -> None:
    """Replace the device's files and state with the snapshot `name`."""
    check_name(name)
    folder = device.config.snapshot_dir / name
    try:
        state = json.loads((folder / "state.json").read_text())
    except FileNotFoundError as exc:
        raise SnapshotError(f"snapshot '{name}' does not exist") from exc
    except (OSError, ValueError) as exc:
        raise SnapshotError(f"snapshot '{name}' is unreadable: {exc}") from exc
    try:
        restore_tree(folder / "files", device.fs.root)
    except OSError as exc:
        raise SnapshotError(f"snapshot '{name}' could not be restored: {exc.strerror or exc}") from exc
    import_state(device, state.get("state", {}))


def delete(device: SimDevice, name: str) -> None:
    check_name(name)
    folder = device.config.snapshot_dir / name
    if not (folder / "state.json").exists():
        raise SnapshotError(f"snapshot '{name}' does not exist")
    shutil.rmtree(folder)


def list_snapshots(device: SimDevice) -> list[SnapshotInfo]:
    base = device.config.snapshot_dir
    infos: list[SnapshotInfo] = []
    if not base.is_dir():
        return infos
    for folder in sorted(base.iterdir()):
        if folder.name.startswith(".") or not (folder / "state.json").is_file():
            continue
        try:
            meta = json.loads((folder / "state.json").read_text()).get("meta", {})
        except (OSError, ValueError):
            continue
        infos.append(
            SnapshotInfo(
                folder.name, tree_size(folder), float(meta.get("created", 0)), int(meta.get("uptime_ms", 0))
            )
        )
    return infos


def scan(root: Path) -> tuple[set[str], set[str]]:
    """(folders, files) under root as relative paths; symlinks count as files and are not followed."""
    dirs: set[str] = set()
    files: set[str] = set()
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(root / rel if rel else root) as entries:
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    dirs.add(child)
                    pending.append(child)
                else:
                    files.add(child)
    return dirs, files


def restore_tree(src: Path, dst: Path) -> None:
    """Make dst an exact copy of src in place.

    Folders present on both sides are kept: creating and removing folders is what costs most on
    overlay filesystems, and a device's folder layout rarely changes. Every file is copied again,
    so nothing written since (whatever its timestamps say) survives. The event loop runs no other
    code meanwhile, so no ADB or shell request sees a half-restored tree.
    """
    src_dirs, src_files = scan(src)
    dst.mkdir(parents=True, exist_ok=True)
    dst_dirs, dst_files = scan(dst)
    for rel in dst_files - src_files:
        os.unlink(dst / rel)
    for rel in sorted(dst_dirs - src_dirs, key=len, reverse=True):
        shutil.rmtree(dst / rel, ignore_errors=True)
    for rel in sorted(src_dirs - dst_dirs, key=len):
        (dst / rel).mkdir(exist_ok=True)
    for rel in src_files:
        copy_file(src / rel, dst / rel)


def copy_file(src: Path, dst: Path) -> None:
    """Copy one file or symlink; never writes through a symlink already at dst."""
    if dst.is_symlink() or (dst.exists() and not dst.is_file()):
        dst.unlink()
    if src.is_symlink():
        dst.unlink(missing_ok=True)
        os.symlink(os.readlink(src), dst)
        return
    shutil.copy2(src, dst)
    mode = os.stat(dst).st_mode
    if not mode & 0o200:  # the golden may be read-only; the device's copy is its own
        os.chmod(dst, mode | 0o200)


def replace_dir(new: Path, target: Path) -> None:
    """Put `new` at `target` with two renames, so a reader never sees a half-copied tree."""
    old: Path | None = None
    if target.exists():
        old = target.with_name(f".{target.name}.old.{os.getpid()}.{time.monotonic_ns()}")
        os.rename(target, old)
    os.rename(new, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def tree_size(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def uptime_ms(device: SimDevice) -> int:
    return int((time.monotonic() - device.started_at) * 1000)
