"""toybox-style file and text commands on the device filesystem."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.shellkit import ShellDevice


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path, boot=False)
    yield dev
    dev.close()


def test_mkdir_p_touch_ls_and_ls_a(sh: ShellDevice) -> None:
    assert sh.run("mkdir /sdcard/x/y").status == 1
    sh.run("mkdir -p /sdcard/x/y && touch /sdcard/x/b.txt /sdcard/x/.hidden")
    assert sh.run("ls /sdcard/x").text == "b.txt\ny\n"
    assert sh.run("ls -a /sdcard/x").text == ".\n..\n.hidden\nb.txt\ny\n"
    assert sh.run("ls -1 /sdcard/x/b.txt").text == "/sdcard/x/b.txt\n"


def test_ls_l_shape(sh: ShellDevice) -> None:
    sh.run("printf hello > /sdcard/h.txt")
    line = sh.run("ls -l /sdcard/h.txt").text.strip()
    fields = line.split()
    assert fields[0] == "-rw-r--r--" or fields[0].startswith("-rw")
    assert fields[4] == "5" and fields[-1] == "/sdcard/h.txt"
    assert sh.run("ls -l /sdcard/").text.startswith("total ")  # without the slash: the link


def test_ls_r_lists_subfolders(sh: ShellDevice) -> None:
    sh.run("mkdir -p /data/local/tmp/r/s && touch /data/local/tmp/r/s/f")
    assert sh.run("ls -R /data/local/tmp/r").text == "/data/local/tmp/r:\ns\n\n/data/local/tmp/r/s:\nf\n"


def test_missing_file_errors(sh: ShellDevice) -> None:
    r = sh.run("cat /sdcard/none")
    assert (r.status, r.error) == (1, "cat: /sdcard/none: No such file or directory\n")
    assert sh.run("rm /sdcard/none").status == 1
    assert sh.run("rm -f /sdcard/none").status == 0


def test_rm_needs_r_for_folders_and_rf_removes_trees(sh: ShellDevice) -> None:
    sh.run("mkdir -p /sdcard/t/u && touch /sdcard/t/u/f")
    r = sh.run("rm /sdcard/t")
    assert r.status == 1 and "Is a directory" in r.error
    assert sh.run("rm -rf /sdcard/t").status == 0
    assert not sh.host("/sdcard/t").exists()


def test_cp_mv_and_cp_r(sh: ShellDevice) -> None:
    sh.run("echo data > /sdcard/a; cp /sdcard/a /sdcard/b; mv /sdcard/b /sdcard/Download/")
    assert sh.host("/sdcard/Download/b").read_text() == "data\n"
    sh.run("mkdir -p /sdcard/src/in && echo z > /sdcard/src/in/z; cp -r /sdcard/src /sdcard/dst")
    assert sh.host("/sdcard/dst/in/z").read_text() == "z\n"
    assert sh.run("cp /sdcard/src /sdcard/other").status == 1


def test_find_name_type_maxdepth(sh: ShellDevice) -> None:
    sh.run("mkdir -p /sdcard/f/g && touch /sdcard/f/a.jpg /sdcard/f/g/b.jpg /sdcard/f/c.txt")
    assert sh.run("find /sdcard/f -name '*.jpg'").text == "/sdcard/f/a.jpg\n/sdcard/f/g/b.jpg\n"
    assert sh.run("find /sdcard/f -maxdepth 1 -type f -name '*.jpg'").text == "/sdcard/f/a.jpg\n"
    assert sh.run("find /sdcard/f -type d").text == "/sdcard/f\n/sdcard/f/g\n"


def test_a_file_over_64_mib_is_hashed(sh: ShellDevice) -> None:
    """The hash commands read a file whole and refused one over 64 MiB; a device hashes any."""
    with open(sh.host("/sdcard/big.bin"), "wb") as f:
        f.truncate(100 << 20)  # sparse zeros
    expected = hashlib.sha1()
    for _ in range(100):
        expected.update(bytes(1 << 20))
    r = sh.run("sha1sum /sdcard/big.bin")
    assert (r.status, r.text) == (0, f"{expected.hexdigest()}  /sdcard/big.bin\n")


def test_md5sum_matches_hashlib_and_toybox_form(sh: ShellDevice) -> None:
    sh.run("printf 'abc' > /sdcard/m")
    digest = hashlib.md5(b"abc").hexdigest()
    assert sh.run("md5sum /sdcard/m").text == f"{digest}  /sdcard/m\n"
    assert sh.run("toybox md5sum /sdcard/m").text == f"{digest}  /sdcard/m\n"
    assert sh.run("sha1sum /sdcard/m").text.split()[0] == hashlib.sha1(b"abc").hexdigest()


def test_grep_flags(sh: ShellDevice) -> None:
    sh.run("printf 'Apple\\nbanana\\napple pie\\ncherry\\n' > /sdcard/g")
    assert sh.run("grep apple /sdcard/g").text == "apple pie\n"
    assert sh.run("grep -i apple /sdcard/g").text == "Apple\napple pie\n"
    assert sh.run("grep -c -i apple /sdcard/g").text == "2\n"
    assert sh.run("grep -v a /sdcard/g").text == "Apple\ncherry\n"
    assert sh.run("grep -n cherry /sdcard/g").text == "4:cherry\n"
    assert sh.run("grep -E -o 'an+' /sdcard/g").text == "an\nan\n"
    assert sh.run("grep -q nothing /sdcard/g").status == 1
    assert sh.run("grep -q cherry /sdcard/g").status == 0


def test_head_tail_wc_cut_tr_sed_sort(sh: ShellDevice) -> None:
    sh.run("printf '3 c\\n1 a\\n2 b\\n' > /sdcard/s")
    assert sh.run("head -n 2 /sdcard/s").text == "3 c\n1 a\n"
    assert sh.run("tail -n 1 /sdcard/s").text == "2 b\n"
    assert sh.run("wc -l < /sdcard/s").text == "3\n"
    assert sh.run("sort -n /sdcard/s | cut -d ' ' -f 2").text == "a\nb\nc\n"
    assert sh.run("echo hello | tr a-z A-Z").text == "HELLO\n"
    assert sh.run("echo hello | sed 's/l/L/g'").text == "heLLo\n"
    assert sh.run("sed -n 2p /sdcard/s").text == "1 a\n"


def test_stat_format_and_test_operators(sh: ShellDevice) -> None:
    sh.run("printf 12345 > /sdcard/st")
    assert sh.run("stat -c %s /sdcard/st").text == "5\n"
    assert sh.run("[ -f /sdcard/st ] && [ -d /sdcard ] && [ ! -e /sdcard/no ] && echo ok").text == "ok\n"
    assert sh.run("test 3 -gt 2 -a abc = abc; echo $?").text == "0\n"


def test_ln_s_points_inside_root(sh: ShellDevice) -> None:
    sh.run("echo t > /sdcard/target; ln -s /sdcard/target /data/local/tmp/link")
    assert sh.run("cat /data/local/tmp/link").text == "t\n"
    assert sh.run("ls -l /data/local/tmp/link").text.rstrip().endswith("-> /sdcard/target")
    r = sh.run("ln -s /sdcard/target /data/local/tmp/link")
    assert (r.status, r.err) == (
        1,
        b"ln: cannot create symbolic link from '/sdcard/target' to '/data/local/tmp/link': File exists\n",
    )


def test_shared_storage_takes_no_link(sh: ShellDevice) -> None:
    """/sdcard is MediaProvider's FUSE mount, whose daemon has no symlink operation: ENOSYS."""
    for line, target, link in (
        ("ln -s /data /sdcard/x", "/data", "/sdcard/x"),
        ("cd /sdcard/Download && ln -s a .", "a", "./a"),
    ):
        r = sh.run(line)
        assert r.status == 1
        said = r.err.decode()
        assert (
            said == f"ln: cannot create symbolic link from '{target}' to '{link}': Function not implemented\n"
        )
    assert sh.run("ls /sdcard/x").status == 1
    # nor moved or copied in from /data: a device copies across the mounts, and the copy's link fails
    sh.run("mkdir -p /data/local/tmp/d /data/local/tmp/e")
    sh.run("ln -s /x /data/local/tmp/d/l && ln -s /x /data/local/tmp/l")
    for line in (
        "mv /data/local/tmp/l /sdcard/l",
        "mv /data/local/tmp/d /sdcard/d",
        "cp -r /data/local/tmp/d /sdcard/d",
    ):
        r = sh.run(line)
        assert r.status == 1 and r.error.endswith(": Function not implemented\n"), line
    assert sh.run("ls /sdcard/l /sdcard/d").error.count("No such file or directory") == 2
    assert (
        sh.run("[ -L /data/local/tmp/l ] && [ -L /data/local/tmp/d/l ]").status == 0
    )  # left where they were
    # a folder without links moves in and out as ever
    r = sh.run(
        "touch /data/local/tmp/e/f && mv /data/local/tmp/e /sdcard/e && mv /sdcard/e /data/local/tmp/e2"
    )
    assert r.status == 0 and sh.run("ls /data/local/tmp/e2").text == "f\n"


