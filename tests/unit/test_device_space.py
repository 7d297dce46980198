"""A device's files have a fixed size, as a phone's data partition has (system/space.py): a hostile
shell, push, install or database cannot fill the host's disk, which every farm on it shares. A write
beyond the size fails with "No space left on device" as on the phone; deleting makes room again."""

from __future__ import annotations

import asyncio
import re
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends import check_storage
from mgfarm.sim import snapshot
from mgfarm.sim.__main__ import memory_size
from mgfarm.sim.apps.base import sql
from mgfarm.sim.system.space import INODE_RATIO, measure
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import Screen
from tests.unit.test_sim_sync import req, sync_exchange
from tests.unit.test_sim_transport import make_device

MIB = 1024 * 1024
NO_SPACE = "No space left on device"
# Appends smaller and smaller pieces until not one byte more fits (a write that does not fit
# writes nothing).
FILL = (
    "for n in 1000000 100000 10000 1000 100 10 1; do "
    "while yes x | head -c $n >> /sdcard/fill; do :; done; done"
)


@pytest.fixture
def small(tmp_path: Path) -> Iterator[ShellDevice]:
    """A device whose partition holds its own files and 4 MiB more."""
    dev = ShellDevice(tmp_path, boot=False)
    dev.device.fs.space.size = measure(dev.device.fs.root)[0] + 4 * MIB
    yield dev
    dev.close()


def on_disk(dev: ShellDevice) -> int:
    """What the device's files take on the host, measured from outside."""
    return measure(dev.device.fs.root)[0]


def test_copies_and_redirects_stop_at_the_partition_and_deleting_makes_room(small: ShellDevice) -> None:
    size = small.device.fs.space.size
    assert small.run("yes 0123456789abcdef | head -c 1000000 > /sdcard/a").status == 0
    loop = small.run("i=0; while cp /sdcard/a /sdcard/a$i; do i=$((i+1)); done; echo $i")
    assert int(loop.text) == 3 and NO_SPACE in loop.error  # 4 MiB hold the file and three copies
    appended = small.run("cat /sdcard/a /sdcard/a >> /sdcard/a0")
    assert appended.status == 1 and NO_SPACE in appended.error
    assert on_disk(small) <= size

    df = small.run("df").text.splitlines()
    data = next(line.split() for line in df if line.endswith(" /data"))
    assert int(data[1]) == size // 1024 and int(data[4].rstrip("%")) >= 99  # 1K-blocks, Use%

    assert small.run("rm /sdcard/a1 /sdcard/a2").status == 0
    assert small.run("cp /sdcard/a /sdcard/again && echo ok").text == "ok\n"
    assert small.run("cat /sdcard/again | wc -c").text.strip() == "1000000"


def test_new_entries_stop_at_one_per_16_kib_like_ext4_inodes(small: ShellDevice) -> None:
    space = small.device.fs.space
    _, entries = space.usage()
    space.size = (entries + 50) * INODE_RATIO
    made = small.run("i=0; while touch /sdcard/f$i; do i=$((i+1)); done; echo $i")
    assert int(made.text) == 50 and NO_SPACE in made.error
    mkdir = small.run("mkdir /sdcard/more")
    assert mkdir.status == 1 and NO_SPACE in mkdir.error
    assert measure(space.root)[1] <= space.max_entries
    # mkdir -p of folders that exist takes nothing: the count is unchanged, so it still works.
    assert small.run("mkdir -p /sdcard/Download && echo ok").text == "ok\n"


