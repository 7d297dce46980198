"""Command lines as toybox 0.8.6 (Android 13's config) runs them: random lines for each command
family, on inputs written to both sides, give the same status, output and errors in the sim."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.oracle.differential import differences, in_sim, in_toybox
from tests.unit.shellkit import ShellDevice

TEXTS = [
    b"b 2\na 10\nc 1\nb 2\n\nA 3\n",
    b"x\n",
    b"",
    b"no newline  two  words",
    b"3\n1\n2\n10\n-1\n1e3\n0x10\n 5\n",
    b"a:b:c\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n",
    b"a\tb\tc\nno tab here\n\tlead\ntrail\t\n",
    b"\xff\xfe abc\n\xc3\xa9t\xc3\xa9:\xe4\xb8\xad\n\t\x01\x7f\x80 y\n",
]
Lines = Callable[[random.Random], str]


def cut(rng: random.Random) -> str:
    lists = [
        "1",
        "2",
        "3",
        "1,3",
        "2-",
        "-2",
        "1-2",
        "3-5",
        "2,1",
        "0",
        "2-1",
        "a",
        ",1",
        "1,",
        "1-2-3",
        "9",
        "-",
    ]
    kind = rng.choice(["-f", "-c", "-b", "-F", "-C", "-bn"])
    parts = [kind + rng.choice(["", " "]) + rng.choice(lists)]
    if kind in ("-f", "-F") and rng.random() < 0.7:
        parts.append(rng.choice(["-d:", "-d ' '", "-d ':t'", "-d ''", "-d '[ :]+'"]))
    parts += [o for o in ("-s", "-D", "-O XY", "--output-delimiter=/") if rng.random() < 0.15]
    rng.shuffle(parts)
    return "cut " + " ".join(parts) + " IN"


def tr(rng: random.Random) -> str:
    sets = [
        "a-z",
        "A-Z",
        "'[:lower:]'",
        "'[:upper:]'",
        "'[:digit:]'",
        "'[:space:]'",
        "'[:punct:]'",
        "'\\n'",
        "'\\x41'",
        "'\\101'",
        "'\\q'",
        "'[=a=]'",
        "abc",
        "'a-'",
        "xyz",
        "' '",
        "_",
        "''",
    ]
    opts = rng.choice(["", "-d", "-s", "-c", "-cd", "-cs", "-ds", "-C"])
    return f"tr {opts} " + " ".join(rng.choice(sets) for _ in range(rng.choice([1, 2, 2]))) + " < IN"


def sort(rng: random.Random) -> str:
    opts = rng.sample(
        [
            "-n",
            "-r",
            "-u",
            "-f",
            "-b",
            "-s",
            "-k2",
            "-k2n",
            "-k1,1",
            "-t:",
            "-k2,2r",
            "-g",
            "-M",
            "-V",
            "-c",
            "-z",
            "-k1.2,1.3",
        ],
        rng.randint(0, 3),
    )
    return (
        "uniq " + " ".join(rng.sample(["-c", "-d", "-u", "-i", "-f1", "-s1", "-w2"], rng.randint(0, 2)))
        if rng.random() < 0.3
        else "sort " + " ".join(opts)
    ) + " IN"


def ends(rng: random.Random) -> str:
    command = rng.choice(["head", "tail", "wc"])
    if command == "wc":
        return (
            "wc "
            + rng.choice(["", "-l", "-w", "-c", "-m", "-lm", "-cmlw"])
            + " "
            + rng.choice(["IN", "IN IN", "< IN"])
        )
    opts = rng.choice(
        ["", "-n 3", "-n3", "-3", "-n +3", "-c 4", "-c +4", "-n 0", "--lines=2", "-n 2 -c 3", "-q", "-v"]
    )
    return f"{command} {opts} " + rng.choice(["IN", "IN IN", "IN missing", "- < IN"])


def dumps(rng: random.Random) -> str:
    return (
        rng.choice(
            [
                "xxd",
                "xxd -c 8 -g 3",
                "xxd -i",
                "xxd -p",
                "xxd -s 3 -l 9 -o 0x10",
                "od",
                "od -c",
                "od -t x1",
                "od -t a -t d1 -c",
                "od -t x2 -A n",
                "od -A x -t d2 -w8",
                "od -b -v",
                "od -t f4",
                "od -j 3 -N 5 -t x1",
            ]
        )
        + " IN"
    )


def numbers(rng: random.Random) -> str:
    return rng.choice(
        [
            "expr 1 + 2",
            "expr 7 / 2 '*' 3",
            "expr abc : 'a\\(.\\)'",
            "expr 0 '|' ''",
            "expr 4294967296 = 0",
            "expr a + 1",
            "seq 3",
            "seq -s, 8 11",
            "seq 0 0.3 1",
            "seq -f %03g 3",
            "seq -w -1 1",
            "seq 5 1",
            "basename /a/b.c .c",
            "basename -s .c a.c b.c",
            "dirname a/b/ c/d",
            "cat -vet IN",
            "cat -n IN",
        ]
    )


def lines(rng: random.Random) -> str:
    return rng.choice(
        [
            "nl IN",
            "nl -ba -w3 IN",
            "paste IN IN",
            "paste -s -d, IN",
            "tac IN",
            "strings -n 2 IN",
            "comm IN IN",
            "cksum IN",
            "sha512sum IN",
            "md5sum IN IN",
            "rev IN",
            "base64 IN",
        ]
    )


def grep(rng: random.Random) -> str:
    options = rng.sample(
        [
            "-i",
            "-v",
            "-c",
            "-n",
            "-o",
            "-l",
            "-L",
            "-h",
            "-H",
            "-w",
            "-x",
            "-s",
            "-m 1",
            "-A 1",
            "-B 1",
            "-C 1",
            "-E",
            "-F",
            "-b",
            "-q",
            "-Z",
            "-z",
            "-a",
        ],
        rng.randint(0, 3),
    )
    # no `.`: on bytes that are not UTF-8 toybox's never matches and the sim's does (docs/sim-shell.md)
    pattern = rng.choice(["a", "'^b'", "'[0-9]'", "'a\\|e'", "'x$'", "''", "-e a -e c", "'(c)'"])
    return "grep " + " ".join(options) + f" {pattern} " + rng.choice(["IN", "IN IN", "IN missing", "- < IN"])


FAMILIES: dict[str, tuple[Lines, int]] = {
    "cut": (cut, 300),
    "grep": (grep, 300),
    "tr": (tr, 200),
    "sort": (sort, 200),
    "ends": (ends, 200),
    "dumps": (dumps, 60),
    "numbers": (numbers, 60),
    "lines": (lines, 60),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_random_lines_run_as_toybox_runs_them(
    oracles: Path, sim: ShellDevice, tmp_path: Path, family: str
) -> None:
    make, count = FAMILIES[family]
    rng = random.Random(family)
    differ = []
    for _ in range(count):
        line, files = make(rng), {"IN": rng.choice(TEXTS)}
        want, got = in_toybox(oracles, tmp_path, line, files), in_sim(sim, line, files)
        if want != got:
            differ.append((line, want, got))
    assert not differ, differences(differ)
