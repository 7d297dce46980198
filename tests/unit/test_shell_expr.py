"""`expr` as toybox 0.8.6 evaluates it. Where toybox and GNU expr agree, the expected status and
output are GNU coreutils 9.1's; where they differ, toybox's source (toys/pending/expr.c) decides."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("expr"), boot=False)
    yield dev
    dev.close()


# (arguments as a shell line gives them, status, output): what GNU expr does with the same line
LIKE_GNU = [
    ("1 + 2", 0, "3\n"), ("7 / 2", 0, "3\n"), ("-7 / 2", 0, "-3\n"), ("-7 % 3", 0, "-1\n"),
    ("7 % -3", 0, "1\n"), ("2 \\* 3 + 4", 0, "10\n"), ("2 + 3 \\* 4", 0, "14\n"),
    ("\\( 2 + 3 \\) \\* 4", 0, "20\n"), ("10 - 3 - 2", 0, "5\n"), ("abc : 'a.'", 0, "2\n"),
    ("abc : 'b'", 1, "0\n"), ("abc : 'a\\(.\\)'", 0, "b\n"), ("abc : 'x\\(.\\)'", 1, "\n"),
    ("hello.txt : '.*\\.\\(.*\\)'", 0, "txt\n"), ("abc = abc", 0, "1\n"), ("abc != abd", 0, "1\n"),
    ("b \\> a", 0, "1\n"), ("10 \\< 9", 1, "0\n"), ("10 \\< 9a", 0, "1\n"), ("0 \\| 5", 0, "5\n"),
    ("3 \\| 5", 0, "3\n"), ("0 \\& 5", 1, "0\n"), ("3 \\& 5", 0, "3\n"), ("'' \\| 7", 0, "7\n"),
    ("a + 1", 2, ""), ("1 / 0", 2, ""), ("5 % 0", 2, ""), ("1 +", 2, ""), ("\\( 1", 2, ""), ("1 2", 2, ""),
    ("''", 1, "\n"), ("0", 1, "0\n"), ("-0", 1, "-0\n"), ("abc : 'a*'", 0, "1\n"), ("\\( \\)", 2, ""),
    ("3 = 03", 0, "1\n"), ("x \\< y \\& 2", 0, "1\n"), ("1 = 1 = 1", 0, "1\n"), ("'' = ''", 0, "1\n"),
    ("aaa : 'a\\{2\\}'", 0, "2\n"), ("a\\$ : 'a\\$'", 0, "2\n"),
]  # fmt: skip

# Where toybox differs from GNU: strtoll reads leading blanks and a plus sign, long long wraps,
# comparisons keep a - b in an int, there are no `length`/`substr` keywords, `|` gives its right
# side even when both are false
LIKE_TOYBOX = [
    ("' 5' + 1", 0, "6\n"), ("+5 + 1", 0, "6\n"),
    ("9223372036854775807 + 1", 0, "-9223372036854775808\n"), ("4294967296 = 0", 0, "1\n"),
    ("length", 0, "length\n"), ("0 \\| ''", 1, "\n"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "status", "expected"), LIKE_GNU + LIKE_TOYBOX)
def test_expressions_evaluate_as_on_a_device(sh: ShellDevice, line: str, status: int, expected: str) -> None:
    r = sh.run(f"expr {line}")
    assert (r.status, r.text) == (status, expected), r.error


def test_errors_say_what_was_wrong(sh: ShellDevice) -> None:
    assert sh.run("expr a + 1").error == "expr: non-integer argument\n"
    assert sh.run("expr 1 / 0").error == "expr: division by zero\n"
    assert sh.run("expr 1 +").error == "expr: Unexpected end of input\n"
    assert sh.run("expr \\( 1 2").error == "expr: Expected ) but got 2\n"
    assert sh.run("expr a : '\\('").status == 2


def test_deep_nesting_is_an_error_not_a_crash(sh: ShellDevice) -> None:
    r = sh.run("expr " + "\\( " * 5000 + "1" + " \\)" * 5000)
    assert r.status == 2 and "nested too deeply" in r.error
    r = sh.run("expr 1" + " + 1" * 5000)  # a long flat expression is fine
    assert r.text == "5001\n"


TOKENS = ["1", "0", "''", "a", "-3", "\\(", "\\)", "+", "-", "\\*", "/", "%", ":", "'a\\(.\\)'", "=", "!=",
          "\\<", "\\>=", "\\&", "\\|", "'['"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(st.sampled_from(TOKENS), max_size=9))
def test_fuzz_any_line_ends_with_a_status(sh: ShellDevice, tokens: list[str]) -> None:
    r = sh.run("expr " + " ".join(tokens))
    assert r.status in (0, 1, 2)
    assert "Traceback" not in r.error and "internal error" not in r.error, (tokens, r.error)