def test_a_push_beyond_the_partition_fails_and_leaves_nothing_behind(tmp_path: Path) -> None:
    device = make_device(tmp_path)
    space = device.fs.space
    space.size = measure(device.fs.root)[0] + 200_000
    payload = req(b"SEND", b"/sdcard/big.bin,33188")
    for _ in range(10):  # 600 kB in 60 kB chunks
        payload += b"DATA" + struct.pack("<I", 60_000) + bytes(60_000)
    payload += b"DONE" + struct.pack("<I", 0)
    reply, _ = asyncio.run(sync_exchange(device, payload))
    assert reply.startswith(b"FAIL") and b"write failed: No space left on device" in reply
    assert not device.fs.exists("/sdcard/big.bin")
    assert space.held == 0 and not list((tmp_path / "sync-staging").iterdir())
    # What fits is pushed, and counted.
    fits = req(b"SEND", b"/sdcard/ok.bin,33188") + b"DATA" + struct.pack("<I", 60_000) + bytes(60_000)
    reply, _ = asyncio.run(sync_exchange(device, fits + b"DONE" + bytes(4)))
    assert reply == b"OKAY" + bytes(4) and device.fs.stat("/sdcard/ok.bin").st_size == 60_000
    assert space.free() <= 200_000 - 60_000


def test_a_database_grows_by_the_room_left_and_its_cap_cannot_be_lifted(small: ShellDevice) -> None:
    grow = (
        "CREATE TABLE t(b); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100) "
        "INSERT INTO t SELECT zeroblob(1000000) FROM c;"
    )
    full = small.run(f'sqlite3 /sdcard/x.db "{grow}"')
    assert full.status == 1 and "database or disk is full" in full.error
    lift = small.run('sqlite3 /sdcard/x.db "PRAGMA max_page_count = 1000000000;"')
    assert lift.status == 1 and "not authorized" in lift.error
    assert on_disk(small) <= small.device.fs.space.size
    assert small.run('sqlite3 /sdcard/x.db "SELECT count(*) FROM t;"').text == "0\n"  # rolled back


def test_temporary_tables_stay_in_memory_and_the_device_cannot_move_them_to_disk(small: ShellDevice) -> None:
    # On disk they would be unlinked files outside the device's space (1 GB from one command).
    for flags in ("", "-readonly "):  # a read-only connection may make temporary tables too
        store = small.run(f'sqlite3 {flags}/sdcard/t.db "CREATE TEMP TABLE t(b); PRAGMA temp_store;"')
        assert store.text == "2\n", store.error  # 2: MEMORY
        lifted = small.run(f'sqlite3 {flags}/sdcard/t.db "PRAGMA temp_store = FILE;"')
        assert lifted.status == 1 and "not authorized" in lifted.error


def test_settings_and_provider_writes_stop_when_full_and_reading_goes_on(small: ShellDevice) -> None:
    value = "v" * 120_000  # an argument a device's exec takes (under 128 KiB)
    statuses = [small.run(f"settings put system big{i} {value}").status for i in range(60)]
    assert 255 in statuses and statuses.index(255) >= 4
    put = small.run(f"settings put system big99 {value}")
    assert "SQLiteFullException: database or disk is full" in put.error
    assert small.run("settings get system big0").text == value + "\n"
    assert small.run("settings put system font_scale 1.1 && settings get system font_scale").text == "1.1\n"
    uri = "content://settings/system"
    insert = small.run(f"content insert --uri {uri} --bind name:s:c --bind value:s:{value}")
    assert insert.status != 0 and "full" in insert.error + insert.text
    assert on_disk(small) <= small.device.fs.space.size


def test_an_install_larger_than_the_room_left_is_refused(small: ShellDevice) -> None:
    result = small.run("pm install -S 99999999")
    assert "INSTALL_FAILED_INSUFFICIENT_STORAGE" in result.text


def test_loading_a_snapshot_gives_the_room_back(small: ShellDevice) -> None:
    snapshot.save(small.device, "clean")
    small.run("yes 0123456789abcdef | head -c 4000000 > /sdcard/a; cp /sdcard/a /sdcard/b")
    assert NO_SPACE in small.run("echo x > /sdcard/c; cp /sdcard/a /sdcard/d").error
    snapshot.load(small.device, "clean")
    assert small.run("yes 0123456789abcdef | head -c 3000000 > /sdcard/e && echo ok").text == "ok\n"


