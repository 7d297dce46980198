"""/proc as tools read it on the emulator: the kernel's formats, the pinned emulator's numbers."""

from __future__ import annotations

import re

from tests.unit.shellkit import ShellDevice


def test_proc_files_read_as_the_kernel_writes_them(sh: ShellDevice) -> None:
    assert sh.run("ls /proc").text.split() == ["cpuinfo", "loadavg", "meminfo", "stat", "uptime", "version"]
    release = sh.run("uname -r").text.strip()
    assert sh.run("cat /proc/version").text.startswith(f"Linux version {release} (")
    assert re.fullmatch(r"MemTotal: +\d+ kB\n", sh.run("grep MemTotal /proc/meminfo").text)
    assert sh.run("grep -c ^processor /proc/cpuinfo").text == sh.run("nproc").text
    up, idle = (float(x) for x in sh.run("cat /proc/uptime").text.split())
    assert 0 <= up < 600 and idle >= 0
    assert re.fullmatch(r"cpu(  \d+)( \d+){9}\n", sh.run("head -1 /proc/stat").text)
    assert re.search(r"^btime \d+$", sh.run("cat /proc/stat").text, re.M)
    assert sh.run("ls -l /proc/meminfo").text.startswith("-r--r--r-- 1 root root 0 ")


def test_proc_is_read_only_and_copies_as_text(sh: ShellDevice) -> None:
    r = sh.run("echo x > /proc/meminfo")
    assert (r.status, r.error) == (1, "/system/bin/sh: can't create /proc/meminfo: Permission denied\n")
    assert sh.run("cp /proc/version /sdcard/v && cat /sdcard/v").text == sh.run("cat /proc/version").text
    sh.device.root_adbd = False  # the shell user reads them too
    assert sh.run("head -c 13 /proc/version").text == "Linux version"


def test_free_reports_what_meminfo_holds_in_bytes_or_units(sh: ShellDevice) -> None:
    kb = {line.split(":")[0]: int(line.split()[1]) for line in sh.run("cat /proc/meminfo").text.splitlines()}
    lines = sh.run("free").text.splitlines()
    assert lines[0] == "\t\ttotal        used        free      shared     buffers"
    total, used, free, shared, buffers = (int(n) for n in lines[1].split()[1:])
    assert (total, free, shared, buffers) == (
        kb["MemTotal"] * 1024,
        kb["MemFree"] * 1024,
        kb["Shmem"] * 1024,
        kb["Buffers"] * 1024,
    )
    assert used == total - free
    assert lines[3].split()[1:] == [str(kb["SwapTotal"] * 1024), "0", str(kb["SwapFree"] * 1024)]
    assert sh.run("free -m").text.splitlines()[1].split()[1] == str(kb["MemTotal"] // 1024)
    assert sh.run("free -h").text.splitlines()[1].split()[1] == "1.9G"
    r = sh.run("free -x")
    assert (r.status, r.error) == (1, "free: Unknown option 'x' (see \"free --help\")\n")
