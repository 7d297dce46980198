"""Generic file checks a judge names: how often a record occurs in a file an app appends to."""

from __future__ import annotations

from typing import Any

from mgfarm.catalog.verifiers.generic import file_occurrences
from mgfarm.device.device import FileMissing
from mgfarm.tasks.judge import CheckContext

GPX = b'<gpx><wpt lat="47.1"><name>Home</name></wpt><wpt lat="47.2"><name>Work</name></wpt></gpx>'


class OneFile:
    """A device holding one file, answering `pull` as the controllers do."""

    profile = ""  # the default profile's paths

    def __init__(self, path: str, data: bytes) -> None:
        self.path, self.data = path, data

    def pull(self, path: str) -> bytes:
        if path != self.path:
            raise FileMissing(path)
        return self.data


def ctx(device: Any) -> CheckContext:
    return CheckContext(device=device, answer={}, params={})


def test_occurrences_count_records_and_a_missing_file_fails() -> None:
    device = OneFile("/sdcard/f.gpx", GPX)
    assert file_occurrences(ctx(device), path="/sdcard/f.gpx", text="<wpt ", equals=2).ok
    assert not file_occurrences(ctx(device), path="/sdcard/f.gpx", text="<wpt ", equals=3).ok
    assert file_occurrences(ctx(device), path="/sdcard/f.gpx", text="<name>Work</name>", equals=1).ok
    missing = file_occurrences(ctx(device), path="/sdcard/g.gpx", text="<wpt ", equals=0)
    assert not missing.ok and "missing" in missing.detail
