"""The media store is brought up to date with shared storage before every call, also when its last
scan found the same files: rows changed behind its back are put right, a rewritten file is seen."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.sim.system import media
from tests.unit.shellkit import ShellDevice

DB = "/data/data/com.google.android.providers.media.module/databases/external.db"
IMAGES = "content://media/external/images/media"


@pytest.fixture
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("media-scan"))
    yield dev
    dev.close()


def rows(sh: ShellDevice, column: str) -> list[str]:
    out = sh.run(f"content query --uri {IMAGES} --projection {column}").text
    return re.findall(rf"{column}=([^,\n]*)", out)


def test_rows_changed_behind_the_stores_back_are_put_right_at_the_next_query(sh: ShellDevice) -> None:
    sh.run("echo a > /sdcard/Pictures/cat.jpg")
    assert rows(sh, "_display_name") == ["cat.jpg"]
    assert sh.run(f"sqlite3 {DB} 'DELETE FROM files'").status == 0
    assert rows(sh, "_display_name") == ["cat.jpg"]
    assert sh.run(f"sqlite3 {DB} 'UPDATE files SET _size = 99'").status == 0
    assert rows(sh, "_size") == ["2"]
    sh.run("echo longer > /sdcard/Pictures/cat.jpg")
    assert rows(sh, "_size") == ["7"]
    sh.run("echo b > /sdcard/Pictures/dog.jpg")
    assert sorted(rows(sh, "_display_name")) == ["cat.jpg", "dog.jpg"]


def walked(root: Path, device: str) -> dict[str, tuple[int, int]]:
    """What the store's scan found by os.walk (a folder's files, then its subfolders)."""
    found: dict[str, tuple[int, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not (folder == str(root) and d == "Android")]
        for name in files:
            st = (Path(folder) / name).lstat()
            found[device + "/" + str((Path(folder) / name).relative_to(root))] = (
                st.st_size,
                int(st.st_mtime),
            )
    return found


def test_the_scan_finds_the_files_os_walk_finds_in_its_order(tmp_path: Path) -> None:
    # The scan walks with strings and one lstat a file (20,000 files by Path took ~0.6 s a query);
    # the rows' ids follow the order, so the order is os.walk's.
    root = tmp_path / "0"
    for folder in ("Pictures/a", "Pictures/b/c", "Music", "Android/data/x", "Download"):
        (root / folder).mkdir(parents=True)
    for name in ("Pictures/a/1.jpg", "Pictures/b/2.jpg", "Pictures/b/c/3.png", "Music/s.mp3", "top.txt"):
        (root / name).write_text(name)
    (root / "Android/data/x/hidden.jpg").write_text("no")
    (root / "Download/link").symlink_to("../Pictures")  # a link to a folder: not followed
    (root / "Download/dangling").symlink_to("/nowhere")
    (root / "Download/file-link").symlink_to("../top.txt")
    found: dict[str, tuple[int, int]] = {}
    media._walk(str(root), "/storage/emulated/0", found, top=True)
    assert list(found.items()) == list(walked(root, "/storage/emulated/0").items())
    assert "/storage/emulated/0/Download/dangling" in found and len(found) == 7
