"""The shell interpreter: lists, pipes, quoting, variables, redirections, exit codes, bad syntax."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.parser import Script, ShellSyntaxError, parse
from tests.unit.shellkit import ShellDevice


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path, boot=False)
    yield dev
    dev.close()


def test_status_of_previous_command_is_in_dollar_question(sh: ShellDevice) -> None:
    r = sh.run("false; echo $?; true; echo $?")
    assert (r.status, r.text) == (0, "1\n0\n")


def test_adbutils_shell2_suffix_reports_exit_code(sh: ShellDevice) -> None:
    # adbutils.shell2 appends exactly this to read the status of a command.
    r = sh.run("ls /nope; echo X4EXIT:$?")
    assert r.text == "X4EXIT:1\n"
    assert "No such file or directory" in r.error


def test_and_or_short_circuit(sh: ShellDevice) -> None:
    assert sh.run("true && echo a || echo b").text == "a\n"
    assert sh.run("false && echo a || echo b").text == "b\n"
    assert sh.run("false || false && echo c").text == ""


def test_quotes_and_escapes(sh: ShellDevice) -> None:
    r = sh.run("""echo 'single $HOME' "double $HOME" a\\ b "q\\"q" 'it'"'"'s'""")
    assert r.text == "single $HOME double / a b q\"q it's\n"


def test_unquoted_variable_is_split_quoted_is_not(sh: ShellDevice) -> None:
    r = sh.run('X="a   b"; printf "[%s]" $X; printf "[%s]" "$X"')
    assert r.text == "[a][b][a   b]"


def test_prefix_assignment_is_visible_to_the_command_only(sh: ShellDevice) -> None:
    r = sh.run("FOO=1 sh -c 'echo in:$FOO'; echo out:$FOO")
    assert r.text == "in:1\nout:\n"


def test_pipeline_status_is_the_last_command(sh: ShellDevice) -> None:
    r = sh.run("printf 'b\\na\\nb\\n' | sort | uniq | wc -l; false | true; echo $?")
    assert r.text == "2\n0\n"


def test_redirections(sh: ShellDevice) -> None:
    sh.run("echo one > /sdcard/f.txt; echo two >> /sdcard/f.txt")
    assert sh.host("/sdcard/f.txt").read_text() == "one\ntwo\n"
    r = sh.run("cat < /sdcard/f.txt | head -n 1")
    assert r.text == "one\n"
    r = sh.run("ls /nope 2>&1")
    assert r.err == b"" and "No such file" in r.text
    r = sh.run("ls /nope 2>/dev/null; echo $?")
    assert (r.text, r.err) == ("1\n", b"")


def test_redirect_into_missing_folder_fails_cleanly(sh: ShellDevice) -> None:
    r = sh.run("echo x > /sdcard/missing/dir/f; echo $?")
    assert r.text == "1\n"
    assert "can't create /sdcard/missing/dir/f" in r.error


def test_quoted_at_keeps_arguments_apart(sh: ShellDevice) -> None:
    r = sh.run("""sh -c 'for a in "$@"; do echo "[$a]"; done; echo $#' zero 'a b' c""")
    assert r.text == "[a b]\n[c]\n2\n"
    assert sh.run("""sh -c 'printf "<%s>" "$@"; echo' zero""").text == "<>\n"


def test_sh_c_and_exit(sh: ShellDevice) -> None:
    r = sh.run("sh -c 'echo $0 $1; exit 7' zero one; echo $?")
    assert r.text == "zero one\n7\n"
    assert sh.run("exit 3; echo never").status == 3


def test_subshell_keeps_cwd_and_vars_local(sh: ShellDevice) -> None:
    r = sh.run("X=1; (cd /sdcard; X=2; pwd); pwd; echo $X")
    assert r.text == "/sdcard\n/\n1\n"


def test_command_substitution(sh: ShellDevice) -> None:
    assert sh.run('echo "n=$(echo 5)" `echo six`').text == "n=5 six\n"


def test_glob_expands_inside_the_device_root(sh: ShellDevice) -> None:
    sh.run("touch /sdcard/a.png /sdcard/b.png /sdcard/c.txt")
    assert sh.run("ls /sdcard/*.png").text == "/sdcard/a.png\n/sdcard/b.png\n"
    assert sh.run("echo '/sdcard/*.png'").text == "/sdcard/*.png\n"


