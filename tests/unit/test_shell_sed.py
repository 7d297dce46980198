"""`sed` as toybox's (GNU sed's language): addresses, ranges, blocks, the hold space, branches and the
s flags, each case's expected output taken from GNU sed 4.9 on the same input, where toybox 0.8.6
(built from its source) prints the same; where they differ, toybox's. A hostile script ends
with an error, never holds the device's process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.sed import Parser, SedError
from tests.unit.shellkit import ShellDevice

INPUT = "alpha 1\nbeta 2\n\ngamma 3\ndelta 4\nfoo bar\na=1\nb=2\nhello\n"
LINES = INPUT.splitlines(keepends=True)

# (options, script, what GNU sed prints for INPUT)
CASES = [
    ("-n", "2,3p", "beta 2\n\n"),
    ("", "1d", "".join(LINES[1:])),
    ("", "/^$/d", "".join(LINES[:2] + LINES[3:])),
    ("-n", "$p", "hello\n"),
    ("", "2q", "alpha 1\nbeta 2\n"),
    ("", "s/a/b/2", INPUT.replace("alpha", "alphb", 1).replace("gamma", "gammb")),
    ("-n", "/alpha/,/gamma/p", "alpha 1\nbeta 2\n\ngamma 3\n"),
    ("", "s/l/L/g;s/h/H/", INPUT.replace("l", "L").replace("h", "H")),
    ("", "s/o*/X/g", None),  # checked below: empty matches never right after a match
    ("", ":a;N;$!ba;s/\\n/ /g", "alpha 1 beta 2  gamma 3 delta 4 foo bar a=1 b=2 hello\n"),
    ("", "1!G;h;$!d", "".join(reversed(LINES))),
    ("", "$!N;P;D", INPUT),
    ("", "/beta/,+2d", "".join(LINES[:1] + LINES[4:])),
    ("", "2,4c\\\nrange", "alpha 1\nrange\n" + "".join(LINES[4:])),
    ("", "/^a/{s/a/A/;s/1/one/}", INPUT.replace("alpha 1", "Alpha one").replace("a=1", "A=one")),
    ("-n", "/delta/{p;q}", "delta 4\n"),
    ("", "1i\\\ntop", "top\n" + INPUT),
    ("", "/beta/a after", INPUT.replace("beta 2\n", "beta 2\nafter\n")),
    ("", "y/abc/xyz/", INPUT.translate(str.maketrans("abc", "xyz"))),
    ("-E", "s/(x|y)?$/!/", INPUT.replace("\n", "!\n")),
    ("", "s/a\\|e/_/g", INPUT.replace("a", "_").replace("e", "_")),
    (
        "",
        "s.a\\..X.",
        "Xpha 1\nbetX2\n\ngXma 3\ndeltX4\nfoo bX\nX1\nb=2\nhello\n",
    ),  # `\.`: a dot, any character
    ("", "t;s/a/A/;t;s/e/E/", None),
    ("-n", "$=", "9\n"),
    ("", "s/[[:digit:]]/D/g", INPUT.translate(str.maketrans("1234", "DDDD"))),
    ("-n", "l", None),
]


def sed(sh: ShellDevice, options: str, script: str) -> str:
    sh.run(f"printf '%s' {quote(INPUT)} > /data/local/tmp/in")
    r = sh.run(f"sed {options} {quote(script)} /data/local/tmp/in")
    assert r.status == 0, (script, r.error)
    return r.text


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize(("options", "script", "expected"), CASES)
def test_scripts_print_what_gnu_sed_prints(
    sh: ShellDevice, options: str, script: str, expected: str | None
) -> None:
    got = sed(sh, options, script)
    if expected is not None:
        assert got == expected
    elif script == "s/o*/X/g":
        assert got.splitlines()[5] == "XfX XbXaXrX"  # not XfXX: no empty match right after "oo"
    elif script.startswith("t;"):
        assert got.splitlines()[-1] == "hEllo"  # no substitution before the second t: it goes on
    else:
        assert got.splitlines()[0] == "alpha 1$" and got.splitlines()[2] == "$"


def test_addresses_are_toybox_s_not_gnu_s(sh: ShellDevice) -> None:
    """What toybox 0.8.6 does with GNU's address extensions and line 0 (each line here run there)."""
    sh.run("printf 'a\\nb\\na\\n' > /data/local/tmp/abc")
    r = sh.run("sed -n '1~2p' /data/local/tmp/abc")
    assert (r.status, r.error) == (1, "sed: bad pattern '1~2p'@3 (2)\n")
    assert sh.run("sed -n '1,~2p' /data/local/tmp/abc").error == "sed: bad pattern '1,~2p'@4 (2)\n"
    assert sh.run("sed -n '0,/a/p' /data/local/tmp/abc").text == "a\nb\na\n"  # line 0: no address
    assert sh.run("sed -n '0!p' /data/local/tmp/abc").text == "a\nb\na\n"
    r = sh.run("sed '0,/a/s//X/' /data/local/tmp/abc")
    assert (r.status, r.error) == (1, "sed: no previous regex\n")
    assert sh.run("sed -n '02p;0x3p' /data/local/tmp/abc").text == "b\na\n"  # strtol's base 0
    assert sh.run("sed -n '010p' /data/local/tmp/abc").text == ""  # line 8, not 10


