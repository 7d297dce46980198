"""`grep` reads POSIX regexes as a device does: each case's status and output are toybox 0.8.6's
(built from its source; its grep calls regcomp) on the same input, and GNU grep 3.8's but for two
malformed intervals GNU reads as text. The BRE and ERE conversion is the one sed uses
(shell/posix_regex.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.posix_regex import to_python
from mgfarm.sim.shell.safe_regex import RegexError, compile_regex
from tests.unit.shellkit import ShellDevice

INPUT = (
    "alpha 1\nbeta 2\n\ngamma 3\ndelta 4\nfoo bar\na=1\nb=2\nhello\n$HOME x\na^b\na+b (c)\n*star\n"
    "back\\slash\nword, words swordfish\n{1,2} a{2}\naa aaa\ntab\there\nx|y\n"
)

# (options, pattern, what GNU grep exits with and prints for INPUT)
CASES = [
    (
        "",
        "a",
        0,
        "alpha 1\nbeta 2\ngamma 3\ndelta 4\nfoo bar\na=1\na^b\na+b (c)\n*star\nback\\slash\n{1,2} a{2}\n"
        "aa aaa\ntab\there\n",
    ),
    ("", "^a", 0, "alpha 1\na=1\na^b\na+b (c)\naa aaa\n"),
    ("", "a$", 0, "aa aaa\n"),
    ("", "^$", 0, "\n"),
    (
        "",
        "a\\|e",
        0,
        "alpha 1\nbeta 2\ngamma 3\ndelta 4\nfoo bar\na=1\nhello\na^b\na+b (c)\n*star\nback\\slash\n"
        "{1,2} a{2}\naa aaa\ntab\there\n",
    ),
    (
        "",
        "a\\+",
        0,
        "alpha 1\nbeta 2\ngamma 3\ndelta 4\nfoo bar\na=1\na^b\na+b (c)\n*star\nback\\slash\n{1,2} a{2}\n"
        "aa aaa\ntab\there\n",
    ),
    ("", "a+b", 0, "a+b (c)\n"),
    ("-E", "a+b", 0, "tab\there\n"),
    ("", "(c)", 0, "a+b (c)\n"),
    ("-E", "\\(c\\)", 0, "a+b (c)\n"),
    ("", "\\(a\\)\\1", 0, "aa aaa\n"),
    ("", "$HOME", 0, "$HOME x\n"),
    ("", "a^b", 0, "a^b\n"),
    ("", "a\\^b", 0, "a^b\n"),
    ("", "*star", 0, "*star\n"),
    ("-E", "^\\*", 0, "*star\n"),
    ("", "[\\]", 0, "back\\slash\n"),
    ("", "[\\\\]", 0, "back\\slash\n"),
    ("", "\\<word\\>", 0, "word, words swordfish\n"),
    ("", "\\bword", 0, "word, words swordfish\n"),
    ("-o", "\\<w[a-z]*", 0, "word\nwords\n"),
    ("", "[[:digit:]]", 0, "alpha 1\nbeta 2\ngamma 3\ndelta 4\na=1\nb=2\n{1,2} a{2}\n"),
    ("", "[[:space:]]h", 0, "tab\there\n"),
    ("", "a\\{2\\}", 0, "aa aaa\n"),
    ("-E", "a{2}", 0, "aa aaa\n"),
    ("", "a{2}", 0, "{1,2} a{2}\n"),
    ("-E", "x|y", 0, "$HOME x\nx|y\n"),
    ("", "x|y", 0, "x|y\n"),
    ("-w", "word", 0, "word, words swordfish\n"),
    ("-x", "hello", 0, "hello\n"),
    ("-i", "HELLO", 0, "hello\n"),
    ("-c", "a", 0, "13\n"),
    ("-v", "a", 0, "\nb=2\nhello\n$HOME x\nword, words swordfish\nx|y\n"),
    ("-o", "a*", 0, "a\na\na\na\na\na\na\na\na\na\na\na\na\na\naa\naaa\na\n"),
    ("", "^\\(a\\|b\\)=", 0, "a=1\nb=2\n"),
    ("", "x$\\|^b", 0, "beta 2\nb=2\n$HOME x\nback\\slash\n"),
    (
        "",
        "[^a-z ]",
        0,
        "alpha 1\nbeta 2\ngamma 3\ndelta 4\na=1\nb=2\n$HOME x\na^b\na+b (c)\n*star\nback\\slash\n"
        "word, words swordfish\n{1,2} a{2}\ntab\there\nx|y\n",
    ),
    ("", "[]x]", 0, "$HOME x\nx|y\n"),
    ("", "\\.", 1, ""),
    ("", "a.b", 0, "a^b\na+b (c)\n"),
    ("-E", "(a|b)=[0-9]$", 0, "a=1\nb=2\n"),
    ("", "\\$HOME", 0, "$HOME x\n"),
    ("-E", "\\$HOME", 0, "$HOME x\n"),
    ("-E", "a$b", 1, ""),
    ("", "a$b", 1, ""),
    ("-F", "a+b", 0, "a+b (c)\n"),
    ("-o", "[0-9]", 0, "1\n2\n3\n4\n1\n2\n1\n2\n2\n"),
    ("-n", "^$", 0, "3:\n"),
    ("", "\\w\\+=\\w", 0, "a=1\nb=2\n"),
    ("-E", "\\w+=\\w", 0, "a=1\nb=2\n"),
    (
        "",
        "\\s",
        0,
        "alpha 1\nbeta 2\ngamma 3\ndelta 4\nfoo bar\n$HOME x\na+b (c)\nword, words swordfish\n"
        "{1,2} a{2}\naa aaa\ntab\there\n",
    ),
    ("-E", "^(a|b)+$", 1, ""),
    ("", "\\(^a\\)", 0, "alpha 1\na=1\na^b\na+b (c)\naa aaa\n"),
    ("", "x\\(^b\\)", 1, ""),
    ("", "[[:upper:]]", 0, "$HOME x\n"),
    ("-i", "[A-C]=2", 0, "b=2\n"),
    (
        "-E",
        "a{,2}",
        0,
        "alpha 1\nbeta 2\n\ngamma 3\ndelta 4\nfoo bar\na=1\nb=2\nhello\n$HOME x\na^b\na+b (c)\n*star\n"
        "back\\slash\nword, words swordfish\n{1,2} a{2}\naa aaa\ntab\there\nx|y\n",
    ),
    ("-E", "{1", 2, ""),  # GNU grep: a literal; regcomp (toybox's): an error
    ("", "\\{1", 2, ""),
    ("-o", "s\\?w", 0, "w\nw\nsw\n"),
    ("-E", "^.{4}$", 1, ""),
    ("", "^.\\{4\\}$", 1, ""),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("grep"), boot=False)
    dev.run("printf %s " + quote(INPUT) + " > /data/local/tmp/in")
    yield dev
    dev.close()


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize(("options", "pattern", "status", "expected"), CASES)
def test_patterns_match_what_gnu_grep_matches(
    sh: ShellDevice, options: str, pattern: str, status: int, expected: str
) -> None:
    got = sh.run(f"grep {options} -e {quote(pattern)} /data/local/tmp/in")
    assert (got.status, got.text) == (status, expected)


PIECES = ["a", "\\", "(", ")", "\\(", "\\)", "[", "]", "^", "$", "*", "+", "?", "|", "\\|", "{", "}",
          "\\{2\\}", "{1,}", "[[:alpha:]", "[:", ".", "\\<", "\\>", "\\1", "-", "[^"]  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=12), extended=st.booleans())
def test_fuzz_any_pattern_compiles_or_is_a_regex_error(pieces: list[str], extended: bool) -> None:
    try:
        compile_regex(to_python("".join(pieces), extended)).search("a(b)[c]{1}^$*+?|x")
    except RegexError as exc:
        assert str(exc)
