"""find, xargs and stat against toybox 0.8.6.

The expected results in CASES were recorded from the real binaries (toybox 0.8.6 built with
Android's device config, run under mksh R59c) on the same small tree; where the filesystem decides
the order the line sorts its output. Owners are the device's (shell) and never appear here.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice

SETUP = (
    "cd /data/local/tmp && rm -rf t && mkdir -p t/sub/deep t/.hid && printf abc > t/a.txt && "
    "printf '' > t/empty && printf 1234567890 > t/sub/b.bin && printf x > t/.dot && "
    "printf y > t/sub/deep/c.TXT && ln -s a.txt t/link && "
    "touch -d '2024-01-02 03:04:05' t/a.txt t/empty t/sub/b.bin t/.dot t/sub/deep/c.TXT "
    "t/sub/deep t/sub t/.hid t "
    "&& chmod 640 t/a.txt"
)
ALL = "t\nt/.dot\nt/.hid\nt/a.txt\nt/empty\nt/link\nt/sub\nt/sub/b.bin\nt/sub/deep\nt/sub/deep/c.TXT\n"

CASES: list[tuple[str, int, str, str]] = [
    ("find t | sort", 0, ALL, ""),
    ("find t -size +5c | sort", 0, "t\nt/.hid\nt/sub\nt/sub/b.bin\nt/sub/deep\n", ""),
    ("find t -size -1 | sort", 0, "t/.dot\nt/a.txt\nt/empty\nt/link\nt/sub/b.bin\nt/sub/deep/c.TXT\n", ""),
    ("find t -size 1x", 1, "", "find: not integer: 1x\n"),
    ("find t -size x", 1, "", "find: x not [+-]N\n"),
    ("find t -prune", 0, "t\n", ""),
    ("find t -name sub -prune -o -print | sort", 0, "t\nt/.dot\nt/.hid\nt/a.txt\nt/empty\nt/link\n", ""),
    ("find t -regex '.*txt'", 1, "", "find: bad arg '-regex'\n"),
    (
        "find t -printf '%p %s\\n' | sort",
        0,
        "t 4096\nt/.dot 1\nt/.hid 4096\nt/a.txt 3\nt/empty 0\nt/link 5\n"
        "t/sub 4096\nt/sub/b.bin 10\nt/sub/deep 4096\nt/sub/deep/c.TXT 1\n",
        "",
    ),
    ("find t -name a.txt -printf '%5s|%-5s|\\t\\101\\x41\\c X'", 0, "    3|3    |\tAA", ""),
    ("find t -printf '%Q'", 1, "", "find: bad -printf %Q\n"),
    ("find t -name link -printf '%l|%s\\n'", 0, "a.txt|5\n", ""),
    ("find -L t -type f | sort", 0, "t/.dot\nt/a.txt\nt/empty\nt/link\nt/sub/b.bin\nt/sub/deep/c.TXT\n", ""),
    ("find -H t/link", 0, "t/link\n", ""),
    (
        "find t -type f -delete | sort; find t | sort",
        0,
        "t/.dot\nt/a.txt\nt/empty\nt/sub/b.bin\nt/sub/deep/c.TXT\nt\nt/.hid\nt/link\nt/sub\nt/sub/deep\n",
        "",
    ),
    ("find t -depth -name sub", 0, "t/sub\n", ""),
    ("find t -maxdepth 1 -name sub -o -print | sort", 0, "t\nt/.dot\nt/.hid\nt/a.txt\nt/empty\nt/link\n", ""),
    ("find t ! -o -print", 1, "", "find: bad arg '-o'\n"),
    ("find t -name", 1, "", "find: '-name' needs 1 arg\n"),
    ("find t -type x", 1, "", "find: bad -type 'x'\n"),
    ("find t -perm 999", 1, "", "find: bad mode '999'\n"),
    ("find t -group nobodyx", 1, "", "find: bad group 'nobodyx'\n"),
    ("find t -newer nope", 1, "", "find: Can't stat nope: No such file or directory\n"),
    ("find t -exec", 1, "", "find: 'exec' needs 1 arg\n"),
    ("find t -exec echo", 1, "", "find: -exec without {}\n"),
    ("find t -exec echo {} x +", 1, "", "find: -exec without \\;\n"),
    ("find t -name a.txt -exec echo x{}y {} \\;", 0, "x{}y t/a.txt\n", ""),
    ("find t -type f -exec false {} +; echo $?", 0, "1\n", ""),
    (
        "find t -name a.txt -exec nope {} \\;; echo $?",
        0,
        "0\n",
        "find: exec nope: No such file or directory\n",
    ),
    ("find t -print -quit", 0, "t\n", ""),
    ("find '' t/a.txt", 1, "t/a.txt\n", "find: '': No such file or directory\n"),
    ("find missing", 1, "", "find: 'missing': No such file or directory\n"),
    ("find t -iname 'C.*'", 0, "t/sub/deep/c.TXT\n", ""),
    ("find t -name '[!a]*' -type f | sort", 0, "t/.dot\nt/empty\nt/sub/b.bin\nt/sub/deep/c.TXT\n", ""),
    ("printf 'a\\0b\\0' | xargs -0 echo", 0, "a b\n", ""),
    ("echo a b c | xargs -I{} echo x{}y", 1, "", "xargs: Unknown option 'I{}' (see \"xargs --help\")\n"),
    ("printf '' | xargs -r echo none", 0, "", ""),
    ("printf '' | xargs echo none", 0, "none\n", ""),
    ("echo a | xargs -t echo", 0, "a\n", "echo a \n"),
    ("echo a | xargs false; echo $?", 0, "123\n", ""),
    ("echo a | xargs nope; echo $?", 0, "127\n", "xargs: exec nope: No such file or directory\n"),
    ("echo a b | xargs -s 5 echo", 1, "", "xargs: argument too long\n"),
    ("echo a b c | xargs -E b echo", 0, "a\n", ""),
    ("echo a | xargs -0E x echo", 1, "", "xargs: No 'E' with '0' (see \"xargs --help\")\n"),
    ("echo a | xargs -n 0 echo", 1, "", 'xargs: -n < 1 (see "xargs --help")\n'),
    ("printf 'a\\n\\nb' | xargs -0 -n1 echo", 0, "a\n\nb\n", ""),
    ("echo a b c d e | xargs -n 2", 0, "a b\nc d\ne\n", ""),
    ("echo a | xargs -p echo", 1, "", "echo a ?xargs: No file /dev/tty: No such device or address\n"),
    ("stat t/missing", 1, "", "stat: 't/missing': No such file or directory\n"),
    ("stat -c '%N' t/a.txt t/link", 0, "t/a.txt\nt/link -> 'a.txt'\n", ""),
    ("stat -c '%5s|%-5s|%05a' t/a.txt", 0, "    3|3    |00640\n", ""),
    ("stat -c '%F' t t/empty t/link", 0, "directory\nregular empty file\nsymbolic link\n", ""),
    ("stat -t t/a.txt | cut -d' ' -f1-4", 0, "t/a.txt 3 8 81a0\n", ""),
    ("stat -c 'x%' t/a.txt", 0, "x%\n", ""),
    ("stat -c %Y t/a.txt", 0, "1704164645\n", ""),
    ("stat", 1, "", 'stat: Needs 1 argument (see "stat --help")\n'),
    ("stat -c", 1, "", 'stat: Missing argument to -c (see "stat --help")\n'),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    device = ShellDevice(tmp_path_factory.mktemp("find"), boot=False)
    device.run("export TZ=UTC")
    yield device
    device.close()


@pytest.mark.parametrize(("line", "status", "out", "err"), CASES, ids=[c[0] for c in CASES])
def test_matches_toybox(sh: ShellDevice, line: str, status: int, out: str, err: str) -> None:
    assert sh.run(SETUP).status == 0
    r = sh.run("cd /data/local/tmp && " + line)
    assert (r.status, r.out.decode(), r.err.decode().replace("/system/bin/sh: ", "")) == (status, out, err)


def test_delete_does_not_follow_a_link_out_of_the_tree(sh: ShellDevice) -> None:
    sh.run("cd /data/local/tmp && rm -rf t o && mkdir -p t o && printf k > o/keep && ln -s ../o t/out")
    r = sh.run("cd /data/local/tmp && find -L t -delete; ls o")
    assert r.out.decode().endswith("keep\n")


# ---- fuzzing ------------------------------------------------------------------------------------

WORDS = [
    "-name",
    "*",
    "-type",
    "f",
    "-o",
    "-a",
    "!",
    "(",
    ")",
    "-prune",
    "-print",
    "-size",
    "+1",
    "-1k",
    "-maxdepth",
    "1",
    "-mindepth",
    "-depth",
    "-printf",
    "%p%s%Q\\n",
    "-perm",
    "-644",
    "-empty",
    "-not",
    "-exec",
    "echo",
    "{}",
    ";",
    "+",
    "-quit",
    "-newer",
    "t",
    "-links",
    "x",
    "-iname",
    "-path",
    "-true",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), max_size=8))
def test_any_find_expression_ends_with_a_status(sh: ShellDevice, words: list[str]) -> None:
    quoted = " ".join("'" + w + "'" for w in words)
    r = sh.run(f"cd /data/local/tmp && mkdir -p t/s && find t {quoted}")
    assert isinstance(r.status, int) and b"Traceback" not in r.err


XARGS = [
    "-0",
    "-r",
    "-t",
    "-n",
    "1",
    "2",
    "-s",
    "20",
    "-E",
    "b",
    "-P",
    "3",
    "-x",
    "--",
    "echo",
    "false",
    "-o",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(XARGS), max_size=6), st.binary(max_size=40))
def test_any_xargs_ends_with_a_status(sh: ShellDevice, words: list[str], stdin: bytes) -> None:
    r = sh.run("xargs " + " ".join("'" + w + "'" for w in words), stdin=stdin)
    assert isinstance(r.status, int) and b"Traceback" not in r.err


# ---- bounds -------------------------------------------------------------------------------------


def test_deep_and_wide_trees_end(sh: ShellDevice) -> None:
    sh.run("cd /data/local/tmp && rm -rf w && mkdir -p w/" + "/".join(["d"] * 200))
    sh.run("cd /data/local/tmp/w && for i in $(seq 1 1500); do : > f$i; done")
    started = time.monotonic()
    r = sh.run("cd /data/local/tmp && find w | wc -l", timeout=60)
    assert r.out.strip() == b"1701" and time.monotonic() - started < 30


def test_exec_many_times_and_xargs_on_a_huge_input_end(sh: ShellDevice) -> None:
    started = time.monotonic()
    r = sh.run("cd /data/local/tmp && find w -name 'f1*' -exec true {} \\; -print | wc -l", timeout=60)
    assert r.status == 0 and int(r.out) > 500
    r = sh.run("xargs -n 5000 true", stdin=b"word " * 400_000, timeout=60)
    assert r.status == 0 and time.monotonic() - started < 40


def test_an_exec_plus_is_followed_by_the_rest_of_the_expression(tmp_path: Path) -> None:
    """`-exec ... {} +` takes its words and `+`, no more: the `-o` after it still counts (a task's
    state capture hashes small files and stats large ones this way)."""
    sh = ShellDevice(tmp_path, boot=False)
    sh.run("mkdir -p /data/local/tmp/fz && printf a > /data/local/tmp/fz/small")
    sh.run("head -c 600 /dev/zero > /data/local/tmp/fz/big")
    r = sh.run("find /data/local/tmp/fz -type f \\( -size -100c -exec echo A {} + -o -exec echo B {} + \\)")
    assert sorted(r.text.splitlines()) == ["A /data/local/tmp/fz/small", "B /data/local/tmp/fz/big"]
    sh.close()


def test_xargs_refuses_more_words_than_the_line_bound(tmp_path: Path) -> None:
    """Its words are objects in memory (toybox streams them): past MAX_LINES, an error."""
    sh = ShellDevice(tmp_path, boot=False)
    sh.host("/data/local/tmp/w").write_bytes(b"a " * 2_100_000)
    r = sh.run("xargs echo < /data/local/tmp/w", timeout=60)
    assert (r.status, r.out) == (1, b"") and "more than 2,000,000 words of input" in r.error
    sh.close()
