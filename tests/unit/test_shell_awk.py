"""`awk` as scripts use Android 13's one-true-awk: fields, patterns, BEGIN/END, arrays, printf and the
builtins, with its numeric-string comparisons; and a hostile program ends with an error, never holds
the device's process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.awk_parse import AwkError, Parser
from tests.unit.shellkit import ShellDevice


def awk(sh: ShellDevice, program: str, stdin: str = "", args: str = "") -> str:
    r = sh.run(f"printf '%s' {quote(stdin)} | awk {args} {quote(program)}")
    assert r.status == 0, r.error
    return r.text


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_fields_patterns_and_totals(sh: ShellDevice) -> None:
    rows = "alice 30 x\nbob 4 y\ncarol 12 z\n"
    assert awk(sh, "{print $2}", rows) == "30\n4\n12\n"
    assert awk(sh, "{s += $2} END {print s, NR, NF}", rows) == "46 3 3\n"
    assert awk(sh, "$2 > 10 {print $1}", rows) == "alice\ncarol\n"  # numeric: "4" < "10" as strings
    assert awk(sh, "/^b/", rows) == "bob 4 y\n"
    assert awk(sh, "NR == 2, NR == 3 {print NR}", rows) == "2\n3\n"
    assert awk(sh, "{print $NF; print $(NF-1)}", "a b c\n") == "c\nb\n"
    assert awk(sh, '{print $1 "-" $2}', "a:1\nb:2\n", "-F:") == "a-1\nb-2\n"
    assert awk(sh, "{print $2}", "a\tb c\n", "-F'\\t'") == "b c\n"
    assert awk(sh, "NF", "a\n\n b\n") == "a\n b\n"


def test_assigning_fields_rebuilds_the_record(sh: ShellDevice) -> None:
    assert awk(sh, '{$2 = "X"; print; $4 = "d"; print; print NF}', "a b c\n") == "a X c\na X c d\n4\n"
    assert awk(sh, 'BEGIN {OFS="-"} {$1 = $1; print}', "a b c\n") == "a-b-c\n"
    assert awk(sh, "{NF = 2; print}", "a b c\n") == "a b\n"


def test_statements_arrays_functions_and_builtins(sh: ShellDevice) -> None:
    program = """
    function fact(n) { return n <= 1 ? 1 : n * fact(n - 1) }
    function fill(a) { a["k"] = "v" }
    BEGIN {
        for (i = 0; i < 3; i++) printf "%d,", i
        print ""
        n = split("a.b.c", parts, ".")
        count = 0
        for (k in parts) count++
        print n, count, parts[3], ("2" in parts), length(parts)
        s = "hello world"
        print length(s), substr(s, 2, 3), index(s, "wor"), toupper(substr(s, 1, 1))
        t = s; gsub(/o/, "0", t); print t; sub(/l+/, "[&]", s); print s
        print match("foobar", /ob+/), RSTART, RLENGTH
        printf "%5.2f|%-3s|%x|%c|%05d\\n", 3.14159, "a", 255, 65, 42
        print fact(6), 1/4, 2^10, -2^2, 7 % 3, int(-3.7), 100000000000000000000, -0
        fill(made); print length(made), made["k"], substr("hello", -1, 3), substr("hello", 1.9, 2.9)
        while (j < 3) { j++; if (j == 2) continue; w = w j }
        do { d++ } while (d < 5)
        print w, d
        delete parts; print length(parts)
        exit 3
    }
    END { print "end runs after exit in BEGIN" }
    """
    r = sh.run(f"awk {quote(program)}")
    assert r.status == 3
    assert r.text.splitlines() == [
        "0,1,2,",
        "3 3 c 1 3",
        "11 ell 7 H",
        "hell0 w0rld",
        "he[ll]o world",
        "3 3 2",
        " 3.14|a  |ff|A|00042",
        "720 0.25 1024 -4 1 -3 100000000000000000000 0",
        "1 v hel he",
        "13 5",
        "0",
        "end runs after exit in BEGIN",
    ]


def test_numbers_strings_and_uninitialised_values_compare_as_awk_does(sh: ShellDevice) -> None:
    assert awk(sh, "{print ($1 == $2), ($1 < $3)}", "007 7 10\n") == "1 1\n"  # numeric strings
    assert awk(sh, 'BEGIN {print ("10" < "9"), (10 < 9), (x == 0), (x == "")}') == "1 0 1 1\n"
    assert awk(sh, "BEGIN {print 0.1 + 0.2, 1e6, 1e-5, 3.0}") == "0.3 1000000 1e-05 3\n"
    assert awk(sh, "BEGIN {print x + 1}", args="-v x=41") == "42\n"
    assert (
        sh.run("printf 'a\\n' | awk '{print v, $0}' v=1 -").text == "1 a\n"
    )  # an assignment operand, then stdin


NO_FILE = "awk: output to the file /sdcard/x is not supported on this device's awk (only /dev/stderr)\n"


def test_errors_are_awks_and_status_2(sh: ShellDevice) -> None:
    for program, message in [
        ("{print", "awk: syntax error at source line 1\n"),
        ("BEGIN {print 1/0}", "awk: division by zero\n"),
        ('BEGIN {print 1 > "/sdcard/x"}', NO_FILE),
        ('BEGIN {printf "%s %s", "a"}', "awk: not enough args in printf(%s %s)\n"),
        ('BEGIN {"date" | getline d}', "awk: getline is not supported on this device's awk\n"),
        ("BEGIN {x = 1; x[1] = 2}", "awk: can't use scalar x as array\n"),
    ]:
        r = sh.run(f"awk {quote(program)}")
        assert (r.status, r.error) == (2, message), program
    assert not sh.host("/sdcard/x").exists()
    r = sh.run('awk \'BEGIN { print "to err" > "/dev/stderr"; print log(-1) }\'')
    assert (r.status, r.text, r.error) == (
        0,
        "1\n",
        "to err\nawk: log argument out of domain\n source line number 1\n",
    )
    r = sh.run("awk '{print}' /data/local/tmp/none")
    assert (r.status, r.error) == (2, "awk: can't open file /data/local/tmp/none\n source line number 1\n")
    assert sh.run("awk").status == 2


def test_an_endless_program_is_stopped_with_its_command(sh: ShellDevice) -> None:
    r = sh.run("timeout 0.5 awk 'BEGIN { while (1) x++ }'; echo $?", timeout=20)
    assert r.text == "124\n"
    assert sh.run("echo alive").text == "alive\n"  # the device goes on serving
    r = sh.run("awk 'BEGIN { x = \"ab\"; while (1) x = x x }'", timeout=60)
    assert (r.status, r.error) == (2, "awk: string longer than 16 MiB, stopped\n")


def test_awk_reads_what_the_device_prints(sh: ShellDevice) -> None:
    sh.run("am start -n com.android.settings/.Settings")
    focus = sh.run("dumpsys window | awk '/mCurrentFocus/ {print $3; exit}'").text
    assert focus.startswith("com.android.settings/")
    pids = sh.run("ps -A | awk '$NF == \"com.android.settings\" {print $2}'").text
    assert pids == sh.run("pidof com.android.settings").text


@pytest.fixture(scope="module")
def fuzz_sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("awkfuzz"))
    yield dev
    dev.close()


PIECES = [
    "BEGIN", "END", "{", "}", "(", ")", "[", "]", ";", "\n", "$", "$0", "$1", "NF", "NR", "x", "a[1]",
    "=", "+=", "++", "--", "+", "-", "*", "/", "%", "^", "!", "~", "!~", "/a+/", "==", "<", ">", ",",
    "&&", "||", "?", ":", "in", "print", "printf", "\"%d %s\"", "if", "else", "while", "for", "do",
    "break", "continue", "next", "exit", "delete", "function", "f", "length", "substr", "split",
    "gsub", "sprintf", "1", "0.5", "\"s\"", "getline", ">>", "|",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(program=st.lists(st.sampled_from(PIECES), max_size=16).map(" ".join))
def test_fuzz_programs_end_with_a_status(fuzz_sh: ShellDevice, program: str) -> None:
    r = fuzz_sh.run(f"printf 'a b\\n1 2\\n' | timeout 5 awk {quote(program)}", timeout=30)
    assert r.status in (0, 1, 2, 3, 124) or 0 <= r.status <= 255
    assert "internal error" not in r.error and "Traceback" not in r.error, (program, r.error)


@settings(max_examples=500, deadline=None)
@given(source=st.text(max_size=80))
def test_fuzz_the_parser_raises_only_awk_errors(source: str) -> None:
    try:
        Parser(source).program()
    except AwkError as exc:
        assert str(exc)
