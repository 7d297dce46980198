"""Where a process farm's frame files go: a private tmpfs folder, never one someone else made."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mgfarm.farm import frames

SHM = Path("/dev/shm")
needs_shm = pytest.mark.skipif(not frames.usable(SHM), reason="no writable tmpfs at /dev/shm")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    return tmp_path


@needs_shm
def test_frames_go_to_a_new_private_tmpfs_folder_that_down_removes(home: Path) -> None:
    first = frames.make_dir("f1", home / "farm")
    second = frames.make_dir("f1", home / "farm")
    try:
        assert first.parent == SHM and second.parent == SHM and first != second
        info = first.lstat()
        assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
        assert info.st_uid == os.geteuid()
        other = frames.make_dir("f1-b", home / "farm")  # a farm whose name starts like this one's
        frames.remove_dirs("f1", str(first))
        assert not first.exists() and not second.exists()  # the recorded one and a crash's leftover
        assert other.is_dir()
        frames.remove_dirs("f1-b")
        assert not other.exists()
    finally:
        frames.remove_dirs("f1")
        frames.remove_dirs("f1-b")


def test_without_a_usable_tmpfs_frames_stay_in_the_farm_folder(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_to_all = home / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)  # not sticky: another user could rename our folder away
    monkeypatch.setattr(frames, "_candidates", lambda: [open_to_all, home / "missing"])
    assert not frames.usable(open_to_all)
    path = frames.make_dir("f2", home / "farm")
    assert path == home / "farm" / "frames"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_a_disk_folder_is_no_tmpfs(home: Path) -> None:
    private = home / "private"
    private.mkdir(mode=0o700)
    assert frames.usable(private) == (frames._filesystem(private.resolve()) == "tmpfs")