def test_if_for_while_and_loop_control(sh: ShellDevice) -> None:
    assert sh.run("if false; then echo a; elif [ 1 = 1 ]; then echo b; else echo c; fi").text == "b\n"
    assert sh.run('for f in a "b c"; do echo "[$f]"; done').text == "[a]\n[b c]\n"
    r = sh.run(
        "i=0; while [ $i -lt 5 ]; do i=$((i+1)); [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done"
    )
    assert r.text == "1\n3\n"
    assert sh.run("until true; do echo never; done; { echo g; } | wc -l").text == "1\n"
    sh.run("touch /sdcard/1.png /sdcard/2.png; for f in /sdcard/*.png; do rm $f; done")
    assert sh.run("ls /sdcard/*.png; echo $?").text == "1\n"


def test_arithmetic_expansion(sh: ShellDevice) -> None:
    r = sh.run("x=7; echo $((x * 2 + 1)) $(( (1 + 2) * 3 )) $((-7 / 2)) $((x % 3)) $((x > 5 && x < 9))")
    assert r.text == "15 9 -3 1 1\n"
    r = sh.run("echo $((1 / 0)); echo next")  # an expansion error ends the line, as in mksh
    assert (r.status, r.text, r.error) == (1, "", "/system/bin/sh: 1 / 0: zero divisor\n")  # mksh's words


def test_busy_loop_yields_to_other_devices(sh: ShellDevice) -> None:
    # A runaway loop must not freeze the event loop that serves every device of the process:
    # wait_for can only cancel it if the loop yields.
    with pytest.raises(asyncio.TimeoutError):
        sh.run("while true; do :; done", timeout=0.3)
    assert sh.run("echo still alive").text == "still alive\n"


def test_read_source_exec_and_command_builtins(sh: ShellDevice) -> None:
    sh.run("printf 'a b c\\nd e\\n' > /sdcard/in")
    r = sh.run('while read x rest; do echo "[$x][$rest]"; done < /sdcard/in')
    assert r.text == "[a][b c]\n[d][e]\n"
    sh.run("echo 'X=5; cd /sdcard' > /sdcard/s.sh")
    assert sh.run(". /sdcard/s.sh; echo $X; pwd").text == "5\n/sdcard\n"
    assert sh.run("exec echo hi; echo never").text == "hi\n"
    r = sh.run("command -v ls cd nope; echo $?")
    assert r.text == "/system/bin/ls\ncd\n1\n"


def test_unknown_command_is_127_with_mksh_message(sh: ShellDevice) -> None:
    r = sh.run("frobnicate --now")
    assert r.status == 127
    assert r.error == "/system/bin/sh: frobnicate: inaccessible or not found\n"


def test_absolute_bin_paths_run_the_command(sh: ShellDevice) -> None:
    assert sh.run("/system/bin/echo hi").text == "hi\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("echo 'open", "no closing quote"),
        ("echo )", "syntax error: unexpected ')'"),
        ("| cat", "syntax error: unexpected '|'"),
        ("echo a &&", "syntax error: unexpected EOF"),
        ("( echo", "syntax error: unmatched '('"),
        ("echo ${", "no closing quote"),
        ("if true; then echo", "syntax error: unmatched 'if'"),
        ("fi", "syntax error: unexpected 'fi'"),
        ("for 1 in a; do :; done", "for: bad identifier"),
    ],
)
def test_syntax_errors_exit_1(sh: ShellDevice, line: str, message: str) -> None:
    # mksh R59c's messages, and its status for `sh -c` with a syntax error: 1 (not 2)
    r = sh.run(line)
    assert (r.status, r.error) == (1, f"/system/bin/sh: {message}\n")


def test_paths_cannot_leave_the_root(sh: ShellDevice, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    r = sh.run(f"cat ../../../../{outside}; cat /../..{outside}")
    assert "secret" not in r.text
    r = sh.run("ln -s / /data/local/tmp/up; cat /data/local/tmp/up/../../../etc/hostname")
    assert "secret" not in r.text


FUZZ_WORDS = [
    "echo",
    "true",
    "false",
    "cat",
    "sh",
    "-c",
    "$?",
    "&&",
    "||",
    "|",
    ";",
    ">",
    "x",
    "$((",
    "))",
    "if",
    "then",
    "else",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "{",
    "}",
    "break",
    "2>&1",
    "[",
    "case",
    "esac",
    ";;",
    "f()",
    "function",
    "return",
    "local",
    "shift",
    "set --",
    "${a%%*}",
    "${a#?}",
    "${a/b/c}",
    "${a:1:2}",
]
SHELLISH = st.text(alphabet="ab$?;&|()<>'\"\\ `{}=*-\n12#!.~/%:[]", max_size=40)
WORDS = st.lists(
    st.one_of(
        st.sampled_from(FUZZ_WORDS),
        SHELLISH,
    ),
    max_size=8,
).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.one_of(SHELLISH, WORDS))
def test_fuzz_any_line_returns_a_status(sh: ShellDevice, line: str) -> None:
    r = sh.run(line)
    assert 0 <= r.status <= 255
    nested = "`" in line or "$(" in line or "sh" in line  # inner scripts parse on their own
    if r.status == 1 and r.error.startswith("/system/bin/sh: syntax error") and not nested:
        with pytest.raises(ShellSyntaxError):
            parse(line)


