"""Who a shell runs as decides what it may touch, as on an Android 13 emulator: the system image is
read-only for everyone; after `adb unroot` the shell user (uid 2000) cannot read or change apps' data,
and `su` (the image's, which lets the shell user in) runs as whoever it names."""

from __future__ import annotations

import pytest

from tests.unit.shellkit import ShellDevice

SETTINGS_DB = "/data/data/com.android.providers.settings/databases/settings.db"
CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"


def unrooted(sh: ShellDevice) -> ShellDevice:
    sh.device.root_adbd = False  # what `adb unroot` leaves (adbd restarted as shell)
    return sh


@pytest.mark.parametrize("root", [True, False])
def test_the_system_image_is_read_only_for_everyone(sh: ShellDevice, root: bool) -> None:
    sh.device.root_adbd = root
    for line, message in [
        ("touch /system/x", "touch: /system/x: Read-only file system\n"),
        ("mkdir /x", "mkdir: /x: Read-only file system\n"),
        ("echo hi > /system/bin/x", "/system/bin/sh: can't create /system/bin/x: Read-only file system\n"),
        (
            "ln -s /sdcard /vendor/l",
            "ln: cannot create symbolic link from '/sdcard' to '/vendor/l': Read-only file system\n",
        ),
        ("chmod 777 /system/bin", "chmod: /system/bin: Read-only file system\n"),
    ]:
        r = sh.run(line)
        assert (r.status, r.error) == (1, message), line
    assert not any(sh.host(p).exists() for p in ("/system/x", "/x", "/system/bin/x", "/vendor/l"))
    # creating what is there is EEXIST first, as the kernel checks it before the mount
    assert sh.run("mkdir /system").error == "mkdir: /system: File exists\n"
    assert sh.run("rm -r /system/bin; ls -d /system/bin").text == "/system/bin\n"
    assert sh.run("[ -w /system ] || echo ro; [ -r /system ] && echo r").text == "ro\nr\n"
    # the data partition and shared storage are the shell's to write either way
    assert sh.run("touch /data/local/tmp/f /sdcard/f && ls /data/local/tmp/f /sdcard/f").status == 0


def test_root_reaches_apps_data(sh: ShellDevice) -> None:
    assert sh.run("id -u; whoami").text == "0\nroot\n"
    assert sh.run(f"head -c 6 {SETTINGS_DB}").text == "SQLite"
    assert sh.run(f"sqlite3 {CONTACTS_DB} 'select count(*) from raw_contacts'").text == "0\n"
    assert sh.run("touch /data/data/com.android.providers.settings/x").status == 0


def test_the_shell_user_cannot_read_apps_data(sh: ShellDevice) -> None:
    unrooted(sh)
    assert sh.run("id -u; whoami").text == "2000\nshell\n"
    assert [line.split()[0] for line in sh.run("ps").text.splitlines()] == ["USER", "shell", "shell", "shell"]
    for line, message in [
        ("ls /data", "ls: /data: Permission denied\n"),
        ("ls /data/data", "ls: /data/data: Permission denied\n"),
        (
            "ls /data/data/com.android.providers.settings",
            "ls: /data/data/com.android.providers.settings: Permission denied\n",
        ),
        (f"cat {SETTINGS_DB}", f"cat: {SETTINGS_DB}: Permission denied\n"),
        ("grep -r x /data/system", "grep: /data/system: Permission denied\n"),
        (
            "cd /data/data/com.android.providers.settings",
            "/system/bin/sh: cd: /data/data/com.android.providers.settings: Permission denied\n",
        ),
    ]:
        r = sh.run(line)
        assert (r.out, r.error) == (b"", message), line
        assert r.status != 0, line
    r = sh.run(f"sqlite3 {CONTACTS_DB} 'select count(*) from raw_contacts'")
    assert (r.status, r.text) == (1, "")
    assert "unable to open database" in r.error
    # folders of /data it may pass through: an app's folder is seen, not entered
    assert sh.run("ls -d /data/data/com.android.providers.settings").text.endswith("settings\n")
    assert sh.run("cd /data && pwd").text == "/data\n"
    r = sh.run("find /data/data -maxdepth 1")
    # toybox's dirtree names an unreadable folder without quotes (perror_msg_raw); this had them
    assert (r.status, r.text, r.error) == (1, "/data/data\n", "find: /data/data: Permission denied\n")
    assert sh.run("[ -r /data/data ] || echo no; [ -r /data/local/tmp ] && echo yes").text == "no\nyes\n"


def test_the_shell_user_cannot_change_apps_data(sh: ShellDevice) -> None:
    before = sh.host(SETTINGS_DB).read_bytes()
    unrooted(sh)
    for line in [
        f"rm {SETTINGS_DB}",
        f"echo x > {SETTINGS_DB}",
        "touch /data/data/com.android.providers.settings/new",
        "mkdir /data/data/x",
        "touch /data/local/tmp/f && mv /data/local/tmp/f /data/data/f",
        "cp /data/local/tmp/f /data/x",
        f"sqlite3 {SETTINGS_DB} 'drop table global'",
        "rm -rf /data/system",
    ]:
        r = sh.run(line)
        assert r.status != 0, line
        assert "Permission denied" in r.error or "unable to open database" in r.error, (line, r.error)
    assert sh.host(SETTINGS_DB).read_bytes() == before
    assert not sh.host("/data/data/com.android.providers.settings/new").exists()
    assert not sh.host("/data/data/x").exists() and not sh.host("/data/data/f").exists()
    assert sh.host("/data/system").is_dir()
    # what the shell user owns stays its own
    r = sh.run("mkdir -p /data/local/tmp/a/b && echo hi > /data/local/tmp/a/b/c && cat /data/local/tmp/a/b/c")
    assert (r.status, r.text) == (0, "hi\n")
    assert (
        sh.run("rm -r /data/local/tmp/a && echo x > /sdcard/Download/n && cat /sdcard/Download/n").text
        == "x\n"
    )


def test_su_runs_as_whom_it_names(sh: ShellDevice) -> None:
    unrooted(sh)
    assert sh.run("su 0 id -u; su root whoami; su system id").text == (
        "0\nroot\nuid=1000(system) gid=1000(system) groups=1000(system) context=u:r:su:s0\n"
    )
    assert sh.run(f"su 0 head -c 6 {SETTINGS_DB}").text == "SQLite"
    assert sh.run("su 0 sh -c 'cd /data/data && ls -d com.android.providers.settings'").status == 0
    sh.device.root_adbd = True
    r = sh.run(f"su shell cat {SETTINGS_DB}")
    assert (r.status, r.error) == (1, f"cat: {SETTINGS_DB}: Permission denied\n")
    # a subshell, a pipeline and find -exec keep the uid
    assert sh.run("su shell sh -c 'id -u; (id -u) | cat'").text == "2000\n2000\n"
    r = sh.run("su shell find /sdcard/Download -maxdepth 0 -exec cat " + SETTINGS_DB + " \\;")
    assert "Permission denied" in r.error