def test_echo_printf_basename_dirname_date(sh: ShellDevice) -> None:
    assert sh.run("echo -n a; echo -e 'b\\tc'").text == "ab\tc\n"
    # mksh's builtin echo reads escapes by default (scripts rely on `echo 'a\nb'` being two lines)
    assert sh.run("echo 'a\\nb'; echo -E 'a\\nb'").text == "a\nb\na\\nb\n"
    assert sh.run("printf '%05.1f|%-3s|%x\\n' 3.14159 ab 255").text == "003.1|ab |ff\n"
    assert sh.run("basename /a/b/c.txt .txt; dirname /a/b/c.txt").text == "c\n/a/b\n"
    assert sh.run("id -u; whoami").text == "0\nroot\n"


def test_wc_padding_follows_toybox(sh: ShellDevice) -> None:
    sh.run("echo hi > /sdcard/w")
    assert sh.run("echo hi | wc").text == "      1       1       3\n"
    assert sh.run("echo hi | wc -l").text == "1\n"
    assert sh.run("wc /sdcard/w").text == "1 1 3 /sdcard/w\n"
    assert sh.run("wc -l /sdcard/w /sdcard/w").text == "      1 /sdcard/w\n      1 /sdcard/w\n      2 total\n"


def test_grep_r_and_find_actions(sh: ShellDevice) -> None:
    sh.run("mkdir -p /sdcard/r/s; echo needle > /sdcard/r/s/a.txt; echo hay > /sdcard/r/b.txt")
    assert sh.run("grep -r needle /sdcard/r").text == "/sdcard/r/s/a.txt:needle\n"
    assert sh.run("find /sdcard/r -name '*.txt' -exec cat {} \\;").text == "hay\nneedle\n"
    # toybox 0.8.6's -delete is no action: the entry is printed too (this asserted it was not)
    assert sh.run("find /sdcard/r -name b.txt -delete").text == "/sdcard/r/b.txt\n"
    assert not sh.host("/sdcard/r/b.txt").exists()


