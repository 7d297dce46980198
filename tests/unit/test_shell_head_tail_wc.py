"""`head`, `tail` and `wc` as toybox 0.8.6 runs them: each case's status, output and message are those
of toybox 0.8.6 built from its source with Android's device config, on the same bytes."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from mgfarm.sim.shell.text import counts
from tests.unit.shellkit import ShellDevice

INPUTS = {
    "NUMBERS": b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12",
    "TWO": b"a\nb\n",
    "WIDE": b"\xe4\xb8\xad\xe6\x96 \xe3\x80\x80word\x1cx y\n\xe4\xb8",
}

# (command line, input, status, output, message)
CASES = [
    ("head IN", "NUMBERS", 0, b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", ""),
    ("head -n 3 IN", "NUMBERS", 0, b"1\n2\n3\n", ""),
    ("head -3 IN", "NUMBERS", 0, b"1\n2\n3\n", ""),
    ("head -c 4 IN", "NUMBERS", 0, b"1\n2\n", ""),
    ("head -n 2 -c 3 IN", "NUMBERS", 0, b"1\n2", ""),
    ("head -c 3 -n 2 IN", "NUMBERS", 0, b"1\n2\n", ""),
    ("head -n -3 IN", "NUMBERS", 1, b"", 'head: -n < 0 (see "head --help")\n'),
    ("head -x IN", "NUMBERS", 1, b"", "head: not integer: x\n"),
    ("head -n x IN", "NUMBERS", 1, b"", "head: not integer: x\n"),
    ("head --lines=2 IN", "NUMBERS", 0, b"1\n2\n", ""),
    ("head -n1k IN", "NUMBERS", 0, b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12", ""),
    (
        "head -n 2 IN missing IN",
        "NUMBERS",
        1,
        b"==> IN <==\n1\n2\n\n==> IN <==\n1\n2\n",
        "head: missing: No such file or directory\n",
    ),
    ("head -q IN IN", "TWO", 0, b"a\nb\na\nb\n", ""),
    ("head -v IN", "TWO", 0, b"==> IN <==\na\nb\n", ""),
    ("head . IN", "TWO", 1, b"==> . <==\n\n==> IN <==\na\nb\n", "head: .: Is a directory\n"),
    ("head -n 0 . IN", "TWO", 0, b"==> . <==\n\n==> IN <==\n", ""),
    ("tail IN", "NUMBERS", 0, b"3\n4\n5\n6\n7\n8\n9\n10\n11\n12", ""),
    ("tail -n 3 IN", "NUMBERS", 0, b"10\n11\n12", ""),
    ("tail -3 IN", "NUMBERS", 0, b"10\n11\n12", ""),
    ("tail -n +3 IN", "NUMBERS", 0, b"3\n4\n5\n6\n7\n8\n9\n10\n11\n12", ""),
    ("tail -n 0 IN", "NUMBERS", 0, b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12", ""),
    ("tail -c 4 IN", "NUMBERS", 0, b"1\n12", ""),
    ("tail -c +4 IN", "NUMBERS", 0, b"\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12", ""),
    ("tail -q IN", "NUMBERS", 1, b"", "tail: not integer: -q\n"),
    ("tail IN IN", "TWO", 0, b"==> IN <==\na\nb\n\n==> IN <==\na\nb\n", ""),
    ("tail -n 1 . IN", "TWO", 0, b"==> . <==\n\n==> IN <==\nb\n", ""),
    ("tail -n 1 missing IN", "TWO", 1, b"==> IN <==\nb\n", "tail: missing: No such file or directory\n"),
    ("tail --bytes=3 IN", "NUMBERS", 0, b"\n12", ""),
    ("wc IN", "NUMBERS", 0, b"11 12 26 IN\n", ""),
    ("wc -l IN", "NUMBERS", 0, b"11 IN\n", ""),
    (
        "wc IN IN",
        "TWO",
        0,
        b"      2       2       4 IN\n      2       2       4 IN\n      4       4       8 total\n",
        "",
    ),
    ("wc -c < IN", "TWO", 0, b"4\n", ""),
    ("wc < IN", "TWO", 0, b"      2       2       4\n", ""),
    ("wc -m IN", "WIDE", 0, b"13 IN\n", ""),
    (
        "wc -lwcm IN missing",
        "TWO",
        1,
        b"      2       2       4       4 IN\n      2       2       4       4 total\n",
        "wc: missing: No such file or directory\n",
    ),
    ("wc -L IN", "TWO", 1, b"", "wc: Unknown option 'L' (see \"wc --help\")\n"),
    (
        "wc . IN",
        "TWO",
        1,
        b"      0       0       0 .\n      2       2       4 IN\n      2       2       4 total\n",
        "wc: .: Is a directory\n",
    ),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("headtail"), boot=False)
    yield dev
    dev.close()


@pytest.mark.parametrize(("line", "name", "status", "expected", "message"), CASES)
def test_commands_print_what_toybox_prints(
    sh: ShellDevice, line: str, name: str, status: int, expected: bytes, message: str
) -> None:
    sh.host("/data/local/tmp/IN").write_bytes(INPUTS[name])
    r = sh.run(f"cd /data/local/tmp && {line}")
    assert (r.status, r.out, r.error) == (status, expected, message)


def test_wc_m_counts_a_character_cut_by_toybox_s_buffer_twice_in_bytes() -> None:
    # what toybox 0.8.6 printed for these bytes: its 4 KiB reads cut the 3-byte character
    data = b"a" * 4095 + b"\xe4\xb8\xad\n"
    assert counts(data, chars=True) == {"l": 1, "w": 1, "c": 4100, "m": 4097}
    assert counts(data, chars=False)["c"] == 4099


def test_wc_m_agrees_with_python_away_from_buffer_ends() -> None:
    rng = random.Random(3)
    pieces = ["a", " ", "\n", "é", "中", "\u3000", "\xa0"]
    text = "".join(rng.choice(pieces) for _ in range(1000))
    data = text.encode()
    assert len(data) <= 4096  # one toybox read: no character cut
    found = counts(data, chars=True)
    assert (found["m"], found["c"]) == (len(text), len(data))
    assert found["w"] == len(text.split())  # bionic's iswspace: Unicode's White_Space
