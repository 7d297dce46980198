"""`xxd` and `od` as toybox 0.8.6 prints them: each case's status, output and message are those of
toybox 0.8.6 built from its source, run on the same bytes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice

TEXT = b"this is some text\n"
BIN = bytes(range(0, 256, 7)) + b"\0" * 40 + b"xyz\xff\x80"

# (command, input, status, output, message with the input's name as IN)
CASES = [
    (
        "xxd",
        TEXT,
        0,
        "00000000: 7468 6973 2069 7320 736f 6d65 2074 6578  this is some tex\n"
        "00000010: 740a                                     t.\n",
        "",
    ),
    (
        "xxd -c 8 -g 3",
        TEXT,
        0,
        "00000000: 746869 732069 7320 this is \n00000008: 736f6d 652074 6578 some tex\n"
        "00000010: 740a               t.\n",
        "",
    ),
    (
        "xxd -i",
        BIN,
        0,
        "  00, 0x07, 0x0e, 0x15, 0x1c, 0x23, 0x2a, 0x31, 0x38, 0x3f, 0x46, 0x4d,\n"
        "  0x54, 0x5b, 0x62, 0x69, 0x70, 0x77, 0x7e, 0x85, 0x8c, 0x93, 0x9a, 0xa1,\n"
        "  0xa8, 0xaf, 0xb6, 0xbd, 0xc4, 0xcb, 0xd2, 0xd9, 0xe0, 0xe7, 0xee, 0xf5,\n"
        "  0xfc, 00, 00, 00, 00, 00, 00, 00, 00, 00, 00, 00,\n"
        "  00, 00, 00, 00, 00, 00, 00, 00, 00, 00, 00, 00,\n"
        "  00, 00, 00, 00, 00, 00, 00, 00, 00, 00, 00, 00,\n"
        "  00, 00, 00, 00, 00, 0x78, 0x79, 0x7a, 0xff, 0x80\n",
        "",
    ),
    (
        "xxd -p",
        BIN,
        0,
        "00070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cb \n"
        "d2d9e0e7eef5fc0000000000000000000000000000000000000000000000 \n"
        "000000000000000000000000000000000078797aff80\n",
        "",
    ),
    ("xxd -s 13 -l 3 -o 0x8000", TEXT, 0, "0000800d: 7465 78                                  tex\n", ""),
    (
        "xxd -c 7 -g 5",
        BIN,
        0,
        "00000000: 00070e151c 232a .....#*\n00000007: 31383f464d 545b 18?FMT[\n"
        "0000000e: 626970777e 858c bipw~..\n00000015: 939aa1a8af b6bd .......\n"
        "0000001c: c4cbd2d9e0 e7ee .......\n00000023: f5fc000000 0000 .......\n"
        "0000002a: 0000000000 0000 .......\n00000031: 0000000000 0000 .......\n"
        "00000038: 0000000000 0000 .......\n0000003f: 0000000000 0000 .......\n"
        "00000046: 0000000000 0000 .......\n0000004d: 78797aff80      xyz..\n",
        "",
    ),
    (
        "od",
        TEXT,
        0,
        "0000000  064164  071551  064440  020163  067563  062555  072040  074145\n0000020  005164\n0000022\n",
        "",
    ),
    (
        "od -c",
        BIN,
        0,
        "0000000  \\0  \\a 016 025 034   #   *   1   8   ?   F   M   T   [   b   i\n"
        "0000020   p   w   ~ 205 214 223 232 241 250 257 266 275 304 313 322 331\n"
        "0000040 340 347 356 365 374  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0\n"
        "0000060  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0\n"
        "0000100  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0   x   y   z\n"
        "0000120 377 200\n0000122\n",
        "",
    ),
    (
        "od -t a -t d1 -c",
        BIN,
        0,
        "0000000  nul  bel   so  nak   fs    #    *    1    8    ?    F    M    T    [    b    i\n"
        "           0    7   14   21   28   35   42   49   56   63   70   77   84   91   98  105\n"
        "          \\0   \\a  016  025  034    #    *    1    8    ?    F    M    T    [    b    i\n"
        "0000020    p    w    ~  enq   ff  dc3  sub    !    (    /    6    =    D    K    R    Y\n"
        "         112  119  126 -123 -116 -109 -102  -95  -88  -81  -74  -67  -60  -53  -46  -39\n"
        "           p    w    ~  205  214  223  232  241  250  257  266  275  304  313  322  331\n"
        "0000040    `    g    n    u    |  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul\n"
        "         -32  -25  -18  -11   -4    0    0    0    0    0    0    0    0    0    0    0\n"
        "         340  347  356  365  374   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0\n"
        "0000060  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul\n"
        "           0    0    0    0    0    0    0    0    0    0    0    0    0    0    0    0\n"
        "          \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0\n"  # noqa: E501
        "0000100  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul  nul    x    y    z\n"
        "           0    0    0    0    0    0    0    0    0    0    0    0    0  120  121  122\n"
        "          \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0   \\0    x    y    z\n"  # noqa: E501
        "0000120  del  nul\n          -1 -128\n         377  200\n0000122\n",
        "",
    ),
    ("od -t x2 -A n", TEXT, 0, "  6874  7369  6920  2073  6f73  656d  7420  7865\n  0a74\n", ""),
    (
        "od -A x -t d2 -w8",
        TEXT,
        0,
        "000000   26740   29545   26912    8307\n000008   28531   25965   29728   30821\n"
        "000010    2676\n000012\n",
        "",
    ),
    (
        "od -t x1",
        BIN,
        0,
        "0000000 00 07 0e 15 1c 23 2a 31 38 3f 46 4d 54 5b 62 69\n"
        "0000020 70 77 7e 85 8c 93 9a a1 a8 af b6 bd c4 cb d2 d9\n"
        "0000040 e0 e7 ee f5 fc 00 00 00 00 00 00 00 00 00 00 00\n"
        "0000060 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
        "0000100 00 00 00 00 00 00 00 00 00 00 00 00 00 78 79 7a\n0000120 ff 80\n0000122\n",
        "",
    ),
    (
        "od -v -t x1 -N 24 -j 40",
        BIN,
        0,
        "0000050 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n0000070 00 00 00 00 00 00 00 00\n0000100\n",
        "",
    ),
    (
        "od -t f4 -t f8 -t x3",
        TEXT,
        0,
        "0000000  1.84924885e+31  2.06176836e-19  7.00785457e+22  1.86154887e+34\n"
        "               2.31634003252425400e-152        9.06706381073146973e+271\n"
        "             696874      692073      732073      656d6f      657420      000078\n"
        "0000020  3.74987469e-42\n               1.32211966827117575e-320\n             000a74\n"
        "0000022\n",
        "",
    ),
    (
        "od -x -s -d -o -b",
        TEXT,
        0,
        "0000000 164 150 151 163 040 151 163 040 163 157 155 145 040 164 145 170\n"
        "          26740   29545   26912    8307   28531   25965   29728   30821\n"
        "         064164  071551  064440  020163  067563  062555  072040  074145\n"
        "          26740   29545   26912    8307   28531   25965   29728   30821\n"
        "           6874    7369    6920    2073    6f73    656d    7420    7865\n0000020 164 012\n"
        "           2676\n         005164\n           2676\n           0a74\n0000022\n",
        "",
    ),
    (
        "od -t dC -t uS -t xI -t oL",
        BIN,
        0,
        "0000000    0    7   14   21   28   35   42   49   56   63   70   77   84   91   98  105\n"
        "             1792      5390      8988     12586     16184     19782     23380     26978\n"
        "                   150e0700            312a231c            4d463f38            69625b54\n"
        "                         0304521061602503403400                  0645422665211521437470\n"
        "0000020  112  119  126 -123 -116 -109 -102  -95  -88  -81  -74  -67  -60  -53  -46  -39\n"
        "            30576     34174     37772     41370     44968     48566     52164     55762\n"
        "                   857e7770            a19a938c            bdb6afa8            d9d2cbc4\n"
        "                         1206324470620537473560                  1547226274227555527650\n"
        "0000040  -32  -25  -18  -11   -4    0    0    0    0    0    0    0    0    0    0    0\n"
        "            59360     62958       252         0         0         0         0         0\n"
        "                   f5eee7e0            000000fc            00000000            00000000\n"
        "                         0000000017636573563740                  0000000000000000000000\n"
        "0000060    0    0    0    0    0    0    0    0    0    0    0    0    0    0    0    0\n"
        "                0         0         0         0         0         0         0         0\n"
        "                   00000000            00000000            00000000            00000000\n"
        "                         0000000000000000000000                  0000000000000000000000\n"
        "0000100    0    0    0    0    0    0    0    0    0    0    0    0    0  120  121  122\n"
        "                0         0         0         0         0         0     30720     31353\n"
        "                   00000000            00000000            00000000            7a797800\n"
        "                         0000000000000000000000                  0751713600000000000000\n"
        "0000120   -1 -128\n            33023\n                   000080ff\n"
        "                         0000000000000000100377\n0000122\n",
        "",
    ),
    (
        "od -t x1c",
        TEXT,
        0,
        "0000000  74  68  69  73  20  69  73  20  73  6f  6d  65  20  74  65  78\n"
        "          t   h   i   s       i   s       s   o   m   e       t   e   x\n0000020  74  0a\n"
        "          t  \\n\n0000022\n",
        "",
    ),
    ("od -t q", TEXT, 1, "", "od: bad -t q\n"),
    ("od -t c2", TEXT, 1, "", "od: bad -t c2\n"),
    ("od -A q", TEXT, 1, "", "od: bad -A 'q'\n"),
    ("xxd -c 300", TEXT, 1, "", 'xxd: -c > 256 (see "xxd --help")\n'),
    ("xxd -r -s 1", TEXT, 1, "", "xxd: No 's' with 'r' (see \"xxd --help\")\n"),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("dump"), boot=False)
    yield dev
    dev.close()


def put(sh: ShellDevice, data: bytes, path: str = "/data/local/tmp/in") -> None:
    escaped = "".join(f"\\{b:03o}" for b in data)
    assert sh.run(f"printf '{escaped}' > {path}").status == 0


@pytest.mark.parametrize(("line", "data", "status", "expected", "message"), CASES)
def test_dumps_print_what_toybox_prints(
    sh: ShellDevice, line: str, data: bytes, status: int, expected: str, message: str
) -> None:
    put(sh, data)
    r = sh.run(f"{line} /data/local/tmp/in")
    assert (r.status, r.out.decode("latin-1"), r.error.replace("/data/local/tmp/in", "IN")) == (
        status,
        expected,
        message,
    )


def test_xxd_r_rebuilds_a_file_and_cannot_seek_on_a_pipe(sh: ShellDevice) -> None:
    put(sh, BIN, "/data/local/tmp/bin")
    assert sh.run("xxd /data/local/tmp/bin > /data/local/tmp/dump").status == 0
    assert sh.run("xxd -r /data/local/tmp/dump > /data/local/tmp/back").status == 0
    assert sh.run("cmp /data/local/tmp/bin /data/local/tmp/back").status == 0
    # toybox 0.8.6 seeks to each line's address, which a pipe (or the adb stream) refuses
    r = sh.run("xxd -r /data/local/tmp/dump | wc -c")
    assert r.text.strip() == "0" and "xxd: /data/local/tmp/dump: seek failed: Illegal seek" in r.error
    assert sh.run("xxd -p /data/local/tmp/bin | xxd -r -p | cmp - /data/local/tmp/bin").status == 0
    # an address leaves a gap of zeros in a file; one past 64 MiB is refused
    sh.run("printf '00000004: 4142\\n' > /data/local/tmp/gap")
    assert sh.run("xxd -r /data/local/tmp/gap > /data/local/tmp/o; od -A n -t x1 /data/local/tmp/o").text == (
        " 00 00 00 00 41 42\n"
    )
    sh.run("printf 'ffffffff: 41\\n' > /data/local/tmp/far")
    r = sh.run("xxd -r /data/local/tmp/far > /data/local/tmp/o")
    assert r.status == 1 and "past 64 MiB" in r.error


def test_large_input_is_dumped_in_pieces(sh: ShellDevice) -> None:
    r = sh.run("head -c 3000000 /dev/zero | od -t x1 -v | tail -n 1")
    assert r.text == "13343300\n"  # 3,000,000 in octal
    r = sh.run("head -c 1000000 /dev/urandom | xxd | wc -l")
    assert r.text.strip() == "62500"


OPTIONS = ["-c", "-g", "-l", "-s", "-o", "-i", "-p", "-r", "0", "3", "-1", "x", "-t", "x2", "c", "-A", "n",
           "-w", "-N", "-j", "-v", "fD", "d8", "a", "-"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    command=st.sampled_from(["xxd", "od"]),
    options=st.lists(st.sampled_from(OPTIONS), max_size=6),
    data=st.binary(max_size=80),
)
def test_fuzz_options_and_input_end_with_a_status(
    sh: ShellDevice, command: str, options: list[str], data: bytes
) -> None:
    put(sh, data, "/data/local/tmp/fuzz")
    r = sh.run(f"{command} {' '.join(options)} < /data/local/tmp/fuzz", timeout=30)
    assert r.status in (0, 1)
    assert "Traceback" not in r.error and "internal error" not in r.error, (options, r.error)
