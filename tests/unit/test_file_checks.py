"""Generic file checks a judge names: how often a record occurs in a file an app appends to, read
within bounds (the file is the device's, the reading is in the trainer's process)."""

from __future__ import annotations

import pytest

from mgfarm.catalog.verifiers.generic import (
    file_contains,
    file_count,
    file_exists,
    file_missing,
    file_occurrences,
)
from mgfarm.tasks import judge
from mgfarm.tasks.judge import CheckContext
from mgfarm.tasks.state import UnreadableData
from tests.unit.shellkit import SimTaskDevice

GPX = b'<gpx><wpt lat="47.1"><name>Home</name></wpt><wpt lat="47.2"><name>Work</name></wpt></gpx>'
PATH = "/sdcard/Download/f.gpx"


@pytest.fixture
def device(task_device: SimTaskDevice) -> SimTaskDevice:
    task_device.sh.host(PATH).write_bytes(GPX)
    return task_device


def ctx(device: SimTaskDevice) -> CheckContext:
    return CheckContext(device=device, answer={}, params={})  # type: ignore[arg-type]


def test_occurrences_count_records_and_a_missing_file_fails(device: SimTaskDevice) -> None:
    assert file_occurrences(ctx(device), path=PATH, text="<wpt ", equals=2).ok
    assert not file_occurrences(ctx(device), path=PATH, text="<wpt ", equals=3).ok
    assert file_occurrences(ctx(device), path=PATH, text="<name>Work</name>", equals=1).ok
    assert file_contains(ctx(device), path=PATH, text="<NAME>home</name>").ok
    missing = file_occurrences(ctx(device), path="/sdcard/Download/g.gpx", text="<wpt ", equals=0)
    assert not missing.ok and "missing" in missing.detail


def test_a_file_over_the_bound_or_not_a_file_is_never_pulled(
    device: SimTaskDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judge, "MAX_FILE_BYTES", len(GPX) - 1)
    with pytest.raises(UnreadableData, match="over"):
        file_occurrences(ctx(device), path=PATH, text="<wpt ", equals=2)
    assert device.sh.run(f"rm {PATH} && mkdir {PATH}").status == 0
    with pytest.raises(UnreadableData, match="is a directory"):
        file_contains(ctx(device), path=PATH, text="Home")
    assert device.pulled == []


def test_a_count_of_files_counts_names_with_spaces_and_line_breaks_once(device: SimTaskDevice) -> None:
    made = "mkdir -p /sdcard/Pictures/sub && touch '/sdcard/Pictures/a b.jpg' /sdcard/Pictures/c.png"
    assert device.sh.run(made + " '/sdcard/Pictures/x\ny.jpg' /sdcard/Pictures/sub/d.jpg").status == 0
    assert file_count(ctx(device), folder="/sdcard/Pictures", equals=3).ok  # not the folder, not sub/d.jpg
    assert file_count(ctx(device), folder="/sdcard/Pictures", equals=2, pattern="*.jpg").ok
    assert file_count(ctx(device), folder="/sdcard/Nowhere", equals=0).ok


def test_file_checks_take_the_devices_answer_never_a_silent_shell(
    device: SimTaskDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert file_exists(ctx(device), path=PATH).ok and file_missing(ctx(device), path="/sdcard/nothing").ok
    monkeypatch.setattr(device, "shell", lambda script: "")  # a shell that printed nothing
    with pytest.raises(UnreadableData, match="answered ''"):
        file_missing(ctx(device), path="/sdcard/nothing")  # was: "missing", and paid
    with pytest.raises(UnreadableData, match="stopped early"):
        file_count(ctx(device), folder="/sdcard/Pictures", equals=0)  # was: 0 files, and paid
