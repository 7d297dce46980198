"""Snapshots in process: save/load restore files and state exactly; the golden stays untouched."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from mgfarm.sim import snapshot
from mgfarm.sim.device import DeviceConfig, SimDevice


def booted(tmp_path: Path, name: str = "a", snaps: Path | None = None) -> SimDevice:
    config = DeviceConfig(
        name=name, adb_port=5555, data_dir=tmp_path / name, snapshot_dir=snaps or tmp_path / "s"
    )
    device = SimDevice(config)
    asyncio.run(device.boot())
    return device


def files(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = path.read_bytes() if not path.is_symlink() else b"->"
    return out


def test_load_restores_files_folders_and_props_exactly(tmp_path: Path) -> None:
    device = booted(tmp_path)
    fs = device.fs
    fs.host("/sdcard/Download/keep.txt").write_bytes(b"v1")
    device.props.set("debug.test", "saved")
    snapshot.save(device, "g")
    before = files(fs.root)
    fs.host("/sdcard/Download/keep.txt").write_bytes(b"v2")  # same size, new content
    fs.host("/sdcard/Download/extra").mkdir()
    fs.host("/sdcard/Download/extra/x.txt").write_bytes(b"x")
    fs.host("/sdcard/Pictures").rename(fs.host("/sdcard/Renamed"))
    device.props.set("debug.test", "changed")
    snapshot.load(device, "g")
    assert files(fs.root) == before
    assert fs.host("/sdcard/Pictures").is_dir() and not fs.host("/sdcard/Renamed").exists()
    assert device.props.get("debug.test") == "saved"


def test_load_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    device = booted(tmp_path)
    fs = device.fs
    fs.host("/sdcard/f.txt").write_bytes(b"inside")
    snapshot.save(device, "g")
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"host file")
    fs.host("/sdcard/f.txt").unlink()
    fs.host("/sdcard/f.txt").symlink_to(victim)
    snapshot.load(device, "g")
    assert victim.read_bytes() == b"host file"
    assert not fs.host("/sdcard/f.txt").is_symlink() and fs.host("/sdcard/f.txt").read_bytes() == b"inside"


def test_read_only_golden_is_shared_and_left_untouched(tmp_path: Path) -> None:
    first = booted(tmp_path, "a")
    first.fs.host("/sdcard/g.txt").write_bytes(b"golden")
    snapshot.save(first, "golden")
    golden = tmp_path / "s" / "golden"
    for dirpath, _dirs, names in os.walk(golden):
        for name in names:
            os.chmod(Path(dirpath) / name, stat.S_IRUSR | stat.S_IRGRP)
    second = booted(tmp_path, "b")
    snapshot.load(second, "golden")
    target = second.fs.host("/sdcard/g.txt")
    target.write_bytes(b"mine now")  # the copy is writable
    assert (golden / "files/storage/emulated/0/g.txt").read_bytes() == b"golden"
    assert [s.name for s in snapshot.list_snapshots(second)] == ["golden"]


def test_bad_names_and_missing_snapshots_fail_with_a_reason(tmp_path: Path) -> None:
    device = booted(tmp_path)
    with pytest.raises(snapshot.SnapshotError, match="invalid snapshot name"):
        snapshot.save(device, "../escape")
    with pytest.raises(snapshot.SnapshotError, match="does not exist"):
        snapshot.load(device, "nope")
    with pytest.raises(snapshot.SnapshotError, match="does not exist"):
        snapshot.delete(device, "nope")
    snapshot.save(device, "x")
    snapshot.delete(device, "x")
    assert snapshot.list_snapshots(device) == []
