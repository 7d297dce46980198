"""The device's tree has the links and files of the pinned Android 13 emulator's: /sdcard is a link
to shared storage (through /storage/self/primary), /data/user/0 is /data/data, /etc is /system/etc,
and commands treat a link operand as toybox does (`find /sdcard` stays on the link, `/sdcard/` is the
folder)."""

from __future__ import annotations

from tests.unit.shellkit import ShellDevice


def test_sdcard_is_a_link_to_shared_storage(sh: ShellDevice) -> None:
    assert sh.run("readlink /sdcard").text == "/storage/self/primary\n"
    assert sh.run("readlink /storage/self/primary").text == "/mnt/user/0/primary\n"
    assert sh.run("readlink -f /sdcard").text == "/storage/emulated/0\n"
    assert sh.run("ls -ld /sdcard").text.startswith("lrwxrwxrwx 1 root root 21 ")
    assert sh.run("ls -ld /sdcard").text.endswith(" /sdcard -> /storage/self/primary\n")
    assert sh.run("stat -c '%F %s' /sdcard").text == "symbolic link 21\n"
    assert "sdcard -> /storage/self/primary" in sh.run("ls -l /").text
    # through the link, or with a trailing slash, it is the folder
    assert "Download\n" in sh.run("ls /sdcard").text
    assert "Download" in sh.run("ls -l /sdcard/").text
    assert sh.run("stat -c %F /sdcard/").text == "directory\n"
    # toybox's find does not follow a link it is given (the device's known `/sdcard/` habit)
    assert sh.run("find /sdcard -name Download").text == ""
    assert sh.run("find /sdcard/ -name Download").text == "/sdcard/Download\n"
    assert sh.run("find -L /sdcard -maxdepth 1 -name Download").text == "/sdcard/Download\n"
    # one file under every name
    assert sh.run("echo x > /sdcard/Download/a; cat /storage/self/primary/Download/a").text == "x\n"
    assert sh.run("cat /mnt/user/0/primary/Download/a /storage/emulated/0/Download/a").text == "x\nx\n"
    # the link is on the read-only root: neither root nor the shell removes it
    assert sh.run("rm /sdcard").error == "rm: /sdcard: Read-only file system\n"
    assert sh.run("readlink /sdcard").status == 0


def test_cd_keeps_the_path_as_typed(sh: ShellDevice) -> None:
    assert sh.run("cd /sdcard && pwd && ls -d Download && cd .. && pwd").text == "/sdcard\nDownload\n/\n"


def test_data_user_0_etc_and_hosts(sh: ShellDevice) -> None:
    assert sh.run("readlink /data/user/0").text == "/data/data\n"
    settings = "com.android.providers.settings/databases/settings.db"
    assert sh.run(f"ls /data/user/0/{settings}").text == f"/data/user/0/{settings}\n"
    assert sh.run("readlink /etc; cat /etc/hosts").text == (
        "/system/etc\n127.0.0.1       localhost\n::1             ip6-localhost\n"
    )
    names = sh.run("ls /").text.split()
    for name in ("acct", "apex", "bin", "cache", "config", "d", "data", "dev", "etc", "mnt", "proc"):
        assert name in names
    for name in ("product", "sdcard", "storage", "sys", "system", "system_ext", "vendor"):
        assert name in names
    # the shell user reaches its own data through the link too, and no app's
    sh.device.root_adbd = False
    for folder in ("/data/user/0", "/data/data"):
        assert sh.run(f"ls {folder}/{settings}").error == f"ls: {folder}/{settings}: Permission denied\n"


def test_system_bin_lists_the_commands_the_shell_runs(sh: ShellDevice) -> None:
    names = sh.run("ls /system/bin").text.split()
    for name in ("sh", "ls", "awk", "am", "pm", "input", "screencap", "sqlite3", "toybox"):
        assert name in names
    assert "cd" not in names  # a shell builtin, not a program
    for name in names:  # each one runs by its path too, as `which` names it
        assert sh.run(f"which {name}").text == f"/system/bin/{name}\n", name
    listed = "-rwxr-xr-x 1 root shell 0 2009-01-01 00:00 /system/bin/ls\n"
    assert sh.run("ls -l /system/bin/ls").text == listed
    assert sh.run("[ -x /system/bin/awk ] && [ ! -e /system/bin/nope ] && echo ok").text == "ok\n"
    assert sh.run("find /system/bin -name 'awk*'").text == "/system/bin/awk\n"
    assert sh.run("touch /system/bin/ls").error == "touch: /system/bin/ls: Read-only file system\n"
    assert sh.run("du -s /system/bin /proc").status == 0
