"""`seq`, `basename`, `dirname` and `cat -vte` as toybox 0.8.6 runs them: each case's status, output
and message are those of toybox 0.8.6 built from its source with Android's device config."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.shellkit import ShellDevice

INPUTS = {"BYTES": bytes(range(256)) + b"\nend", "TEXT": b"\xff\xfe abc\n\xc3\xa9t\t\n", "NONE": b""}

# (command line, input, status, output, message)
CASES = [
    ("seq 3", "NONE", 0, b"1\n2\n3\n", ""),
    ("seq 1 2 9", "NONE", 0, b"1\n3\n5\n7\n9\n", ""),
    ("seq -s, 8 11", "NONE", 0, b"08,09,10,11\n", ""),
    ("seq -w 8 11", "NONE", 0, b"08\n09\n10\n11\n", ""),
    ("seq -s, 5 1", "NONE", 0, b"\n", ""),
    ("seq 0 0.3 1", "NONE", 0, b"0.0\n0.3\n0.6\n0.9\n", ""),
    ("seq 1.50 2", "NONE", 0, b"1.50\n", ""),
    ("seq -f %03g 3", "NONE", 0, b"001\n002\n003\n", ""),
    ("seq -f '%.2e' 1 3", "NONE", 0, b"1.00e+00\n2.00e+00\n3.00e+00\n", ""),
    ("seq -f %d 3", "NONE", 1, b"", "seq: bad -f '%d'@2\n"),
    ("seq -f %g -w 3", "NONE", 1, b"", "seq: No 'w' with 'f' (see \"seq --help\")\n"),
    ("seq 3 -1 1", "NONE", 0, b"3\n2\n1\n", ""),
    ("seq 1 0 3", "NONE", 0, b"", ""),
    ("seq x", "NONE", 1, b"", "seq: strtod x: Argument list too long\n"),
    ("seq -q 3", "NONE", 1, b"", "seq: strtod -q: Argument list too long\n"),
    ("seq", "NONE", 1, b"", 'seq: Needs 1 argument (see "seq --help")\n'),
    ("seq 1 2 3 4", "NONE", 1, b"", 'seq: Max 3 arguments (see "seq --help")\n'),
    ("seq 2147483646 2147483648", "NONE", 0, b"2147483646\n2147483647\n2147483648\n", ""),
    ("seq -- -2 0", "NONE", 0, b"-2\n-1\n0\n", ""),
    ("basename /a/b/c.txt .txt", "NONE", 0, b"c\n", ""),
    ("basename -s .c a.c b.c", "NONE", 0, b"a\nb\n", ""),
    ("basename -a x/y z/w", "NONE", 0, b"y\nw\n", ""),
    ("basename a.c a.c", "NONE", 0, b"a.c\n", ""),
    ("basename a b c", "NONE", 1, b"", "basename: too many args\n"),
    ("basename //x//", "NONE", 0, b"x\n", ""),
    ("basename /", "NONE", 0, b"/\n", ""),
    ("dirname a/b/ c/d", "NONE", 0, b"a\nc\n", ""),
    ("dirname a//b//", "NONE", 0, b"a\n", ""),
    ("dirname a", "NONE", 0, b".\n", ""),
    ("dirname ///a///b", "NONE", 0, b"///a\n", ""),
    (
        "cat -v IN",
        "BYTES",
        0,
        b"^@^A^B^C^D^E^F^G^H\t\n^K^L^M^N^O^P^Q^R^S^T^U^V^W^X^Y^Z^[^\\^]^^^_ !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~^?M-^@M-^AM-^BM-^CM-^DM-^EM-^FM-^GM-^HM-\tM-\nM-^KM-^LM-^MM-^NM-^OM-^PM-^QM-^RM-^SM-^TM-^UM-^VM-^WM-^XM-^YM-^ZM-^[M-^\\M-^]M-^^M-^_M- M-!M-\"M-#M-$M-%M-&M-'M-(M-)M-*M-+M-,M--M-.M-/M-0M-1M-2M-3M-4M-5M-6M-7M-8M-9M-:M-;M-<M-=M->M-?M-@M-AM-BM-CM-DM-EM-FM-GM-HM-IM-JM-KM-LM-MM-NM-OM-PM-QM-RM-SM-TM-UM-VM-WM-XM-YM-ZM-[M-\\M-]M-^M-_M-`M-aM-bM-cM-dM-eM-fM-gM-hM-iM-jM-kM-lM-mM-nM-oM-pM-qM-rM-sM-tM-uM-vM-wM-xM-yM-zM-{M-|M-}M-~M-^?\nend",  # noqa: E501
        "",
    ),
    ("cat -e IN", "TEXT", 0, b"\xff\xfe abc$\n\xc3\xa9t\t$\n", ""),
    ("cat -t IN", "TEXT", 0, b"\xff\xfe abc\n\xc3\xa9t^I\n", ""),
    ("cat -vet IN", "TEXT", 0, b"M-^?M-~ abc$\nM-CM-)t^I$\n", ""),
    ("cat -n IN", "TEXT", 1, b"", "cat: Unknown option 'n' (see \"cat --help\")\n"),
    ("cat --foo IN", "TEXT", 1, b"", "cat: Unknown option 'foo' (see \"cat --help\")\n"),
    (
        "cat IN missing",
        "TEXT",
        1,
        b"\xff\xfe abc\n\xc3\xa9t\t\n",
        "cat: missing: No such file or directory\n",
    ),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("misc"), boot=False)
    yield dev
    dev.close()


@pytest.mark.parametrize(("line", "name", "status", "expected", "message"), CASES)
def test_commands_print_what_toybox_prints(
    sh: ShellDevice, line: str, name: str, status: int, expected: bytes, message: str
) -> None:
    sh.host("/data/local/tmp/IN").write_bytes(INPUTS[name])
    r = sh.run(f"cd /data/local/tmp && {line}")
    assert (r.status, r.out, r.error) == (status, expected, message)


def test_seq_without_an_end_is_ended_by_its_reader(sh: ShellDevice) -> None:
    assert sh.run("seq 1 nan | head -n 2").text == "001\n002\n"  # NaN never compares past the end
