"""Snapshots in process: save/load restore files and state exactly; the golden stays untouched."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def test_state_files_keep_the_service_names_older_snapshots_use(tmp_path: Path) -> None:
    """Golden snapshots outlive code changes: each service's state is filed under its old name."""
    device = booted(tmp_path)
    services = snapshot.export_state(device)["services"]
    assert list(services) == ["packages", "clock", "telephony", "activities", "window", "clipboard"]
    device.services.clock.freeze(True)
    device.services.clock.set_ms(1_700_000_000_000)
    device.services.clipboard.text = "kept"
    snapshot.save(device, "named")
    device.services.clock.freeze(False)
    device.services.clipboard.text = ""
    snapshot.load(device, "named")
    assert device.services.clock.now_ms() == 1_700_000_000_000 and device.services.clipboard.text == "kept"


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
            if not (Path(dirpath) / name).is_symlink():  # a device link's target is the device's
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


def test_a_corrupt_database_is_refused_and_the_device_keeps_its_files(tmp_path: Path) -> None:
    device = booted(tmp_path)
    snapshot.save(device, "bad")
    folder = tmp_path / "s" / "bad"
    db = next(folder.rglob("settings.db"))
    db.chmod(0o644)
    raw = bytearray(db.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # the schema page, past the header
    db.write_bytes(bytes(raw))
    device.fs.host("/sdcard/mine.txt").write_bytes(b"kept")
    before = files(device.fs.root)
    with pytest.raises(
        snapshot.SnapshotError, match=r"snapshot 'bad' is corrupt: database /data/.*settings\.db"
    ):
        snapshot.load(device, "bad")
    assert files(device.fs.root) == before


@pytest.mark.parametrize(
    "state",
    ['{"meta": {}, "state": []}', '{"meta": {}, "state": {"props": {"a": 1}}}', "[1, 2]", "{not json"],
)
def test_a_wrong_shape_state_file_is_refused_in_one_sentence(tmp_path: Path, state: str) -> None:
    device = booted(tmp_path)
    snapshot.save(device, "odd")
    state_file = tmp_path / "s" / "odd" / "state.json"
    state_file.chmod(0o644)
    state_file.write_text(state)
    device.props.set("debug.keep", "1")
    with pytest.raises(snapshot.SnapshotError, match=r"^snapshot 'odd' (is corrupt|has an unreadable)"):
        snapshot.load(device, "odd")
    assert device.props.get("debug.keep") == "1"


def test_leftovers_of_killed_saves_and_loads_are_cleaned_at_start(tmp_path: Path) -> None:
    device = booted(tmp_path)
    snapshot.save(device, "g")
    dead_pid = 2**22 + 7  # above pid_max on common systems: certainly not running
    half_save = tmp_path / "s" / f"{snapshot.SAVE_PREFIX}g+{dead_pid}+1"
    half_load = tmp_path / "a" / f"{snapshot.ROOT_NEW}{dead_pid}+1"
    for folder in (half_save, half_load):
        (folder / "data").mkdir(parents=True)
    # A two-rename swap cut in the middle: the root is gone, the old one waits beside it.
    old_root = tmp_path / "a" / f"{snapshot.ROOT_OLD}root+{dead_pid}+2"
    os.rename(device.fs.root, old_root)
    snapshot.recover(device.config)
    assert not half_save.exists() and not half_load.exists() and not old_root.exists()
    assert device.fs.root.is_dir() and (device.fs.root / "data").is_dir()
    assert [s.name for s in snapshot.list_snapshots(device)] == ["g"]


def test_golden_folder_is_read_only_to_the_device(tmp_path: Path) -> None:
    first = booted(tmp_path, "a", tmp_path / "first")
    first.fs.host("/sdcard/g.txt").write_bytes(b"golden")
    snapshot.save(first, "golden")
    config = DeviceConfig(
        name="b",
        adb_port=5557,
        data_dir=tmp_path / "b",
        snapshot_dir=tmp_path / "own",
        golden_dir=tmp_path / "first",
    )
    second = SimDevice(config)
    asyncio.run(second.boot())
    snapshot.load(second, "golden")
    assert second.fs.host("/sdcard/g.txt").read_bytes() == b"golden"
    with pytest.raises(snapshot.SnapshotError, match="read-only golden snapshot"):
        snapshot.delete(second, "golden")
    snapshot.save(second, "mine")
    assert (tmp_path / "own" / "mine" / "state.json").is_file()
    assert [s.name for s in snapshot.list_snapshots(second)] == ["golden", "mine"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
STATE_KEYS = st.fixed_dictionaries(
    {},
    optional={
        "props": JSON,
        "root_adbd": JSON,
        "services": JSON | st.dictionaries(st.text(max_size=8), JSON),
    },
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(JSON, st.fixed_dictionaries({"meta": JSON, "state": JSON | STATE_KEYS})))
def test_any_state_file_loads_or_is_refused_in_one_sentence(tmp_path: Path, data: object) -> None:
    device = booted(tmp_path, f"d{abs(hash(repr(data))) % 10**9}")
    snapshot.save(device, "fuzzed")
    state_file = device.config.snapshot_dir / "fuzzed" / "state.json"
    state_file.chmod(0o644)
    state_file.write_text(json.dumps(data))
    try:
        snapshot.load(device, "fuzzed")
    except snapshot.SnapshotError as exc:
        assert str(exc).startswith("snapshot 'fuzzed' ") and "\n" not in str(exc)
    assert device.fs.root.is_dir() and (device.fs.root / "data").is_dir()
    snapshot.delete(device, "fuzzed")


def test_a_write_after_a_load_never_reaches_the_snapshot(tmp_path: Path) -> None:
    device = booted(tmp_path)
    fs = device.fs
    fs.host("/sdcard/n.txt").write_bytes(b"snap")
    snapshot.save(device, "g")
    saved = files(tmp_path / "s" / "g" / "files")
    fs.host("/sdcard/n.txt").write_bytes(b"edit")
    for _ in range(2):  # the second load finds the files equal and keeps them
        snapshot.load(device, "g")
    snap_inodes = {p.stat().st_ino for p in (tmp_path / "s" / "g" / "files").rglob("*") if p.is_file()}
    for path in fs.root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert path.stat().st_ino not in snap_inodes, f"{path} shares its inode with the snapshot"
            path.write_bytes(b"written after the load")
    assert files(tmp_path / "s" / "g" / "files") == saved


def test_a_same_size_rewrite_with_the_old_mtime_is_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unchanged stat lets a load skip reading a file; a rewrite always changes the ctime."""
    device = booted(tmp_path)
    target = device.fs.host("/sdcard/same.txt")
    target.write_bytes(b"AAAA")
    snapshot.save(device, "g")
    snapshot.load(device, "g")
    time.sleep(0.05)
    monkeypatch.setattr(snapshot, "TRUST_AFTER_NS", 20_000_000)
    snapshot.load(device, "g")  # files now older than 20 ms: their stat is trusted from here on
    time.sleep(0.05)
    mtime = target.stat().st_mtime_ns
    target.write_bytes(b"BBBB")
    os.utime(target, ns=(mtime, mtime))  # same size, same mtime: only the ctime tells
    snapshot.load(device, "g")
    assert target.read_bytes() == b"AAAA"


def test_a_load_cut_by_kill_is_finished_at_start(tmp_path: Path) -> None:
    device = booted(tmp_path)
    fs = device.fs
    fs.host("/sdcard/a.txt").write_bytes(b"snap")
    snapshot.save(device, "g")
    saved = files(tmp_path / "s" / "g" / "files")
    fs.host("/sdcard/a.txt").write_bytes(b"half")  # what a load had not reached yet
    fs.host("/sdcard/b.txt").write_bytes(b"extra")
    dead_pid = 2**22 + 7
    marker = tmp_path / "a" / f"{snapshot.RESTORING}{dead_pid}+1"
    marker.write_text(str(tmp_path / "s" / "g"))
    snapshot.recover(device.config)
    assert files(fs.root) == saved
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["root"]
