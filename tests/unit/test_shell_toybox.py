"""`ls` and `find` as Android 13's toybox prints them, for the callers that parse them (issue 15)."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.text import head_of, tail_of
from tests.unit.shellkit import ShellDevice

STAMP = 1_700_000_000  # 2023-11-14 22:13:20 UTC


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path, boot=False)
    yield dev
    dev.close()


def set_times(sh: ShellDevice, path: str, atime: float, mtime: float) -> None:
    ns = (round(atime * 1e9), round(mtime * 1e9))
    os.utime(sh.host(path), ns=ns, follow_symlinks=False)


def parse_full_listing(output: str) -> list[tuple[str, int, datetime.datetime]]:
    """Regular files of `ls DIR -ll -au` read the way AndroidWorld's file_utils reads them: nine
    fields, the size fifth, the time two fields with nanoseconds cut to microseconds."""
    files = []
    for line in output.split("\n"):
        if line.startswith("-"):
            parts = line.split(None, 8)
            assert len(parts) == 9, line
            files.append(
                (parts[8].strip(), int(parts[4]), datetime.datetime.fromisoformat(" ".join(parts[5:7])[:-3]))
            )
    return files


def test_ls_ll_au_after_the_folder_gives_full_access_times(sh: ShellDevice) -> None:
    sh.run("mkdir /sdcard/Download/w && printf hello > '/sdcard/Download/w/my file.txt'")
    sh.run("touch /sdcard/Download/w/.hidden")
    set_times(sh, "/sdcard/Download/w/my file.txt", STAMP + 0.176, STAMP - 3600)
    r = sh.run("ls /sdcard/Download/w -ll -au")
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0].startswith("total ")
    assert lines[1].startswith("d") and lines[1].endswith(" .") and lines[2].endswith(" ..")
    entry = next(line for line in lines if line.endswith("my file.txt"))
    # -u: the access time's seconds; toybox 0.8.6 keeps the mtime's nanoseconds (it copies st_atime
    # over st_mtime, the seconds only), here .000
    assert " 2023-11-14 22:13:20.000000000 +0000 my file.txt" in entry
    files = parse_full_listing(r.text)
    assert ("my file.txt", 5, datetime.datetime(2023, 11, 14, 22, 13, 20)) in files
    assert ".hidden" in [name for name, _, _ in files]  # -a


def test_ls_l_short_time_and_columns(sh: ShellDevice) -> None:
    sh.run("mkdir /sdcard/c && printf 123456789012 > /sdcard/c/big && printf 1 > /sdcard/c/s")
    set_times(sh, "/sdcard/c/big", STAMP, STAMP)
    lines = sh.run("ls -l /sdcard/c").text.splitlines()
    assert lines[1].split()[5:8] == ["2023-11-14", "22:13", "big"]
    size_end = {line.split()[-1]: list(re.finditer(r"\S+", line))[4].end() for line in lines[1:]}
    assert size_end["big"] == size_end["s"]  # sizes right-aligned in one column


def test_ls_t_and_u_sort_by_the_chosen_time(sh: ShellDevice) -> None:
    sh.run("mkdir /sdcard/t && touch /sdcard/t/a /sdcard/t/b /sdcard/t/c")
    set_times(sh, "/sdcard/t/a", STAMP + 30, STAMP + 10)
    set_times(sh, "/sdcard/t/b", STAMP + 10, STAMP + 30)
    set_times(sh, "/sdcard/t/c", STAMP + 20, STAMP + 20)
    assert sh.run("ls -t /sdcard/t").text.split() == ["b", "c", "a"]
    assert sh.run("ls -tu /sdcard/t").text.split() == ["a", "c", "b"]
    assert sh.run("ls -ltr /sdcard/t").text.splitlines()[1].endswith(" a")


def test_ls_recursive_and_links(sh: ShellDevice) -> None:
    r = "/data/local/tmp/r"  # shared storage takes no link
    sh.run(f"mkdir -p {r}/s && touch {r}/s/f && ln -s {r}/s {r}/l")
    # -R does not enter links to folders (toybox needs -L for that)
    assert sh.run(f"ls -R {r}").text == f"{r}:\nl\ns\n\n{r}/s:\nf\n"
    long = sh.run(f"ls -l {r}").text
    assert f"l -> {r}/s" in long and long.splitlines()[1].split()[4] == str(len(f"{r}/s"))
    assert sh.run(f"ls {r}/l").text == "f\n"  # an operand that links to a folder lists it


def test_find_or_and_not(sh: ShellDevice) -> None:
    sh.run("mkdir -p /data/local/tmp/f/g && cd /data/local/tmp/f && touch A.JPG b.txt g/c.jpg")
    sh.run("ln -s /data/local/tmp/f/b.txt /data/local/tmp/f/link")  # not in /sdcard: it takes no link
    # AndroidWorld's file listing: regular files and folders, not links
    assert sh.run("find /data/local/tmp/f -type f -o -type d").text.split() == [
        "/data/local/tmp/f",
        "/data/local/tmp/f/A.JPG",
        "/data/local/tmp/f/b.txt",
        "/data/local/tmp/f/g",
        "/data/local/tmp/f/g/c.jpg",
    ]
    assert sh.run("find /data/local/tmp/f -iname '*.jpg'").text.split() == [
        "/data/local/tmp/f/A.JPG",
        "/data/local/tmp/f/g/c.jpg",
    ]
    assert sh.run("find /data/local/tmp/f -type f ! -name '*.txt'").text.split() == [
        "/data/local/tmp/f/A.JPG",
        "/data/local/tmp/f/g/c.jpg",
    ]
    assert sh.run("find /data/local/tmp/f -type f -a -not -iname '*.jpg'").text.split() == [
        "/data/local/tmp/f/b.txt"
    ]
    assert sh.run("find /data/local/tmp/f \\( -name b.txt -o -name c.jpg \\) -print").text.split() == [
        "/data/local/tmp/f/b.txt",
        "/data/local/tmp/f/g/c.jpg",
    ]
    assert sh.run("find /data/local/tmp/f -type l").text == "/data/local/tmp/f/link\n"


def test_find_mtime_newer_and_exec(sh: ShellDevice) -> None:
    sh.run("mkdir /sdcard/m && touch /sdcard/m/old /sdcard/m/ref /sdcard/m/new")
    now = sh.device.services.clock.now()
    set_times(sh, "/sdcard/m/old", now - 5 * 86400, now - 5 * 86400)
    set_times(sh, "/sdcard/m/ref", now - 2 * 86400, now - 2 * 86400)
    set_times(sh, "/sdcard/m/new", now - 60, now - 60)
    assert sh.run("find /sdcard/m -type f -mtime +3").text == "/sdcard/m/old\n"
    assert sh.run("find /sdcard/m -type f -mtime -1").text == "/sdcard/m/new\n"
    assert sh.run("find /sdcard/m -newer /sdcard/m/ref -type f").text == "/sdcard/m/new\n"
    assert sh.run("find /sdcard/m -type f -exec echo f {} \\;").text.split("\n")[:3] == [
        "f /sdcard/m/new",
        "f /sdcard/m/old",
        "f /sdcard/m/ref",
    ]
    assert sh.run("find /sdcard/m -type f -exec echo all {} +").text == (
        "all /sdcard/m/new /sdcard/m/old /sdcard/m/ref\n"
    )
    r = sh.run("find /sdcard/m -bogus")
    assert r.status == 1 and "bad arg '-bogus'" in r.error


def test_find_delete_removes_children_before_folders(sh: ShellDevice) -> None:
    sh.run("mkdir -p /sdcard/del/a/b && touch /sdcard/del/a/b/f /sdcard/del/keep.txt")
    r = sh.run("find /sdcard/del/a -delete")
    assert (r.status, r.error) == (0, "")
    assert sh.run("ls /sdcard/del").text == "keep.txt\n"


def test_sqlite3_flags(sh: ShellDevice) -> None:
    db = "/data/local/tmp/f.db"
    sh.run(f"sqlite3 {db} 'CREATE TABLE t(a, b); INSERT INTO t VALUES (1, NULL), (2, 3)'")
    assert sh.run(f"sqlite3 -header -separator , {db} 'SELECT * FROM t'").text == "a,b\n1,\n2,3\n"
    assert sh.run(f"sqlite3 {db} -cmd '.headers on' 'SELECT a FROM t WHERE a = 2'").text == "a\n2\n"
    ro = sh.run(f"sqlite3 -readonly {db} 'INSERT INTO t VALUES (9, 9)'")
    assert ro.status == 1 and "readonly" in ro.error
    assert sh.run("sqlite3 -help").error.startswith("Usage: sqlite3 [OPTIONS] FILENAME [SQL]")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(["-o", "-a", "!", "(", ")", "-name", "x*", "-type", "f", "-exec", ";", "-print"]),
        max_size=8,
    )
)
def test_find_expressions_never_crash(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    sh = ShellDevice(tmp_path_factory.mktemp("find"), boot=False)
    try:
        r = sh.run("find /sdcard " + " ".join(f"'{w}'" for w in words))
        assert r.status in (0, 1)
        assert "internal error" not in r.error
    finally:
        sh.close()


def test_head_and_tail_copy_lines_as_they_are(sh: ShellDevice) -> None:
    # toybox copies bytes: a last line without a newline gets none, and nothing in prints nothing
    assert (
        sh.run("printf '' | head -n 2; printf 'a' | head -n 2; printf 'a\\nb\\nc' | head -n 2").out
        == b"aa\nb\n"
    )
    assert sh.run("printf 'a\\nb\\nc' | tail -n 2; printf '' | tail -n 1").out == b"b\nc"
    assert sh.run("printf 'a\\nb\\nc' | tail -n +2; printf 'x\\n' | tail -n +5").out == b"b\nc"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "bc"]), max_size=40), st.booleans(), st.integers(0, 45))
def test_head_and_tail_pick_the_lines_a_list_of_lines_would(
    lines: list[str], ended: bool, count: int
) -> None:
    data = "\n".join(lines).encode() + (b"\n" if ended and lines else b"")
    whole = data.split(b"\n")
    if data.endswith(b"\n"):
        whole.pop()  # the empty piece after the last newline is no line
    kept = [line + b"\n" for line in whole]
    if kept and not data.endswith(b"\n"):
        kept[-1] = kept[-1][:-1]
    assert head_of(data, count) == b"".join(kept[:count])
    assert tail_of(data, count) == (b"".join(kept[-count:]) if count else b"")


def test_seq_and_yes(sh: ShellDevice) -> None:
    assert sh.run("seq 3; seq 2 4; seq -s , 1 2 9; seq -w 8 10; seq 5 -2 1").text.split() == (
        ["1", "2", "3", "2", "3", "4", "1,3,5,7,9", "08", "09", "10", "5", "3", "1"]
    )
    assert sh.run("seq 1.5 0.5 2.5").text == "1.5\n2.0\n2.5\n"  # toybox: the operands' decimals
    assert sh.run("seq 1 0 3").text == ""  # toybox prints nothing for a zero step
    # An endless writer into a pipe is ended by the pipe cap (as SIGPIPE would), not by memory.
    assert sh.run("yes | head -n 2; yes no | head -n 1").text == "y\ny\nno\n"
    assert sh.run("seq 100000000000 | tail -n 1 >/dev/null; echo $?", timeout=120).text == "0\n"


def test_chmod_octal_symbolic_and_recursive(sh: ShellDevice) -> None:
    sh.run("mkdir -p /sdcard/p/q && touch /sdcard/p/f /sdcard/p/q/g")
    assert sh.run("chmod 640 /sdcard/p/f && ls -l /sdcard/p/f").text.startswith("-rw-r----- ")
    assert sh.run("chmod u+x,o+r /sdcard/p/f && ls -l /sdcard/p/f").text.startswith("-rwxr--r-- ")
    assert sh.run("chmod -R go-rwx /sdcard/p && ls -l /sdcard/p/q/g").text.startswith("-rw------- ")
    assert sh.run("chmod 000 /sdcard/p/q && rm -r /sdcard/p && echo gone").text == "gone\n"
    bad = sh.run("chmod 9z /sdcard; chmod 755 /sdcard/none")
    assert bad.status == 1 and "bad mode '9z'" in bad.error and "/sdcard/none: No such file" in bad.error


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_word_count_matches_split(data: bytes) -> None:
    from mgfarm.sim.shell.text import count_words

    assert count_words(data) == len(data.split())


def test_sort_and_uniq_run_off_the_event_loop_with_the_same_output(sh: ShellDevice) -> None:
    data = b"b\na\nb\nb\n10\n9\nA\n"
    assert sh.run("sort", stdin=data).out == b"10\n9\nA\na\nb\nb\nb\n"
    assert sh.run("sort -n -r", stdin=b"2\n10\n1\n").out == b"10\n2\n1\n"
    assert sh.run("uniq -c", stdin=b"x\nx\ny\nx\n").out == b"      2 x\n      1 y\n      1 x\n"
    assert sh.run("sort | uniq -d", stdin=data).out == b"b\n"


def test_base64_encodes_and_decodes_as_toybox(sh: ShellDevice) -> None:
    assert sh.run("echo hi | base64; printf '' | base64; echo hi | base64 -w 0").out == b"aGkK\naGkK"
    assert sh.run("printf %0100d 0 | base64 -w 20 | wc -l").text == "7\n"
    assert sh.run("printf %060d 0 | base64").text.count("\n") == 2  # 80 characters: 76, then 4
    assert sh.run("echo aGkK | base64 -d; printf aGk | base64 -d").out == b"hi\nhi"
    # decoding stops at `=` or at a character outside the alphabet, unless -i skips those
    assert (
        sh.run("echo 'aG*kK' | base64 -d; echo 'aG*kK' | base64 -di; echo aGk=aGk | base64 -d").out
        == b"hhi\nhi"
    )
    assert sh.run("base64 -w x").error == "base64: -w needs a number of 0 or more, not 'x'\n"


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["", "-w 0", "-w 7"]))
def test_base64_decodes_what_it_encodes(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, wrap: str
) -> None:
    sh = ShellDevice(tmp_path_factory.mktemp("b64"), boot=False)
    try:
        sh.host("/sdcard/in").write_bytes(data)
        assert sh.run(f"base64 {wrap} /sdcard/in | base64 -d").out == data
    finally:
        sh.close()


def test_timeout_ends_a_command_with_toybox_statuses(sh: ShellDevice) -> None:
    assert sh.run("timeout 0.1 sleep 5; echo $?").text == "124\n"
    assert (
        sh.run("timeout -s KILL 0.1 sleep 5; echo $?; timeout -s 9 .1 sleep 5; echo $?").text == "137\n137\n"
    )
    assert sh.run("timeout --preserve-status 0.1 sleep 5; echo $?").text == "143\n"
    assert (
        sh.run("timeout 5 echo done; timeout 1m sh -c 'exit 3'; echo $?; timeout 0 true").text == "done\n3\n"
    )
    r = sh.run("timeout -v 0.1 sleep 3")
    assert (r.status, r.error) == (124, "timeout pid 4244 signal 15\n")
    for line, message in [
        ("timeout 1x sleep 1", "timeout: Unknown suffix 'x'\n"),
        ("timeout x sleep 1", "timeout: Not a number 'x'\n"),
        ("timeout 1", "timeout: Need 2 arguments\n"),
        ("timeout -s NOPE 1 true", "timeout: bad -s: 'NOPE'\n"),
    ]:
        r = sh.run(line)
        assert (r.status, r.error) == (125, message), line


def test_mktemp_makes_new_names_where_toybox_puts_them(sh: ShellDevice) -> None:
    first, second = sh.run("mktemp; mktemp").text.split()
    assert first != second and re.fullmatch(r"/data/local/tmp/tmp\.[A-Za-z0-9]{10}", first)
    assert sh.run(f"ls -l {first}").text.startswith("-rw------- ")
    folder = sh.run("mktemp -d").text.strip()
    assert sh.run(f"ls -ld {folder}").text.startswith("drwx------ ")
    assert re.fullmatch(r"/sdcard/foo[A-Za-z0-9]{4}\n", sh.run("mktemp /sdcard/fooXXXX").text)
    assert re.fullmatch(r"/sdcard/abc[A-Za-z0-9]{3}\n", sh.run("mktemp -p /sdcard abcXXX").text)
    name = sh.run("mktemp -u").text.strip()
    assert name.startswith("/data/local/tmp/tmp.") and not sh.host(name).exists()
    assert sh.run("mktemp /sdcard/xx").error == "mktemp: need XXX\n"
    r = sh.run("mktemp /system/aXXX")
    assert r.status == 1 and re.fullmatch(
        r"mktemp: Failed to create file /system/a\w{3}: Read-only file system\n", r.error
    )
    assert sh.run("mktemp -q /system/aXXX; echo $?").out == b"1\n"


def test_small_system_queries(sh: ShellDevice) -> None:
    assert sh.run("getenforce; nproc; hostname").text == "Enforcing\n2\nlocalhost\n"


def test_printf_and_echo_escapes_write_the_bytes_they_name(sh: ShellDevice) -> None:
    # a JPEG's first bytes, as scripts write magic numbers: one byte each, not UTF-8's two
    sh.run(r"printf '\377\330\377' > /data/local/tmp/m; echo -ne '\xff\x80' >> /data/local/tmp/m")
    assert sh.host("/data/local/tmp/m").read_bytes() == b"\xff\xd8\xff\xff\x80"
    assert sh.run(r"printf '%b' '\0303\0251'").out == "é".encode()


def test_cmp_reports_the_first_difference_as_toybox(sh: ShellDevice) -> None:
    sh.run("printf 'abc\\ndef\\n' > /data/local/tmp/a; printf 'abc\\ndXf\\n' > /data/local/tmp/b")
    sh.run("printf 'abc\\n' > /data/local/tmp/c")
    a, b, c = "/data/local/tmp/a", "/data/local/tmp/b", "/data/local/tmp/c"
    r = sh.run(f"cmp {a} {b}")
    assert (r.status, r.text) == (1, f"{a} {b} differ: char 6, line 2\n")
    assert sh.run(f"cmp -l {a} {b}").text == "6 145 130\n"
    r = sh.run(f"cmp {a} {c}")
    assert (r.status, r.text, r.error) == (1, "", f"cmp: EOF on {c}\n")
    assert sh.run(f"cmp -s {a} {a}").status == 0
    assert sh.run(f"cat {a} | cmp {a}").status == 0  # stdin for the second
    r = sh.run(f"cmp {a} /data/local/tmp/none")
    assert (r.status, r.error) == (2, "cmp: /data/local/tmp/none: No such file or directory\n")
    # -l prints each byte as toybox's signed char does in octal
    assert sh.run(rf"printf '\377' | cmp -l {c} -").text == "1 141 37777777777\n"
    big = "/data/local/tmp/big"
    sh.run(f"dd if=/dev/zero of={big} bs=1M count=3 2>/dev/null; cp {big} {big}2")
    sh.run(f"printf x | dd of={big}2 bs=1 seek=3000000 conv=notrunc 2>/dev/null")
    assert sh.run(f"cmp {big} {big}2").text == f"{big} {big}2 differ: char 3000001, line 1\n"


def test_rev_reverses_each_line(sh: ShellDevice) -> None:
    assert sh.run("printf 'abc\\n\\nxy' | rev").text == "cba\n\nyx\n"
