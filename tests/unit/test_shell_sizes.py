"""dd, du, truncate, df and the device nodes, as Android 13's toybox shows them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mgfarm.sim.shell.blocks import atolx, human_readable
from mgfarm.sim.shell.files import CommandError
from mgfarm.sim.shell.system import parse_duration
from tests.unit.shellkit import ShellDevice

XFER = re.compile(r"\d+ bytes \(\d+(\.\d)? ?[KMG]?B?\) copied, \d+\.\d{6} s, \d+(\.\d)? ?[KMG]?B?/s\n")


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path, boot=False)
    yield dev
    dev.close()


def records(error: str) -> list[str]:
    return error.splitlines()[:2]


def test_dd_makes_files_of_blocks_and_says_what_it_copied(sh: ShellDevice) -> None:
    r = sh.run("dd if=/dev/zero of=/sdcard/z bs=1k count=4")
    assert r.status == 0 and r.out == b""
    assert records(r.error) == ["4+0 records in", "4+0 records out"]
    assert XFER.fullmatch(r.error.splitlines(keepends=True)[2])
    assert "4096 bytes (4.0 K) copied" in r.error
    assert sh.host("/sdcard/z").read_bytes() == bytes(4096)
    # a last short block is a partial record; obs apart from ibs counts output blocks of its own
    r = sh.run("dd if=/sdcard/z of=/sdcard/y bs=1000")
    assert records(r.error) == ["4+1 records in", "4+1 records out"]
    assert sh.host("/sdcard/y").read_bytes() == bytes(4096)
    r = sh.run("printf abcdef | dd ibs=4 obs=3 status=noxfer")
    assert (r.out, r.error) == (b"abcdef", "1+1 records in\n2+0 records out\n")


def test_dd_skips_seeks_counts_and_pads(sh: ShellDevice) -> None:
    assert sh.run("echo hello | dd bs=2 skip=1 count=2 status=none").out == b"llo\n"
    assert sh.run("printf abcdefgh | dd iflag=skip_bytes,count_bytes skip=3 count=2 status=none").out == b"de"
    assert sh.run("printf ab | dd bs=4 conv=sync status=none").out == b"ab\0\0"
    sh.run("dd if=/dev/zero of=/sdcard/s bs=1M seek=3 count=1 status=none")
    assert sh.host("/sdcard/s").stat().st_size == 4 << 20  # the first 3 MiB a hole
    sh.run("printf XY | dd of=/sdcard/s bs=1 seek=1 conv=notrunc status=none")
    assert sh.host("/sdcard/s").read_bytes()[:4] == b"\0XY\0"
    assert sh.host("/sdcard/s").stat().st_size == 4 << 20
    r = sh.run("printf abc | dd bs=1 skip=9")
    assert (r.status, r.out) == (0, b"stdin: Can't skip\n")


def test_dd_refuses_what_toybox_refuses(sh: ShellDevice) -> None:
    for line, message in [
        ("dd foo", "dd: bad arg foo\n"),
        ("dd bs=0", "dd: 0 < 1\n"),
        ("dd bs=1q", "dd: not integer: 1q\n"),
        ("dd conv=fast", "dd: bad conv=fast\n"),
        ("dd status=all", "dd: unknown status 'all'\n"),
    ]:
        r = sh.run(line)
        assert (r.status, r.error) == (1, message), line
    r = sh.run("dd if=/nope status=noxfer")
    assert (r.status, r.error) == (
        1,
        "dd: /nope: No such file or directory\n0+0 records in\n0+0 records out\n",
    )
    r = sh.run("dd if=/dev/zero of=/system/x count=1 status=none")
    assert (r.status, r.error) == (1, "dd: /system/x: Read-only file system\n")


def test_dd_from_an_endless_device_stops_at_a_full_partition(sh: ShellDevice) -> None:
    sh.device.fs.space.size = 8 << 20
    r = sh.run("dd if=/dev/zero of=/sdcard/fill bs=64k status=noxfer", timeout=60)
    assert r.status == 1
    assert r.error.startswith("dd: /sdcard/fill: write error: No space left on device\n")
    full, written = (int(x.split("+")[0]) for x in records(r.error.split("\n", 1)[1]))
    assert full == written + 1 and 100 < written < 128  # the block read that did not fit is counted in
    assert sh.run("df /data").text.split("\n")[2].split()[4] == "100%"
    # an rm makes room at once, as on a device
    assert sh.run("rm /sdcard/fill && df /data").text.split("\n")[2].split()[4] != "100%"


def test_device_nodes_read_and_swallow_as_on_a_device(sh: ShellDevice) -> None:
    assert (
        sh.run("cat /dev/null; head -c 16 /dev/urandom | wc -c; head -c 5 /dev/zero | wc -c").text
        == "16\n5\n"
    )
    assert sh.run("ls -l /dev/null").text.startswith("crw-rw-rw- ")
    assert sh.run("ls /dev").text == "null\nrandom\nurandom\nzero\n"
    assert sh.run("test -c /dev/zero && test -e /dev/random && echo yes").text == "yes\n"
    before = sh.run("df /data").text.splitlines()[2]  # /data's line (the first is the host's disk)
    r = sh.run("dd if=/dev/zero of=/dev/null bs=1M count=64 status=none; echo x > /dev/zero; echo $?")
    assert r.text == "0\n"
    assert sh.run("df /data").text.splitlines()[2] == before  # what a node swallows takes no room
    sh.run("echo gone > /sdcard/f; cat /dev/null > /sdcard/f; cp /dev/null /sdcard/g")
    assert sh.host("/sdcard/f").read_bytes() == sh.host("/sdcard/g").read_bytes() == b""


def test_du_sums_blocks_children_first(sh: ShellDevice) -> None:
    sh.run("mkdir -p /sdcard/d/e && dd if=/dev/zero of=/sdcard/d/e/f bs=1k count=10 status=none")
    sh.run("dd if=/dev/zero of=/sdcard/d/g bs=1k count=3 status=none")
    lines = sh.run("du /sdcard/d").text.splitlines()
    assert [line.split("\t")[1] for line in lines] == ["/sdcard/d/e", "/sdcard/d"]
    sizes = [int(line.split("\t")[0]) for line in lines]
    assert sizes[0] >= 10 and sizes[1] >= sizes[0] + 3
    assert sh.run("du -s /sdcard/d").text == f"{sizes[1]}\t/sdcard/d\n"
    assert sh.run("du -sb /sdcard/d/e/f").text == "10240\t/sdcard/d/e/f\n"
    assert [x.split("\t")[1] for x in sh.run("du -a /sdcard/d").text.splitlines()] == [
        "/sdcard/d/e/f",
        "/sdcard/d/e",
        "/sdcard/d/g",
        "/sdcard/d",
    ]
    assert sh.run("du -d 0 /sdcard/d").text == f"{sizes[1]}\t/sdcard/d\n"
    assert sh.run("du -c -s /sdcard/d /sdcard/d/e").text.splitlines()[-1] == f"{sizes[0] + sizes[1]}\ttotal"
    assert sh.run("du /nope").error == "du: /nope: No such file or directory\n"


def test_truncate_sets_lengths_by_size_or_change(sh: ShellDevice) -> None:
    for line, size in [
        ("truncate -s 10k /sdcard/t", 10240),
        ("truncate -s +5 /sdcard/t", 10245),
        ("truncate -s -45 /sdcard/t", 10200),
        ("truncate -s '>100' /sdcard/t", 10200),
        ("truncate -s '<100' /sdcard/t", 100),
        ("truncate -s %64 /sdcard/t", 128),
        ("truncate -s /100 /sdcard/t", 100),
    ]:
        assert sh.run(line).status == 0, line
        assert sh.host("/sdcard/t").stat().st_size == size, line
    assert sh.run("truncate -c -s 1 /sdcard/none; ls /sdcard/none").error.endswith(
        "No such file or directory\n"
    )
    assert sh.run("truncate /sdcard/t").error == "truncate: Need -s\n"
    assert sh.run("truncate -s 5x /sdcard/t").error == "truncate: not integer: 5x\n"
    assert sh.run("truncate -s 0 /system/x").error == "truncate: /system/x: Read-only file system\n"


def test_numbers_and_sizes_read_and_print_as_toybox() -> None:
    assert [atolx(x) for x in ("512", "0x10", "010", "1k", "1K", "2b", "3w", "1m", "1kd", "1Md", "7c")] == [
        512,
        16,
        8,
        1024,
        1024,
        1024,
        6,
        1 << 20,
        1000,
        1000000,
        7,
    ]
    for bad in ("", "k", "1x", "1bd", "1.5", "1 k"):
        with pytest.raises(CommandError):
            atolx(bad)
    assert [human_readable(n) for n in (0, 999, 1000, 1024, 1536, 10240, 1048576, 1138688)] == [
        "0",
        "999",
        "0.9K",  # toybox rounds 1000 up to one unit, then shows its tenths of 1024
        "1.0K",
        "1.5K",
        "10K",
        "1.0M",
        "1.0M",
    ]


@given(st.integers(0, 2**62))
def test_human_readable_has_three_digits_at_most(n: int) -> None:
    text = human_readable(n)
    assert re.fullmatch(r"\d{1,3}|\d\.\d[KMGTPE]|\d{2,3}[KMGTPE]", text), text


@given(st.text(max_size=12))
def test_any_size_or_duration_is_a_number_or_one_error(text: str) -> None:
    try:
        assert isinstance(atolx(text), int)
    except CommandError as exc:
        assert str(exc) == f"not integer: {text}"
    try:
        assert parse_duration(text) >= 0
    except ValueError as exc:
        said = str(exc)
        assert said == f"Not a number '{text}'" or (
            said.startswith("Unknown suffix '") and text.endswith(said[len("Unknown suffix '") : -1])
        )
