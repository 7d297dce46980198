"""nl, paste, comm, tac, strings, cksum and the sha*sum/md5sum family as toybox 0.8.6 runs them.

The expected status, stdout and stderr of every case in CASES were recorded by running the same
command line with a real toybox 0.8.6 binary (built from its source with Android's device config)
in a folder holding FILES: the sim must give the same three.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice

WORK = "/data/local/tmp/w"
FILES = {
    "t1": b"a\nb\n\nc\n",
    "nonl": b"x\ny",
    "empty": b"",
    "s1": b"apple\nbanana\ncherry\nfig\n",
    "s2": b"banana\ncherry\ndate\nfig\ngrape\n",
    "bin": b"\x00\x01hello\tworld\xff\xfeab\x02abcdefgh\x7f",
    "latin": b"caf\xe9\n\xff\n",
    "blanks": b"\n\n\na\n\n\nb\n\n",
    "nul": b"a\x00b\nc\n",
}
# (command line, stdin, status, stdout, stderr), recorded from toybox 0.8.6
CASES = [
    ("nl t1", b"", 0, b"     1\ta\n     2\tb\n       \n     3\tc\n", ""),
    ("nl -b a t1", b"", 0, b"     1\ta\n     2\tb\n     3\t\n     4\tc\n", ""),
    (
        "nl -b n -l 1 blanks",
        b"",
        0,
        b"     1\t\n     2\t\n     3\t\n       a\n     4\t\n     5\t\n       b\n     6\t\n",
        "",
    ),
    (
        "nl -ba -l 2 blanks",
        b"",
        0,
        b"       \n     1\t\n       \n     2\ta\n       \n     3\t\n     4\tb\n       \n",
        "",
    ),
    (
        "nl -b pa -s: t1 s1",
        b"",
        0,
        b"     1:a\n       b\n       \n       c\n     2:apple\n     3:banana\n       cherry\n       fig\n",
        "",
    ),
    ("nl -n ln -w 3 nonl", b"", 0, b"1  \tx\n2  \ty", ""),
    ("nl -n rz -v -2 -w 4 t1", b"", 0, b"-002\ta\n-001\tb\n     \n0000\tc\n", ""),
    ("nl -n xx t1", b"", 1, b"", "nl: bad -n 'xx'\n"),
    ("nl -b q t1", b"", 1, b"", "nl: bad -b 'q'\n"),
    ("nl -w -1 t1", b"", 1, b"", 'nl: -w < 0 (see "nl --help")\n'),
    ("nl -w abc t1", b"", 1, b"", "nl: not integer: abc\n"),
    ("nl -v 1k nul", b"", 0, b"  1024\ta  1025\tc\n", ""),
    ("nl -x", b"", 1, b"", "nl: Unknown option 'x' (see \"nl --help\")\n"),
    ("nl -b 'p\\(' t1", b"", 1, b"", "nl: bad regex '\\(': Unmatched ( or \\(\n"),
    (
        "nl nope t1",
        b"",
        1,
        b"     1\ta\n     2\tb\n       \n     3\tc\n",
        "nl: nope: No such file or directory\n",
    ),
    ("nl", b"one\n\ntwo", 0, b"     1\tone\n       \n     2\ttwo", ""),
    ("tac t1 nonl", b"", 0, b"c\n\nb\na\nyx\n", ""),
    ("tac nul", b"", 0, b"c\na", ""),
    ("tac", b"1\n2\n3", 0, b"32\n1\n", ""),
    ("tac nope t1", b"", 1, b"c\n\nb\na\n", "tac: nope: No such file or directory\n"),
    ("paste s1 s2", b"", 0, b"apple\tbanana\nbanana\tcherry\ncherry\tdate\nfig\tfig\n\tgrape\n", ""),
    (
        "paste -d ',;' s1 empty s2",
        b"",
        0,
        b"apple,;banana\nbanana,;cherry\ncherry,;date\nfig,;fig\n,;grape\n",
        "",
    ),
    ("paste -s -d ',;' s1 s2", b"", 0, b"apple,banana;cherry,fig\nbanana,cherry;date,fig;grape\n", ""),
    ("paste -d '\\n' t1 nonl", b"", 0, b"a\nx\nb\ny\n\n\nc\n\n", ""),
    ("paste -d '\\0' s1 s2", b"", 0, b"applebanana\nbananacherry\ncherrydate\nfigfig\ngrape\n", ""),
    ("paste - -", b"1\n2\n3\n", 0, b"1\t2\n3\t\n", ""),
    ("paste nope s1", b"", 1, b"", "paste: Bad file descriptor\n"),
    ("paste -s nul", b"", 0, b"a\x00b\tc\n", ""),
    ("paste -d", b"", 1, b"", 'paste: Missing argument to -d (see "paste --help")\n'),
    ("comm s1 s2", b"", 0, b"apple\n\t\tbanana\n\t\tcherry\n\tdate\n\t\tfig\n\tgrape\n", ""),
    ("comm -12 s1 s2", b"", 0, b"banana\ncherry\nfig\n", ""),
    ("comm -3 s2 s1", b"", 0, b"\tapple\ndate\ngrape\n", ""),
    ("comm -123 nope x", b"", 0, b"", ""),
    ("comm s1", b"", 1, b"", 'comm: Need 2 arguments (see "comm --help")\n'),
    ("comm s1 nope", b"", 1, b"", "comm: No file nope: No such file or directory\n"),
    ("comm - s1", b"", 1, b"", "comm: No file -: No such file or directory\n"),
    ("comm -4 s1 s2", b"", 1, b"", "comm: Unknown option '4' (see \"comm --help\")\n"),
    ("strings bin", b"", 0, b"hello\tworld\nabcdefgh\n", ""),
    ("strings -n 2 -f bin", b"", 0, b"bin: hello\tworld\nbin: ab\nbin: abcdefgh\n", ""),
    ("strings -t x -n 3 bin", b"", 0, b"      2 hello\tworld\n     12 abcdefgh\n", ""),
    ("strings -o bin", b"", 0, b"      2 hello\tworld\n     18 abcdefgh\n", ""),
    ("strings -t q bin", b"", 1, b"", "strings: -t needs oxd\n"),
    ("strings -n 0 bin", b"", 1, b"", 'strings: -n < 1 (see "strings --help")\n'),
    ("strings", b"abcd\x00ef\x01ghijk", 0, b"abcd\nghijk\n", ""),
    ("cksum t1", b"", 0, b"3412545335 7 t1\n", ""),
    ("cksum", b"abc", 0, b"1219131554 3\n", ""),
    ("cksum -H -L t1 empty", b"", 0, b"09e55e50 7 t1\nffffffff 0 empty\n", ""),
    ("cksum -HPLN t1", b"", 0, b"3eeb2bac t1\n", ""),
    ("cksum -I -N bin", b"", 0, b"3685954245 bin\n", ""),
    ("cksum nope", b"", 1, b"", "cksum: nope: No such file or directory\n"),
    (
        "md5sum t1 nonl",
        b"",
        0,
        b"050bced4601ffa1df5bd37bf9d358ec7  t1\n16151ff14c884e2d18c9903202288ba0  nonl\n",
        "",
    ),
    ("md5sum -b t1", b"", 0, b"050bced4601ffa1df5bd37bf9d358ec7\n", ""),
    ("sha224sum t1", b"", 0, b"fcdc81a82f13e453cf8d052dc48ff59edf743a3fa659f81b00d72873  t1\n", ""),
    (
        "sha384sum -",
        b"x",
        0,
        b"d752c2c51fba0e29aa190570a9d4253e44077a058d3297fa3a5630d5bd01"
        b"2622f97c28acaed313b5c83bb990caa7da85  -\n",
        "",
    ),
    (
        "sha512sum -b",
        b"x",
        0,
        b"a4abd4448c49562d828115d13a1fccea927f52b4d5459297f8b43e42da89238bc13626e43dcb38ddb082488927ec904fb42057443983e88585179d50551afe62\n",
        "",
    ),
    ("sha1sum -s t1", b"", 1, b"", "sha1sum: -s only with -c\n"),
    ("sha256sum -b -c t1", b"", 1, b"", "sha256sum: No 'c' with 'b' (see \"sha256sum --help\")\n"),
    (
        "md5sum -c t1",
        b"",
        1,
        b"",
        "md5sum: bad line a\nmd5sum: bad line b\nmd5sum: bad line \n"
        "md5sum: bad line c\nmd5sum: t1: no lines\n",
    ),
    ("sha1sum nope", b"", 1, b"", "sha1sum: nope: No such file or directory\n"),
    (
        "md5sum -c -",
        b"050bced4601ffa1df5bd37bf9d358ec7  t1\n16151ff14c884e2d18c9903202288ba0  nonl\nbad\n",
        1,
        b"t1: OK\nnonl: OK\n",
        "md5sum: bad line bad\n",
    ),
    ("md5sum -cs -", b"050BCED4601FFA1DF5BD37BF9D358EC7  t1\n", 0, b"", ""),
    (
        "file t1 empty bin latin nope",
        b"",
        0,
        b"t1:    ASCII text\nempty: empty\nbin:   data\nlatin: data\n"
        b"nope:  cannot open: No such file or directory\n",
        "",
    ),
    ("file -b nul", b"", 0, b"data\n", ""),
    ("file -", b"#!/bin/sh\n", 0, b"-: /bin/sh script\n", ""),
    ("file", b"", 1, b"", 'file: Needs 1 argument (see "file --help")\n'),
    ("file -h -L t1", b"", 1, b"", "file: No 'L' with 'h' (see \"file --help\")\n"),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("lines"), boot=False)
    assert dev.run(f"mkdir -p {WORK}").status == 0
    for name, data in FILES.items():
        dev.host(f"{WORK}/{name}").write_bytes(data)
    yield dev
    dev.close()


@pytest.mark.parametrize(("line", "stdin", "status", "out", "err"), CASES, ids=[c[0] for c in CASES])
def test_matches_toybox(sh: ShellDevice, line: str, stdin: bytes, status: int, out: bytes, err: str) -> None:
    r = sh.run(f"cd {WORK} && {line}", stdin=stdin)
    assert (r.status, r.out, r.error) == (status, out, err)


OPTIONS = {
    "nl": ["-ba", "-bt", "-bn", "-bpa", "-l2", "-nln", "-nrz", "-w2", "-v5", "-s:", "-E", "-x", "-w"],
    "paste": ["-s", "-d,", "-d\\n", "-d", "-d\\0", "-q"],
    "comm": ["-1", "-2", "-3", "-9"],
    "tac": ["-x"],
    "strings": ["-a", "-f", "-o", "-tx", "-n1", "-n0", "-tz"],
    "cksum": ["-H", "-I", "-P", "-L", "-N", "-Z"],
    "sha512sum": ["-b", "-c", "-s", "--check", "--status", "-x"],
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(sorted(OPTIONS)),
    picks=st.lists(st.integers(0, 20), max_size=4),
    data=st.binary(max_size=300),
    operands=st.lists(st.sampled_from(["IN", "-", "t1", "nope", "."]), max_size=3),
)
def test_random_options_and_bytes_end_with_a_status(
    sh: ShellDevice, name: str, picks: list[int], data: bytes, operands: list[str]
) -> None:
    """Random options, files and bytes: every run ends with a status, never a traceback."""
    sh.host(f"{WORK}/IN").write_bytes(data)
    options = [OPTIONS[name][i % len(OPTIONS[name])] for i in picks]
    r = sh.run(f"cd {WORK} && {name} {shlex.join(options + operands)}", stdin=data)
    assert r.status in (0, 1)
    assert b"Traceback" not in r.err and b"Error" not in r.err  # stderr may hold raw bytes


def test_nl_numbers_a_log_for_reading(sh: ShellDevice) -> None:
    """What people use nl for: numbering the non-blank lines of a file, right-aligned in six."""
    r = sh.run(f"cd {WORK} && printf 'first\\n\\nsecond\\n' | nl")
    assert r.text == "     1\tfirst\n       \n     2\tsecond\n"


def test_paste_joins_a_column_into_one_line(sh: ShellDevice) -> None:
    assert sh.run("printf '1\\n2\\n3\\n' | paste -s -d+").text == "1+2+3\n"


def test_comm_shows_what_two_sorted_lists_share(sh: ShellDevice) -> None:
    assert sh.run(f"cd {WORK} && comm -12 s1 s2").text == "banana\ncherry\nfig\n"


def test_tac_reverses_a_file(sh: ShellDevice) -> None:
    assert sh.run("printf 'a\\nb\\nc\\n' | tac").text == "c\nb\na\n"


def test_strings_finds_text_in_a_binary(sh: ShellDevice) -> None:
    sh.host(f"{WORK}/blob").write_bytes(bytes(range(256)) * 100 + b"\0secret-token\0" + bytes(5000))
    assert sh.run(f"cd {WORK} && strings -n 8 blob").text.splitlines()[-1] == "secret-token"


def test_sums_match_hashlib_and_check_a_list(sh: ShellDevice) -> None:
    """Each digest as hashlib computes it; `-c` on the list they printed says OK."""
    data = FILES["t1"]
    for algo in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512"):
        r = sh.run(f"cd {WORK} && {algo}sum t1 > list.{algo} && cat list.{algo} && {algo}sum -c list.{algo}")
        assert r.text == f"{hashlib.new(algo, data).hexdigest()}  t1\nt1: OK\n", algo


def test_cksum_is_posix_cksum(sh: ShellDevice) -> None:
    """POSIX cksum of "abc" (as coreutils prints it too)."""
    assert sh.run("printf abc | cksum").text == "1219131554 3\n"


def test_large_input_is_bounded(sh: ShellDevice) -> None:
    """A huge -w would print without end: nl stops at 64 MiB of output."""
    r = sh.run("yes | head -n 100 | nl -w 2000000")
    assert r.status == 1 and "larger than 64 MiB" in r.error


@pytest.mark.parametrize("line", ["nl F", "tac F", "paste F", "comm F F"])
def test_line_commands_refuse_more_lines_than_every_line_splitting_command(
    sh: ShellDevice, line: str
) -> None:
    """64 MiB of newlines would be 64 million objects: past MAX_LINES, an error, as for sort or sed."""
    sh.host(f"{WORK}/F").write_bytes(b"\n" * 2_100_000)
    r = sh.run(f"cd {WORK} && {line}", timeout=60)
    assert r.status == 1 and r.out == b"" and "more than 2,000,000 lines of input" in r.error