def test_ls_sort_orders(sh: ShellDevice) -> None:
    import os

    sh.run("mkdir /sdcard/o; printf 12345 > /sdcard/o/big; printf 1 > /sdcard/o/a; printf 12 > /sdcard/o/c")
    for age, name in enumerate(["c", "a", "big"]):  # c newest
        os.utime(sh.host(f"/sdcard/o/{name}"), (1_000_000 - age, 1_000_000 - age))
    assert sh.run("ls -t /sdcard/o").text.split() == ["c", "a", "big"]
    assert sh.run("ls -S /sdcard/o").text.split() == ["big", "c", "a"]
    assert sh.run("ls -r /sdcard/o").text.split() == ["c", "big", "a"]


def test_sed_in_place_and_shebang_scripts(sh: ShellDevice) -> None:
    sh.run("printf 'a=1\\nb=2\\n' > /sdcard/conf; sed -i 's/b=.*/b=3/' /sdcard/conf")
    assert sh.host("/sdcard/conf").read_text() == "a=1\nb=3\n"
    sh.host("/data/local/tmp/s.sh").write_text("#!/system/bin/sh\necho script $1 $#\nexit 5\n")
    assert sh.run("/data/local/tmp/s.sh arg; echo $?").text == "script arg 1\n5\n"
    assert sh.run("cd /data/local/tmp && ./s.sh").status == 5
    sh.host("/data/local/tmp/bin").write_bytes(b"\x7fELF")
    assert sh.run("/data/local/tmp/bin").status == 127
