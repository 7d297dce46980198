"""Files apps read on every frame (preferences, OsmAnd's favourites, pictures) are parsed once for
each version of the file, and a file rewritten within one tick of the kernel's clock, which can keep
its size and times, is never taken for the version before."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from mgfarm.sim.ui.kept import SETTLED_NS, parsed_file, read_bounded


def counting(calls: list[bytes]) -> Callable[[bytes], str]:
    def parse(data: bytes) -> str:
        calls.append(data)
        return data.decode()

    return parse


def test_a_file_is_parsed_once_for_each_version(tmp_path: Path) -> None:
    path = tmp_path / "f.xml"
    calls: list[bytes] = []
    parse = counting(calls)
    path.write_bytes(b"A" * 100)
    time.sleep(SETTLED_NS / 1e9)
    assert [parsed_file(path, 1000, parse) for _ in range(3)] == ["A" * 100] * 3
    assert len(calls) == 1
    path.write_bytes(b"B" * 100)  # the same size
    assert parsed_file(path, 1000, parse) == "B" * 100


def test_a_file_just_written_is_read_again_each_time(tmp_path: Path) -> None:
    """Two writes of the same size within a tick leave the same size and times: a version is kept
    only once its change time is behind the clock by more than a tick."""
    path = tmp_path / "f.xml"
    calls: list[bytes] = []
    parse = counting(calls)
    for text in (b"A" * 50, b"B" * 50, b"C" * 50):
        path.write_bytes(text)
        assert parsed_file(path, 1000, parse) == text.decode()
        assert parsed_file(path, 1000, parse) == text.decode()
    assert len(calls) == 6


def test_a_file_over_the_limit_or_missing_is_none(tmp_path: Path) -> None:
    path = tmp_path / "f.xml"
    path.write_bytes(b"x" * 1001)
    assert parsed_file(path, 1000, bytes.decode) is None
    assert parsed_file(tmp_path / "missing", 1000, bytes.decode) is None
    assert parsed_file(tmp_path, 1000, bytes.decode) is None  # a folder


def test_a_file_over_the_limit_is_not_read(tmp_path: Path) -> None:
    """Its size tells: a picture of 40 MB had 32 MB read on every frame only to be found too large."""
    path = tmp_path / "big"
    with open(path, "wb") as f:
        f.truncate(1 << 30)  # sparse
    tracemalloc.start()
    try:
        assert parsed_file(path, 32 << 20, bytes.decode) is None
        assert read_bounded(path, 32 << 20) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