@given(st.text(max_size=12))
def test_a_farm_storage_flag_is_refused_in_one_sentence_or_is_one_the_sim_takes(text: str) -> None:
    try:
        checked = check_storage(text)
    except MgfarmError as exc:
        assert str(exc).startswith("--storage ") and str(exc).count(".") >= 1
        return
    assert memory_size(checked) >= 64 * MIB


def test_a_full_device_starts_every_app_and_shows_its_screens(sh: ShellDevice) -> None:
    space = sh.device.fs.space
    space.size = measure(sh.device.fs.root)[0] + MIB
    sh.run(FILL)
    assert measure(sh.device.fs.root)[0] == space.size
    packages = [line.split(":", 1)[1] for line in sh.run("pm list packages").text.split()]
    assert len(packages) > 30
    for package in packages:
        sh.run(f"monkey -p {package} -c android.intent.category.LAUNCHER 1")
        shown = sh.run("uiautomator dump /dev/tty")
        assert shown.status == 0 and "keeps stopping" not in shown.text, (package, shown.error)
        assert len(sh.run("screencap -p").out) > 10_000, package
        assert sh.run("input keyevent 3").status == 0


def test_a_photo_that_does_not_fit_is_not_taken_and_the_camera_goes_on(sh: ShellDevice) -> None:
    sh.device.fs.space.size = measure(sh.device.fs.root)[0] + MIB
    sh.run(FILL)
    sh.run("am start -n com.android.camera2/com.android.camera.CameraLauncher")
    bounds = re.search(
        r'shutter_button"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"',
        sh.run("uiautomator dump /dev/tty").text,
    )
    assert bounds is not None
    left, top, right, bottom = (int(v) for v in bounds.groups())
    assert sh.run(f"input tap {(left + right) // 2} {(top + bottom) // 2}").status == 0
    shown = sh.run("uiautomator dump /dev/tty").text
    assert "Storage space running out" in shown and 'package="com.android.camera2"' in shown
    assert sh.run("ls /sdcard/Pictures").text == ""  # no empty photo left for a judge to count


def test_what_an_app_saves_counts_and_a_full_device_refuses_the_save(sh: ShellDevice) -> None:
    # A hostile agent types long text into an app that keeps it in its database (`apps.base.sql`):
    # that is the device's data too, so it fills the partition, not the host's disk.
    space = sh.device.fs.space
    space.size = measure(sh.device.fs.root)[0] + 4 * MIB
    screen = Screen(sh.device)
    db = sh.device.fs.host("/data/data/org.tasks/databases/database")

    def new_task(title: str) -> None:
        screen.tap(desc="Create new task")
        screen.wm.text(title)
        screen.wm.key(4)  # BACK hides the keyboard, then leaves the editor, saving the title
        screen.wm.key(4)

    screen.am.launch("org.tasks")
    counted, on_host = space.usage()[0], measure(sh.device.fs.root)[0]
    new_task("a" * 1_000_000)
    grown = measure(sh.device.fs.root)[0] - on_host
    assert grown > 900_000 and space.usage()[0] - counted == grown
    sh.run(FILL)
    assert measure(sh.device.fs.root)[0] == space.size
    screen.tap(desc="Create new task")  # a new task is a row at once: the insert is refused
    assert "Storage space running out" in screen.xml()
    assert 'package="org.tasks"' in screen.xml() and "keeps stopping" not in screen.xml()
    assert sql(db, "SELECT count(*) FROM tasks") == [(1,)]
    assert measure(sh.device.fs.root)[0] <= space.size
    sh.run("rm /sdcard/fill")
    new_task("Buy milk")
    assert sql(db, "SELECT count(*) FROM tasks WHERE title = 'Buy milk'") == [(1,)]
