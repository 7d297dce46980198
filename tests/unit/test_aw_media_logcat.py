"""The media store over shared storage, and logcat's buffers, formats, filters and follow mode."""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import run_command_line
from tests.unit.shellkit import ShellDevice

# android_env's LogcatThread line regex for `logcat -v epoch`.
EPOCH_LINE = re.compile(
    r"^[ ]+(?P<timestamp>[0-9]+\.[0-9]+)[ ]+(?P<pid>[0-9]+)[ ]+(?P<tid>[0-9]+)[ ]+(?P<priority>.)"
    r"[ ]+(?P<tag>[^:]*):[ ](?P<message>.*)$"
)
THREADTIME_LINE = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] .{8,}: .*$")


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("media"))
    yield dev
    dev.close()


def rows(sh: ShellDevice, uri: str, column: str) -> list[str]:
    out = sh.run(f"content query --uri {uri} --projection {column}").text
    return re.findall(rf"{column}=([^,\n]*)", out)


def test_media_store_follows_files(sh: ShellDevice) -> None:
    sh.run(
        "echo a > /sdcard/Pictures/cat.jpg; echo b > /sdcard/Music/song.mp3; echo c > /sdcard/Download/x.txt"
    )
    sh.run("echo d > /sdcard/Movies/clip.mp4")
    assert rows(sh, "content://media/external/images/media", "_data") == [
        "/storage/emulated/0/Pictures/cat.jpg"
    ]
    assert rows(sh, "content://media/external/audio/media", "mime_type") == ["audio/mpeg"]
    assert rows(sh, "content://media/external/video", "_display_name") == ["clip.mp4"]
    assert len(rows(sh, "content://media/external/file", "_id")) == 4
    sh.run("rm /sdcard/Music/song.mp3")
    assert rows(sh, "content://media/external/audio/media", "_id") == []
    # Deleting a row deletes its file, as MediaProvider does (AndroidWorld clears downloads so).
    sh.run("content delete --uri content://media/external/downloads")
    assert sh.run("ls /sdcard/Download").text == ""
    assert sh.run("content query --uri content://media/internal/images").status != 0


def test_media_rows_cannot_delete_files_outside_storage(sh: ShellDevice) -> None:
    sh.run("echo keep > /data/local/tmp/keep.txt")
    sh.run(
        "content insert --uri content://media/external/file "
        "--bind _data:s:/storage/emulated/0/../../../data/local/tmp/keep.txt"
    )
    sh.run("content delete --uri content://media/external/file --where \"_data LIKE '%keep%'\"")
    assert sh.run("cat /data/local/tmp/keep.txt").text == "keep\n"


def test_logcat_dump_formats_and_filters(sh: ShellDevice) -> None:
    sh.run("logcat -b all -c")
    sh.run("am start -n com.android.settings/.Settings")
    sh.run("log -t RewardTag -p i reward: 1.5")
    lines = sh.run("logcat -d").text.splitlines()
    assert lines and all(THREADTIME_LINE.match(line) for line in lines), lines
    assert any("START u0 {" in line and "cmp=com.android.settings/.Settings" in line for line in lines)
    epoch = sh.run("logcat -d -v epoch RewardTag:I *:S").text.splitlines()
    assert len(epoch) == 1
    m = EPOCH_LINE.match(epoch[0])
    assert m and (m["tag"].strip(), m["message"], m["priority"]) == ("RewardTag", "reward: 1.5", "I")
    assert sh.run("logcat -d -s ActivityTaskManager").text.count("ActivityTaskManager") >= 2
    assert sh.run("logcat -d -t 1").text.splitlines() == [lines[-1]]
    sh.run("logcat -c")
    assert sh.run("logcat -d").text == ""
    assert sh.run("logcat -v nonsense").status == 1
    assert sh.run("logcat -d BadSpec:Q").status == 1


def test_logcat_follows_until_the_reader_leaves(sh: ShellDevice) -> None:
    async def scenario() -> list[str]:
        io = ShellIO.buffered()
        follower = asyncio.ensure_future(run_command_line(sh.device, "logcat -v epoch Follow:V *:S", io))
        await asyncio.sleep(0.2)
        await run_command_line(sh.device, "log -t Follow first", ShellIO.buffered())
        await run_command_line(sh.device, "log -t Other ignored", ShellIO.buffered())
        await run_command_line(sh.device, "log -t Follow second", ShellIO.buffered())
        await asyncio.sleep(0.4)
        assert not follower.done()
        follower.cancel()
        return bytes(io.stdout.collected).decode().splitlines()

    lines = sh.loop.run_until_complete(scenario())
    assert [EPOCH_LINE.match(line)["message"] for line in lines] == ["first", "second"]  # type: ignore[index]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "-d",
                "-v",
                "epoch",
                "-b",
                "all",
                "-t",
                "3",
                "-s",
                "*:S",
                "X:Q",
                "-e",
                "(",
                "--pid",
                "-m",
                "1",
                "Tag:W",
            ]
        ),
        max_size=6,
    )
)
def test_logcat_options_never_crash(args: list[str]) -> None:
    if not FUZZ:
        FUZZ.append(ShellDevice(Path(tempfile.mkdtemp(prefix="logcat-fuzz-"))))
    dev = FUZZ[0]
    args = ["-d", *args, "-d"]  # dump mode whatever option swallows a neighbour as its value
    r = dev.run("logcat " + " ".join(f"'{a}'" for a in args))
    assert r.status in (0, 1)
    if r.status == 1:
        assert r.error.startswith("logcat: ")


FUZZ: list[ShellDevice] = []


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abcdefilmnopstuvx/:._-0123456789", max_size=60))
def test_media_uris_resolve_or_are_refused(tail: str) -> None:
    from mgfarm.sim.system.media import MediaStore
    from mgfarm.sim.system.providers import ProviderError

    if not FUZZ:
        FUZZ.append(ShellDevice(Path(tempfile.mkdtemp(prefix="logcat-fuzz-"))))
    store = MediaStore(FUZZ[0].device)
    try:
        route, _, row_id = store.route("content://media/" + tail)
    except ProviderError as exc:
        assert str(exc).startswith("Unknown URI: ")
        return
    assert route.table == "files" and (row_id is None or row_id.isdigit())