def test_in_place_edits_each_file_and_q_stops(sh: ShellDevice) -> None:
    sh.run("printf 'a\\nb\\n' > /data/local/tmp/x; printf 'c\\nd\\n' > /data/local/tmp/y")
    assert sh.run("sed -i '$s/$/!/' /data/local/tmp/x /data/local/tmp/y").status == 0
    assert sh.run("cat /data/local/tmp/x /data/local/tmp/y").text == "a\nb!\nc\nd!\n"
    r = sh.run("printf '1\\n2\\n3\\n' | sed '2q7'")
    assert (r.status, r.text) == (7, "1\n2\n")
    assert sh.run("sed -i s/a/b/").error == "sed: -i on stdin\n"


def test_errors_are_sed_errors(sh: ShellDevice) -> None:
    for script, message in [
        ("k", "sed: bad pattern 'k'@1 (k)\n"),
        ("y/ab/c/", "sed: strings for `y' command are different lengths\n"),
        ("{p", "sed: no }\n"),
        ("b nowhere", "sed: no :nowhere\n"),
        ("s/a/b/w /sdcard/f", "sed: 'w' (writing a file) is not supported on this device's sed\n"),
        ("s/\\(a/b/", None),
    ]:
        r = sh.run(f"echo a | sed {quote(script)}")
        assert r.status == 1, script
        if message:
            assert r.error == message, script
    r = sh.run("timeout 0.5 sed ':a;ba' /proc/version; echo $?", timeout=20)
    assert r.text == "124\n"
    r = sh.run("echo ab | sed ':a;s/.*/&&/;ba'", timeout=60)  # doubles the line until it is refused
    assert (r.status, r.error) == (1, "sed: pattern or hold space larger than 16 MiB, stopped\n")


def test_an_empty_regex_is_the_last_one_and_ranges_restart(sh: ShellDevice) -> None:
    assert sh.run("printf 'ab\\nab\\n' | sed '/a/s//X/'").text == "Xb\nXb\n"
    assert sh.run("printf '1\\nx\\n2\\n3\\nx\\n4\\n' | sed -n '/x/,/x/!p'").text == "1\n4\n"
    assert sh.run("printf 'a\\n' | sed 's//x/'").error == "sed: no previous regex\n"


@pytest.fixture(scope="module")
def fuzz_sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("sedfuzz"))
    yield dev
    dev.close()


PIECES = [
    "s/a/b/", "s/x*/-/g", "p", "d", "D", "n", "N", "g", "G", "h", "H", "x", "=", "l", "q", "Q", "1", "$",
    "/a/",
    "\\,b,", ",", "!", "{", "}", ";", "\n", ":l", "bl", "tl", "Tl", "y/ab/ba/", "a t", "i t", "c t", "2~3",
    "+1", "0", "s/\\(a\\)/\\1\\1/2", "s/[/x/", "\\", "r /proc/version", "z",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(script=st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_fuzz_scripts_end_with_a_status(fuzz_sh: ShellDevice, script: str) -> None:
    r = fuzz_sh.run(f"printf 'a b\\nb a\\n\\nab\\n' | timeout 5 sed {quote(script)}", timeout=30)
    assert 0 <= r.status <= 255
    assert "internal error" not in r.error and "Traceback" not in r.error, (script, r.error)


@settings(max_examples=500, deadline=None)
@given(script=st.text(max_size=40))
def test_fuzz_the_parser_raises_only_sed_errors(script: str) -> None:
    try:
        Parser(script, extended=False).parse()
    except SedError as exc:
        assert str(exc)


def test_nul_records_and_the_line_bound(sh: ShellDevice) -> None:
    # -z: records end with NUL, and a newline inside one stays a newline
    assert sh.run("printf 'a\\nb\\0c\\0' | sed -z 's/^/>/'").out == b">a\nb\0>c\0"
    # more lines than a command splits its input into: refused, as grep and sort refuse them
    for line in ("sed -n 1p", "awk 'NR == 1'"):
        r = sh.run(f"yes '' | head -n 2000001 | {line}", timeout=60)
        assert r.status != 0 and r.error.endswith("more than 2,000,000 lines of input\n"), line
