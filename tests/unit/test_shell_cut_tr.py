"""`cut` and `tr` as toybox 0.8.6 runs them: each case's status, output and message are those of
toybox 0.8.6 built from its source with Android's device config, on the same bytes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice

INPUTS = {
    "FIELDS": b"a:b:c\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n",
    "TABS": b"a\tb\tc\nno tab here\n\tlead\ntrail\t\n",
    "UTF8": b"\xc3\xa9t\xc3\xa9:\xff\xfe:abc\n\xe4\xb8\xad\xe6\x96\x87 wide\nno newline:at:end",
}

# (command line, input, status, output, message)
CUT_CASES = [
    ("cut -d: -f2 IN", "FIELDS", 0, b"b\ne\n\nfoo\n\n\n2\n", ""),
    ("cut -d: -f1,3 IN", "FIELDS", 0, b"a:c\nd\n\nfoofoo\nx\n\n1:3\n", ""),
    ("cut -d: -f2- IN", "FIELDS", 0, b"b:c\ne\n\nfoo\n\n\n2:3:4:5:6\n", ""),
    ("cut -d: -f-2 IN", "FIELDS", 0, b"a:b\nd:e\n:\nfoo\nx\n\n1:2\n", ""),
    ("cut -d: -f3 -s IN", "FIELDS", 0, b"c\n\n\n\n\n3\n", ""),
    ("cut -d: -f1,3 -s IN", "FIELDS", 0, b"a:c\nd\n\nfoox\n\n1:3\n", ""),
    ("cut -d: -D -f3,1 IN", "FIELDS", 0, b"c:a\n:d\n:\n\n:x\n\n3:1\n", ""),
    ("cut -d: -f1,2 -O XY IN", "FIELDS", 0, b"aXYb\ndXYe\nXY\nfoofoo\nx\n\n1XY2\n", ""),
    ("cut -d: -f1 --output-delimiter=/ IN", "FIELDS", 0, b"a\nd\n\nfoo\nx\n\n1\n", ""),
    ("cut -d ':b' -f2 IN", "FIELDS", 0, b"\ne\n\nfoo\n\n\n2\n", ""),
    ("cut -d '' -f 1,,2 -s IN", "FIELDS", 0, b"a:b:ca:b:cd:ed:e::::foofooxx\n\n1:2:3:4:5:61:2:3:4:5:6", ""),
    ("cut -f2 IN", "TABS", 0, b"b\nno tab here\nlead\n\n", ""),
    ("cut -f1 -s IN", "TABS", 0, b"a\nno tab here\n\ntrail\n", ""),
    ("cut -c2-3 IN", "UTF8", 0, b"t\xc3\xa9\n\xe6\x96\x87 \no \n", ""),
    ("cut -c-2 IN", "UTF8", 0, b"\xc3\xa9t\n\xe4\xb8\xad\xe6\x96\x87\nno\n", ""),
    ("cut -b1-2 IN", "UTF8", 0, b"\xc3\xa9\n\xe4\xb8\nno\n", ""),
    ("cut -nb1-3 IN", "UTF8", 0, b"\xc3\xa9t\n\xe4\xb8\xad\nno \n", ""),
    ("cut -C1-3 IN", "UTF8", 0, b"\xc3\xa9t\xc3\xa9\n\xe4\xb8\xad\nno \n", ""),
    ("cut -C 2- IN", "TABS", 0, b"\t\no tab here\nlead\nrail\t\n", ""),
    ("cut -F -f2 IN", "TABS", 1, b"", "cut: bad -F '-f2'\n               ^\n"),
    ("cut -F -d '[:t]' -f2,3 IN", "UTF8", 1, b"", "cut: No 'f' with 'F' (see \"cut --help\")\n"),
    ("cut -d '\n' -f2 IN", "FIELDS", 0, b"d:e\n", ""),
    ("cut -f a IN", "FIELDS", 0, b"a:b:c\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n", ""),
    ("cut -f 0 IN", "FIELDS", 1, b"", "cut: bad -f '0'\n              ^\n"),
    ("cut -d: -f 1-2-3 IN", "FIELDS", 1, b"", "cut: bad -f '1-2-3'\n                 ^\n"),
    ("cut -f 2-1 IN", "FIELDS", 1, b"", "cut: bad -f '2-1'\n             ^\n"),
    ("cut -f '' IN", "FIELDS", 1, b"", "cut: no selections\n"),
    ("cut -s -c1 IN", "FIELDS", 1, b"", "cut: -s needs -Ff\n"),
    ("cut -d: -c1 IN", "FIELDS", 1, b"", "cut: -d needs -Ff\n"),
    ("cut -c1 -b1 IN", "FIELDS", 1, b"", "cut: No 'b' with 'c' (see \"cut --help\")\n"),
    ("cut IN", "FIELDS", 1, b"", 'cut: Needs -CFfcb (see "cut --help")\n'),
    ("cut -q1 IN", "FIELDS", 1, b"", "cut: Unknown option 'q1' (see \"cut --help\")\n"),
    (
        "cut -f1 IN missing",
        "FIELDS",
        1,
        b"a:b:c\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n",
        "cut: missing: No such file or directory\n",
    ),
]
TR_CASES = [
    ("tr a-z A-Z < IN", "FIELDS", 0, b"A:B:C\nD:E\n::\nFOO\nX\n\n1:2:3:4:5:6\n", ""),
    ("tr -d : < IN", "FIELDS", 0, b"abc\nde\n\nfoo\nx\n\n123456\n", ""),
    ("tr -s ':\n' < IN", "FIELDS", 0, b"a:b:c\nd:e\n:\nfoo\nx\n1:2:3:4:5:6\n", ""),
    ("tr -c a-z _ < IN", "FIELDS", 0, b"a_b_c_d_e____foo_x______________", ""),
    ("tr -cd '[:digit:]\n' < IN", "FIELDS", 0, b"\n\n\n\n\n\n123456\n", ""),
    ("tr '[:lower:]' '[:upper:]' < IN", "TABS", 0, b"A\tB\tC\nNO TAB HERE\n\tLEAD\nTRAIL\t\n", ""),
    ("tr '\\t' ' ' < IN", "TABS", 0, b"a b c\nno tab here\n lead\ntrail \n", ""),
    ("tr -ds : a < IN", "FIELDS", 0, b"abc\nde\n\nfoo\nx\n\n123456\n", ""),
    ("tr abc x < IN", "FIELDS", 0, b"x:x:x\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n", ""),
    ("tr '[=a=]' XYZW < IN", "FIELDS", 0, b"Y:b:c\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n", ""),
    (
        "tr '\\303\\251' eE < IN",
        "UTF8",
        0,
        b"eEteE:\xff\xfe:abc\n\xe4\xb8\xad\xe6\x96\x87 wide\nno newline:at:end",
        "",
    ),
    ("tr '\\x41\\q\\' x < IN", "FIELDS", 0, b"a:b:c\nd:e\n::\nfoo\nx\n\n1:2:3:4:5:6\n", ""),
    (
        "tr '[:xdigit:]' x < IN",
        "UTF8",
        0,
        b"\xc3\xa9t\xc3\xa9:\xff\xfe:xxx\n\xe4\xb8\xad\xe6\x96\x87 wixx\nno nxwlinx:xt:xnx",
        "",
    ),
    ("tr < IN", "FIELDS", 1, b"", 'tr: Needs 1 argument (see "tr --help")\n'),
    ("tr a b c < IN", "FIELDS", 1, b"", 'tr: Max 2 arguments (see "tr --help")\n'),
    ("tr c-a x < IN", "FIELDS", 1, b"", "tr: reverse colating order: No such file or directory\n"),
    ("tr a '' < IN", "FIELDS", 1, b"", "tr: set2 can't be empty string\n"),
    ("tr '[=a' x < IN", "FIELDS", 1, b"", "tr: bad equiv class\n"),
    ("tr -q a b < IN", "FIELDS", 1, b"", "tr: Unknown option 'q' (see \"tr --help\")\n"),
    ("tr -C a _ < IN", "FIELDS", 0, b"a_______________________________", ""),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("cut"), boot=False)
    yield dev
    dev.close()


@pytest.mark.parametrize(("line", "name", "status", "expected", "message"), CUT_CASES + TR_CASES)
def test_cut_and_tr_print_what_toybox_prints(
    sh: ShellDevice, line: str, name: str, status: int, expected: bytes, message: str
) -> None:
    sh.host("/data/local/tmp/IN").write_bytes(INPUTS[name])
    r = sh.run(f"cd /data/local/tmp && {line}")
    assert (r.status, r.out, r.error) == (status, expected, message)


def test_tr_deletes_and_squeezes_a_large_input_off_the_event_loop(sh: ShellDevice) -> None:
    r = sh.run("head -c 3000000 /dev/zero | tr -s '\\000' x | wc -c")
    assert r.text.strip() == "1"


PIECES = [
    "-f1",
    "-f2-",
    "-c1-2",
    "-b2",
    "-C1",
    "-F",
    "-d:",
    "-d ''",
    "-s",
    "-D",
    "-n",
    "-O/",
    "-f",
    "0",
    ",",
    "-",
]


@settings(max_examples=200, deadline=None)
@given(options=st.lists(st.sampled_from(PIECES), max_size=5), data=st.binary(max_size=60))
def test_fuzz_cut_ends_with_a_status(sh: ShellDevice, options: list[str], data: bytes) -> None:
    sh.host("/data/local/tmp/F").write_bytes(data)
    r = sh.run(f"cut {' '.join(options)} /data/local/tmp/F")
    assert r.status in (0, 1)
    assert "Traceback" not in r.error and "internal error" not in r.error, (options, r.error)


@settings(max_examples=200, deadline=None)
@given(
    options=st.sampled_from(["", "-d", "-s", "-c", "-ds", "-cd"]),
    sets=st.lists(st.text(alphabet="ab-z[]:=\\x0123456789", max_size=8), min_size=1, max_size=2),
    data=st.binary(max_size=60),
)
def test_fuzz_tr_ends_with_a_status(sh: ShellDevice, options: str, sets: list[str], data: bytes) -> None:
    sh.host("/data/local/tmp/F").write_bytes(data)
    quoted = " ".join("'" + s.replace("'", "") + "'" for s in sets)
    r = sh.run(f"tr {options} {quoted} < /data/local/tmp/F")
    assert r.status in (0, 1)
    assert "Traceback" not in r.error and "internal error" not in r.error, (sets, r.error)