@settings(max_examples=500, deadline=None)
@given(line=st.text(max_size=60))
@example(line="¹>x")  # str.isdigit() is true for '¹', int() is not: found by this fuzzer
def test_fuzz_parser_raises_only_syntax_errors(line: str) -> None:
    try:
        script = parse(line)
    except ShellSyntaxError as exc:
        assert str(exc)  # the message mksh-style errors are built from
    else:
        assert isinstance(script, Script)


def test_non_ascii_digits_are_plain_word_characters(sh: ShellDevice) -> None:
    r = sh.run("echo ¹>/data/local/tmp/f; cat /data/local/tmp/f; echo $¹")
    assert (r.status, r.text) == (0, "¹\n$¹\n")


def test_session_keeps_cwd_variables_and_status_between_lines(sh: ShellDevice) -> None:
    from mgfarm.sim.io import ShellIO
    from mgfarm.sim.shell import ShellSession

    session = ShellSession(sh.device)

    def line(text: str) -> str:
        io = ShellIO.buffered()
        sh.loop.run_until_complete(session.run(text, io))
        return bytes(io.stdout.collected).decode()

    line("cd /sdcard; X=7; false")
    assert line("echo $?; pwd; echo $X") == "1\n/sdcard\n7\n"
    assert not session.exited
    line("exit 3")
    assert session.exited and session.status == 3


