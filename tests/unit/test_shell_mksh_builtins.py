"""`printf` (toybox's: Android's mksh has none of its own), `echo` and `test`/`[` (mksh's builtins)
as Android 13's shell runs them: each script's status, output and errors are those of mksh R59c
built from its source with toybox 0.8.6 (Android's config) on its PATH."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.shellkit import ShellDevice

# (script, status, stdout, stderr)
CASES = [
    ("printf '%s|%5s|%-5s|%.2s\\n' abc de fg hijk", 0, b"abc|   de|fg   |hi\n", ""),
    ("printf '%d %i %o %x %X %u %c\\n' 42 -7 8 255 255 3 hello", 0, b"42 -7 10 ff FF 3 h\n", ""),
    (
        "printf '%5.2f %e %g %G %10.3e\\n' 3.14159 12345.678 0.0001 1e20 2.5",
        0,
        b" 3.14 1.234568e+04 0.0001 1E+20  2.500e+00\n",
        "",
    ),
    ("printf '%b|%s\\n' 'a\\tb\\nc' 'a\\tb'", 0, b"a\tb\nc|a\\tb\n", ""),
    ("printf '%%|%5%|\\n'", 1, b"%|", "printf: bad %%@6\n"),
    ("printf '%d\\n' abc; echo $?", 0, b"0\n1\n", "printf: bad %d abc\n"),
    ("printf '%d\\n' 3.5; echo $?", 0, b"3\n1\n", "printf: bad %d 3.5\n"),
    ("printf '%s %s\\n' a b c d e", 0, b"a b\nc d\ne \n", ""),
    ("printf 'x\\n' extra args", 0, b"x\n", ""),
    ("printf '%x %o\\n' -1 -1", 0, b"ffffffffffffffff 1777777777777777777777\n", ""),
    ("printf '%#x %#o %+d % d %05d %-5d|\\n' 255 8 5 5 42 42", 0, b"0xff 010 +5  5 00042 42   |\n", ""),
    ("printf '%*d|%-*d|\\n' 5 1 4 2", 0, b"    1|2   |\n", ""),
    ('printf "\\101\\x42\\u263a\\n"', 0, b"AB\\u263a\n", ""),
    ("printf '%q\\n' 'a b'", 1, b"", "printf: bad %q@2\n"),
    ("printf '%d\\n' 0x1f 010 \"'A\"", 0, b"31\n8\n65\n", ""),
    ("printf '%s\\n'", 0, b"\n", ""),
    ("printf", 1, b"", 'printf: Needs 1 argument (see "printf --help")\n'),
    ("printf '\\c' ; echo after", 0, b"after\n", ""),
    ("printf 'a\\cb'; echo; printf '%b' 'x\\cy'; echo z", 0, b"a\nxz\n", ""),
    (
        "printf '%d %d\\n' 99999999999999999999 -5",
        1,
        b"9223372036854775807 -5\n",
        "printf: bad %d 99999999999999999999: Numerical result out of range\n",
    ),
    ("printf '%#x %#o %#X|%5c|%-3c|\\n' 0 0 10 a b", 0, b"0 0 0XA|    a|b  |\n", ""),
    ("printf '\\xvq'; echo $?", 0, b"1\n", "printf: bad \\x\n"),
    ("printf '%.3d|%8.3f|%-8.2e|\\n' 7 2.5 1234.5", 0, b"007|   2.500|1.23e+03|\n", ""),
    (
        "printf '%f\\n' abc 1e3x; echo $?",
        0,
        b"0.000000\n1000.000000\n1\n",
        "printf: bad %f abc\nprintf: bad %f 1e3x\n",
    ),
    ("printf '%c' ''| od -c | head -1", 0, b"0000000  \\0\n", ""),
    ("printf '%b\\n' '\\0101\\101\\x41\\c' ; echo $?", 0, b"AAA0\n", ""),
    ("printf '%s-%s\\n' 1 2 3", 0, b"1-2\n3-\n", ""),
    ("printf '%5s|%.0s|\\n' ab cd", 0, b"   ab||\n", ""),
    ("printf '\\q\\\\n'", 0, b"\\q\\n", ""),
    ("printf '%i %u\\n' -3 -3", 0, b"-3 18446744073709551613\n", ""),
    (
        "test 5 -gt 3; echo $?; test a = b; echo $?; test -z ''; echo $?; test; echo $?; test x; echo $?",
        0,
        b"0\n1\n0\n1\n0\n",
        "",
    ),
    (
        "[ 1 -lt 2 -a 3 -gt 4 ]; echo $?; [ ! -n '' ]; echo $?; [ \\( 1 = 1 \\) ]; echo $?",
        0,
        b"1\n0\n0\n",
        "",
    ),
    ('[ 1 -eq x ]; echo $?; x=3; [ 1 -lt x ]; echo $?; [ 2 -eq "1+1" ]; echo $?', 0, b"1\n0\n0\n", ""),
    (
        '[ \\( 1 = 1 \\) -a ! \\( 2 = 3 \\) ]; echo $?; [ "(" = "(" ]; echo $?; [ 1 -eq ]; echo $?',
        0,
        b"0\n0\n2\n",
        "/system/bin/sh: [: -eq: missing second argument\n",
    ),
    ("[ a == a ]; echo $?; [ 1 -eq 1 ] && [ 2 -ne 3 ]; echo $?", 0, b"0\n0\n", ""),
    (
        "[ 1 ]; echo $?; [ ]; echo $?; [ = ]; echo $?; [ -n ]; echo $?; [ ! ]; echo $?; [ ! = ]; echo $?",
        0,
        b"0\n1\n0\n0\n0\n1\n",
        "",
    ),
    (
        "[ -f = -f ]; echo $?; [ -z -z ]; echo $?; [ a -a b -o c ]; echo $?; [ '' -o '' ]; echo $?",
        0,
        b"0\n1\n0\n1\n",
        "",
    ),
    ("[ 1 -gt 2 -o 3 -gt 2 ]; echo $?; [ ! 1 -gt 2 ]; echo $?; [ ! ! x ]; echo $?", 0, b"0\n0\n0\n", ""),
    (
        "[ 1 = 1; echo $?; test 1 = 1 ]; echo $?",
        0,
        b"2\n2\n",
        "/system/bin/sh: [: missing ]\n/system/bin/sh: test: ]: unexpected operator/operand\n",
    ),
    ("[ a \\< b ]; echo $?; [ b \\> a ]; echo $?; [ 10 -lt 9 ]; echo $?", 0, b"0\n0\n1\n", ""),
    (
        "[ 1 -eq 1 -a ]; echo $?; [ -x ]; echo $?; [ a b ]; echo $?; [ a b c d e ]; echo $?",
        0,
        b"2\n0\n2\n2\n",
        "/system/bin/sh: [: expression expected\n/system/bin/sh: [: b: unexpected operator/operand\n/system/bin/sh: [: b: unexpected operator/operand\n",  # noqa: E501
    ),
    (
        "[ 2147483648 -eq 0 ]; echo $?; [ 0x10 -eq 16 ]; echo $?; [ 010 -eq 10 ]; echo $?; [ ' 5 ' -eq 5 ]; echo $?",  # noqa: E501
        0,
        b"1\n2\n0\n0\n",
        "/system/bin/sh: 0x10: bad number '0x10'\n",
    ),
    (
        "[ -t 0 ]; echo $?; [ -t ]; echo $?; [ -v PATH ]; echo $?; [ -o ?noglob ]; echo $?; [ -o ?nope ]; echo $?",  # noqa: E501
        0,
        b"1\n0\n0\n0\n1\n",
        "",
    ),
    ("[ 1/0 -eq 1 ]; echo $?; [ abc -eq 1 ]; echo $?", 0, b"2\n1\n", "/system/bin/sh: 1/0: zero divisor\n"),
    ("[ \\( \\( a \\) \\) ]; echo $?; [ ! \\( a = b \\) -a \\( c \\) ]; echo $?", 0, b"0\n0\n", ""),
    (
        "echo -n a; echo -e 'b\\tc'; echo -E 'd\\te'; echo '\\0101'; echo 'x\\cy'; echo -- -n",
        0,
        b"ab\tc\nd\\te\nA\nxy-- -n\n",
        "",
    ),
    ("echo 'a\\cb\\nc'; echo end; print 'p\\cq'; echo end", 0, b"ab\ncend\npqend\n", ""),
    (
        "echo '\\x41\\101\\0\\e\\a' | od -c | head -2",
        0,
        b"0000000   A   \\   1   0   1  \\0 033  \\a  \\n\n0000011\n",
        "",
    ),
    ("echo -n; echo -e; echo -nE 'a\\n'; echo -en 'x\\n'; echo -x y", 0, b"\na\\nx\n-x y\n", ""),
    ("echo '\\q \\\\ \\'; echo \"a\\\\\\\\b\"", 0, b"\\q \\ \\\na\\b\n", ""),
    ("echo -ne; echo ---; echo -; echo -neE z", 0, b"---\n-\nz", ""),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("builtins"), boot=False)
    yield dev
    dev.close()


@pytest.mark.parametrize(("script", "status", "expected", "message"), CASES)
def test_scripts_run_as_android_s_shell_runs_them(
    sh: ShellDevice, script: str, status: int, expected: bytes, message: str
) -> None:
    r = sh.run(script)
    assert (r.status, r.out, r.error) == (status, expected, message)


def test_printf_bounds(sh: ShellDevice) -> None:
    r = sh.run("printf '%999999999d' 1 | wc -c")
    assert r.text.strip() == "0" and "field width too large" in r.error
