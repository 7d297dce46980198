"""sort and uniq as toybox 0.8.6 runs them (mgfarm/sim/shell/sort_cmd.py).

Every expected status, stdout and stderr in CASES was produced by a real toybox 0.8.6 binary built
from source with Android's device config (`toybox sort ...` / `toybox uniq ...` fed the same
input), not written by hand.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import run_command_line
from tests.unit.shellkit import ShellDevice


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    device = ShellDevice(tmp_path_factory.mktemp("sort"), boot=False)
    yield device
    device.close()


# (command line, stdin, status, stdout, stderr), from toybox 0.8.6.
CASES = [
    ("sort", b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n", 0, b"  c 1 z\nB 2 w\na 10 y\na 10 y\nb 2 x\n", ""),
    (
        "sort -r",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"b 2 x\na 10 y\na 10 y\nB 2 w\n  c 1 z\n",
        "",
    ),
    ("sort -u", b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n", 0, b"  c 1 z\nB 2 w\na 10 y\nb 2 x\n", ""),
    (
        "sort -f",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\na 10 y\na 10 y\nB 2 w\nb 2 x\n",
        "",
    ),
    (
        "sort -b",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"B 2 w\na 10 y\na 10 y\nb 2 x\n  c 1 z\n",
        "",
    ),
    (
        "sort -k2",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\na 10 y\na 10 y\nB 2 w\nb 2 x\n",
        "",
    ),
    (
        "sort -k2,2",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\na 10 y\na 10 y\nB 2 w\nb 2 x\n",
        "",
    ),
    (
        "sort -k2n",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\nB 2 w\nb 2 x\na 10 y\na 10 y\n",
        "",
    ),
    (
        "sort -k2,2n -k1r",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\nb 2 x\nB 2 w\na 10 y\na 10 y\n",
        "",
    ),
    (
        "sort -k1.2,1.3",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"a 10 y\na 10 y\nB 2 w\nb 2 x\n  c 1 z\n",
        "",
    ),
    (
        "sort -s -k2,2n",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\nb 2 x\nB 2 w\na 10 y\na 10 y\n",
        "",
    ),
    ("sort -u -k2,2n", b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n", 0, b"  c 1 z\nB 2 w\nb 2 x\na 10 y\n", ""),
    ("sort -su -k2,2n", b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n", 0, b"  c 1 z\nb 2 x\na 10 y\n", ""),
    (
        "sort -k3",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"B 2 w\nb 2 x\na 10 y\na 10 y\n  c 1 z\n",
        "",
    ),
    (
        "sort -rk2,2n",
        b"b 2 x\na 10 y\n  c 1 z\nB 2 w\na 10 y\n",
        0,
        b"  c 1 z\nb 2 x\nB 2 w\na 10 y\na 10 y\n",
        "",
    ),
    (
        "sort -t: -k3n",
        b"root:x:0:0\nshell:x:2000:2000\nsystem:x:1000:1000\nbin:x:2:2\n",
        0,
        b"root:x:0:0\nbin:x:2:2\nsystem:x:1000:1000\nshell:x:2000:2000\n",
        "",
    ),
    (
        "sort -t: -k3,3",
        b"root:x:0:0\nshell:x:2000:2000\nsystem:x:1000:1000\nbin:x:2:2\n",
        0,
        b"root:x:0:0\nsystem:x:1000:1000\nshell:x:2000:2000\nbin:x:2:2\n",
        "",
    ),
    (
        "sort -t: -k2,2 -k1r",
        b"root:x:0:0\nshell:x:2000:2000\nsystem:x:1000:1000\nbin:x:2:2\n",
        0,
        b"system:x:1000:1000\nshell:x:2000:2000\nroot:x:0:0\nbin:x:2:2\n",
        "",
    ),
    ("sort -n", b" 5\n0x10\n1e3\n3\n-2\n\n+4\nabc\n.5\n", 0, b"-2\n\nabc\n.5\n3\n+4\n 5\n0x10\n1e3\n", ""),
    ("sort -g", b" 5\n0x10\n1e3\n3\n-2\n\n+4\nabc\n.5\n", 0, b"\nabc\n-2\n.5\n3\n+4\n 5\n0x10\n1e3\n", ""),
    ("sort -x", b"ff\n0x10\n9\n-a\n", 0, b"-a\n9\n0x10\nff\n", ""),
    ("sort -M", b"feb\nJANUARY\nxyz\n jan\nDec\nmar\n", 0, b" jan\nxyz\nJANUARY\nfeb\nmar\nDec\n", ""),
    (
        "sort -V",
        b"a10\na2\nv1.10\nv1.9\nabc-1\nabc-1-rc1\n1.2\n",
        0,
        b"1.2\na2\na10\nabc-1-rc1\nabc-1\nv1.9\nv1.10\n",
        "",
    ),
    ("sort -d", b"a.c\nab\n_b\n", 0, b"ab\na.c\n_b\n", ""),
    ("sort -i", b"\x01b\na\n", 0, b"a\n\x01b\n", ""),
    ("sort -c", b"a\nc\nb\n", 1, b"", "sort: -: Check line 2\n\n"),
    ("sort -c", b"a\nb\nb\n", 0, b"", ""),
    ("sort -cu", b"a\nb\nb\n", 1, b"", "sort: -: Check line 2\n\n"),
    ("sort -cr", b"b\na\n", 0, b"", ""),
    ("sort -z", b"b\nx\x00a\x00c", 0, b"a\x00b\nx\x00c\x00", ""),
    ("sort", b"b\na", 0, b"a\nb\n", ""),
    ("sort", b"\xff\n\xc3\xa9\nz\n", 0, b"z\n\xc3\xa9\n\xff\n", ""),
    ("sort -f", b"_\nB\na\n", 0, b"_\na\nB\n", ""),
    ("sort -h", b"", 2, b"", "sort: Unknown option 'h' (see \"sort --help\")\n"),
    ("sort -k", b"", 2, b"", 'sort: Missing argument to -k (see "sort --help")\n'),
    ("sort -k1,2,3", b"", 2, b"", "sort: Unknown key option.\n"),
    ("sort -k1g", b"", 2, b"", "sort: Unknown key option.\n"),
    ("sort --foo", b"", 2, b"", "sort: Unknown option 'foo' (see \"sort --help\")\n"),
    ("sort -S 1M -T /tmp -m", b"b\na\n", 0, b"a\nb\n", ""),
    ("uniq", b"a\na\nb\na", 0, b"a\nb\na", ""),
    ("uniq", b"a\na", 0, b"a\na", ""),
    ("uniq -c", b"x\nx\ny\nx\n", 0, b"      2 x\n      1 y\n      1 x\n", ""),
    ("uniq -d", b"a\na\nb\n", 0, b"a\n", ""),
    ("uniq -u", b"a\na\nb\n", 0, b"b\n", ""),
    ("uniq -i", b"A\na\nb\n", 0, b"A\nb\n", ""),
    ("uniq -f1", b"1 a\n2 a\n3 b\n", 0, b"1 a\n3 b\n", ""),
    ("uniq -s2", b"xxa\nyya\nzzb\n", 0, b"xxa\nzzb\n", ""),
    ("uniq -w1", b"ab\nac\nbc\n", 0, b"ab\nbc\n", ""),
    ("uniq -z", b"a\x00a\x00b", 0, b"a\x00b\x00", ""),
    ("uniq -cz", b"a\nb\x00a\nb\x00", 0, b"      2 a\nb\x00", ""),
    ("uniq -w x", b"", 1, b"", "uniq: not integer: x\n"),
    ("uniq -h", b"", 1, b"", "uniq: Unknown option 'h' (see \"uniq --help\")\n"),
    ("uniq -c", b"a\x00x\na\x00y\nb", 0, b"      2 a      1 b", ""),
]


@pytest.mark.parametrize(("line", "stdin", "status", "out", "err"), CASES)
def test_matches_toybox(sh: ShellDevice, line: str, stdin: bytes, status: int, out: bytes, err: str) -> None:
    r = sh.run(line, stdin=stdin)
    assert (r.status, r.out, r.error) == (status, out, err)


def test_files_output_file_and_check_names_the_file(sh: ShellDevice) -> None:
    sh.host("/data/local/tmp/a").write_bytes(b"c\nb\n")
    sh.host("/data/local/tmp/b").write_bytes(b"a")
    r = sh.run("cd /data/local/tmp && sort -o a a b nope; echo $?; cat a")
    assert (r.out, r.error) == (b"1\na\nb\nc\n", "sort: nope: No such file or directory\n")
    r = sh.run("cd /data/local/tmp && sort -c a b")
    assert (r.status, r.error) == (1, "sort: b: Check line 3\n\n")
    r = sh.run("cd /data/local/tmp && uniq b out; cat out; uniq -")
    assert (r.out, r.error) == (b"a", "uniq: No file -: No such file or directory\n")


OPTIONS = st.lists(
    st.sampled_from(
        [
            "-r",
            "-n",
            "-u",
            "-s",
            "-b",
            "-f",
            "-d",
            "-i",
            "-M",
            "-V",
            "-g",
            "-x",
            "-z",
            "-c",
            "-t:",
            "-k2",
            "-k2,2n",
            "-k1.2,1.3r",
            "-k3V",
            "-k1bx,2b",
            "-k0",
            "-k1,2,3",
            "-q",
            "-k",
        ]
    ),
    max_size=4,
)
LINES = st.lists(st.sampled_from([b"", b"a", b"B", b" 5", b"0x10", b"1e3", b"nan", b"jan", b"v1.10", b"x:y:1",
                                  b"\xff", b"a\tb", b"-rc1", b"10"]), max_size=12)  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(OPTIONS, LINES, st.booleans())
def test_any_options_end_with_a_status(
    sh: ShellDevice, options: list[str], lines: list[bytes], uniq: bool
) -> None:
    name = "uniq" if uniq else "sort"
    if uniq:
        options = [o for o in options if o[1] in "cdui"] + ["-f1", "-s1", "-w2"][: len(options) % 4]
    r = sh.run(f"{name} {' '.join(options)}", stdin=b"\n".join(lines))
    assert r.status in (0, 1, 2) and "Traceback" not in r.error


def test_a_large_sort_runs_in_a_worker_thread(tmp_path: Path) -> None:
    # 50,000 lines under -V go through the exact merge sort; the loop must keep ticking meanwhile.
    sh = ShellDevice(tmp_path, boot=False)
    data = b"".join(b"v1.%d\n" % ((n * 7919) % 50_000) for n in range(50_000))

    async def measure() -> tuple[int, float]:
        io = ShellIO.buffered(data)
        task = asyncio.ensure_future(run_command_line(sh.device, "sort -V | tail -n 1", io))
        longest, last = 0.0, time.monotonic()
        while not task.done():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            longest, last = max(longest, now - last), now
        assert bytes(io.stdout.collected) == b"v1.49999\n"
        return await task, longest

    status, longest = sh.loop.run_until_complete(measure())
    sh.close()
    assert status == 0 and longest < 0.5