def test_endless_writer_into_a_pipe_is_ended_like_sigpipe(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stages run in turn, so a pipe has a cap instead of a reader that closes: memory stays bounded.
    import mgfarm.sim.shell.interp as interp

    monkeypatch.setattr(interp, "PIPE_LIMIT", 4096)
    r = sh.run("while true; do echo line; done | head -n 2; echo $?")
    assert r.text == "line\nline\n0\n"
    r = sh.run("x=$(while true; do echo y; done); echo $?")
    assert r.text == "141\n"


def test_assignment_status_is_the_substitutions(sh: ShellDevice) -> None:
    assert sh.run("x=$(false); echo $?; x=1; echo $?").text == "1\n0\n"
    assert sh.run('false; echo "$(echo $?)"').text == "1\n"


def test_parameter_expansion_forms(sh: ShellDevice) -> None:
    r = sh.run('echo ${A:-def} ${A-x}; A=; echo "[${A:-empty}]" "[${A-unset}]"')
    assert r.text == "def x\n[empty] []\n"
    r = sh.run('B=hello; echo ${#B} ${B:+alt} "${C:+alt}" ${D:=set} $D ${E:-"a b"} ${F:-$B/x} ${G:-${B}!}')
    assert r.text == "5 alt  set set a b hello/x hello!\n"
    r = sh.run("echo ${H:?is required}; echo never")
    assert (r.status, r.text, r.error) == (1, "", "/system/bin/sh: H: is required\n")


@pytest.mark.parametrize(
    "line",
    [
        "(" * 3000 + "echo hi" + ")" * 3000,
        "if true; then " * 150 + "echo hi" + "; fi" * 150,
        'X=\'eval "$X"\'; eval "$X"',
        'X=\'sh -c "$X"\'; export X; sh -c "$X"',
        "echo '. /sdcard/r.sh' > /sdcard/r.sh; . /sdcard/r.sh",
        "echo $((" + "(" * 400 + "1" + ")" * 400 + "))",
    ],
)
def test_runaway_nesting_is_refused_not_crashing(sh: ShellDevice, line: str) -> None:
    r = sh.run(line + "; echo survived")
    assert "nested" in r.error or "syntax error" in r.error or "expression too long" in r.error
    assert r.status in (1, 2) or r.text.endswith("survived\n")  # refused, or the line carried on


def test_a_program_given_an_argument_exec_refuses_does_not_run(sh: ShellDevice) -> None:
    """Linux's exec refuses one argument longer than 128 KiB with its terminator, or 2 MiB of them
    (E2BIG): a device's sqlite3 or cat never runs with them, mksh's builtins (echo, printf) do."""
    big = "x=$(printf %0131072d 0)"  # 131,072 characters: with its terminator, one byte too many
    refused = sh.run(f'{big}; cat "$x"')
    assert (refused.status, refused.error) == (126, "/system/bin/sh: cat: Argument list too long\n")
    assert "Argument list too long" not in sh.run(f'{big}; cat "${{x%0}}"').error  # one less: cat runs
    assert sh.run(f'{big}; echo "$x" | wc -c').text == "131073\n"
    many = "a=$(printf %0100000d 0); cat " + " ".join(["$a"] * 21)  # 21 x 100,001 bytes: over 2 MiB
    assert sh.run(many).status == 126


def test_case_matches_patterns_and_quoted_parts_literally(sh: ShellDevice) -> None:
    script = """
    for f in a.txt b.PNG c weird; do
      case $f in
        *.txt) echo "$f: text" ;;
        *.[Pp][Nn][Gg] | *.jpg) echo "$f: image" ;;
        ?) echo "$f: one letter" ;;
        (*) echo "$f: other"
      esac
    done
    """
    assert sh.run(script).text == "a.txt: text\nb.PNG: image\nc: one letter\nweird: other\n"
    # a pattern from a variable is a pattern unquoted, itself quoted; no match leaves status 0
    line = "p='*.txt'; case a.txt in $p) echo u;; esac; case a.txt in \"$p\") echo q;; esac"
    assert sh.run(line).text == "u\n"
    assert sh.run("false; case x in y) echo no;; esac; echo $?").text == "0\n"
    assert sh.run("case 'x y' in x\\ y) echo escaped;; esac").text == "escaped\n"
    assert sh.run("case a in a) ;; esac; echo empty").text == "empty\n"
    assert sh.run("case a in a) echo x").error == "/system/bin/sh: syntax error: unmatched 'case'\n"


def test_functions_take_arguments_locals_and_return(sh: ShellDevice) -> None:
    script = """
    greet() { echo "hi $1 ($#)"; }
    function twice { "$@"; "$@"; }
    scope() { local v=inner; echo "$v"; return 3; }
    v=outer
    greet you me; twice echo x; scope; echo "$? $v $1"
    fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }
    fact 6
    """
    assert sh.run(script).text == "hi you (2)\nx\nx\ninner\n3 outer \n720\n"
    # functions are the shell's: a subshell has them, `sh -c` (another process) does not
    r = sh.run("f() { echo in-f; }; (f); sh -c f")
    assert r.text == "in-f\n" and "f: inaccessible or not found" in r.error
    assert sh.run("f() { echo 1; }; unset -f f; f").status == 127
    assert sh.run("loop() { loop; }; loop").error == "/system/bin/sh: loop: too deeply nested\n"
    assert sh.run("return 4; echo never").status == 4  # outside a function: ends the shell


def test_positional_parameters_set_and_shift(sh: ShellDevice) -> None:
    assert sh.run("set -- a 'b c' d; echo $# \"$2\"; shift 2; echo $1 $#").text == "3 b c\nd 1\n"
    assert sh.run("set -- 4 5; echo $(( $1 * $2 + ${2} ))").text == "25\n"
    assert sh.run("shift 3").error == "/system/bin/sh: shift: nothing to shift\n"  # mksh's words


def test_parameter_trims_replacements_and_slices(sh: ShellDevice) -> None:
    line = "f=/sdcard/a/b.tar.gz; echo ${f##*/} ${f#*/} ${f%.*} ${f%%.*} ${f/a/X} ${f//a/X}"
    assert sh.run(line).text.split() == [
        "b.tar.gz",
        "sdcard/a/b.tar.gz",
        "/sdcard/a/b.tar",
        "/sdcard/a/b",
        "/sdcXrd/a/b.tar.gz",
        "/sdcXrd/X/b.tXr.gz",
    ]
    assert sh.run("x=abcdef; echo ${x:1:3} ${x:4} ${x: -2} ${x:1:-1}").text == "bcd ef ef bcde\n"
    assert sh.run("x='a*b'; s='*'; echo ${x%\\*b} ${x%\"$s\"b} ${x%$s}").text == "a a a*b\n"
    assert sh.run('x=path/to; echo "${x%/*}" ${x/\\//:}').text == "path path:to\n"
