"""The media store is brought up to date with shared storage before every call, also when its last
scan found the same files: rows changed behind its back are put right, a rewritten file is seen."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

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
