"""Signals to processes as on an Android 13 emulator: `pgrep` matches the kernel's name of a process
(an app's is the end of its package name), `kill`/`pkill`/`killall` end an app's process with what
its death does to its activities, and only root may signal another user's process."""

from __future__ import annotations

import pytest

from tests.unit.shellkit import ShellDevice

SETTINGS = "com.android.settings"
CONTACTS = "com.google.android.contacts"


def open_two(sh: ShellDevice) -> None:
    """Settings, then Contacts in front of it."""
    assert sh.run(f"am start -n {SETTINGS}/.Settings").status == 0
    assert sh.run(f"am start -n {CONTACTS}/com.android.contacts.activities.PeopleActivity").status == 0


def history(sh: ShellDevice) -> list[str]:
    """The packages of the activity records, front task first."""
    lines = sh.run("dumpsys activity activities | grep 'Hist  #'").text.splitlines()
    return [line.split(" u0 ")[1].split("/")[0] for line in lines]


def test_pgrep_matches_the_kernel_name_and_with_f_the_command_line(sh: ShellDevice) -> None:
    # ART names an app's process by the last 15 bytes of its package: the full name never matches it
    assert sh.run("pgrep com.android.systemui").status == 1
    assert sh.run("pgrep -l systemui").text == "900 ndroid.systemui\n"
    assert sh.run("pgrep -f com.android.systemui").text == "900\n"
    assert sh.run("pgrep -lf 'systemui$'").text == "900 com.android.systemui\n"
    assert sh.run("pgrep -x zygote").status == 1
    assert sh.run("pgrep -x zygote64").text == "300\n"
    assert sh.run("pgrep -d, -f '^com.android.(phone|systemui)$'").text == "700,900,\n"
    assert sh.run("pgrep -c -u system .").text == "2\n"  # servicemanager, system_server
    assert sh.run("pgrep -n -P 1 .").text == "320\n"  # the newest of init's children: adbd
    no = sh.run("pgrep")
    assert (no.status, no.error) == (1, 'pgrep: No PATTERN (see "pgrep --help")\n')
    assert sh.run("pgrep '('").status == 1


def test_killing_the_app_on_screen_removes_its_activity_and_shows_the_one_below(sh: ShellDevice) -> None:
    open_two(sh)
    pid = sh.run(f"pidof {CONTACTS}").text.strip()
    assert sh.run(f"kill {pid}").status == 0
    # its activity saved no state: it goes, and the app below comes to the front
    assert history(sh) == [SETTINGS, "com.android.launcher3"]
    assert sh.device.services.activities.resumed()[0] == SETTINGS  # type: ignore[index]
    assert sh.run(f"pidof {CONTACTS}").status == 1
    assert sh.run(f"kill {pid}").error == f"/system/bin/sh: kill: {pid}: No such process\n"


def test_an_app_killed_in_the_background_keeps_its_task_and_starts_again_with_a_new_pid(
    sh: ShellDevice,
) -> None:
    open_two(sh)
    old = sh.run(f"pidof {SETTINGS}").text.strip()
    assert sh.run(f"kill -9 {old}").status == 0
    assert history(sh) == [CONTACTS, SETTINGS, "com.android.launcher3"]  # saved state kept
    assert sh.run(f"pidof {SETTINGS}").status == 1
    assert SETTINGS not in sh.run("ps -A").text
    assert sh.run(f"am start -n {SETTINGS}/.Settings").status == 0
    new = sh.run(f"pidof {SETTINGS}").text.strip()
    assert new and new != old
    # the state survives a snapshot: the dead process and the pid to come
    activities = sh.device.services.activities
    assert sh.run(f"am kill {CONTACTS}").status == 0
    state = activities.export_state()
    activities.import_state({"tasks": []})
    activities.import_state(state)
    assert sh.run(f"pidof {CONTACTS}").status == 1
    assert sh.run(f"pidof {SETTINGS}").text.strip() == new


@pytest.mark.parametrize("signal", ["-0", "-STOP", "-QUIT", "-USR1", "-s CHLD", "-18"])
def test_signals_an_app_survives_leave_it_running(sh: ShellDevice, signal: str) -> None:
    open_two(sh)
    pid = sh.run(f"pidof {CONTACTS}").text.strip()
    assert sh.run(f"kill {signal} {pid}").status == 0
    assert sh.run(f"pidof {CONTACTS}").text.strip() == pid
    assert history(sh)[0] == CONTACTS


def test_the_shell_user_may_not_signal_apps_or_the_system(sh: ShellDevice) -> None:
    open_two(sh)
    sh.device.root_adbd = False  # after `adb unroot`
    pid = sh.run(f"pidof {CONTACTS}").text.strip()
    r = sh.run(f"kill -9 {pid}")
    assert (r.status, r.error) == (1, f"/system/bin/sh: kill: {pid}: Operation not permitted\n")
    r = sh.run("pkill -f contacts")
    assert (r.status, r.error) == (1, f"pkill: TERM->{pid}: Operation not permitted\n")
    r = sh.run("killall system_server")
    assert r.status == 1
    assert r.error.splitlines() == [
        "killall: pid 560: Operation not permitted",
        "killall: system_server: Operation not permitted",
    ]
    assert sh.run(f"pidof {CONTACTS}").text.strip() == pid
    assert history(sh)[0] == CONTACTS
    assert sh.run("kill -0 $$").status == 0  # its own shell
    # su 0 is root again
    assert sh.run(f"su 0 kill {pid}").status == 0
    assert sh.run(f"pidof {CONTACTS}").status == 1


def test_pkill_killall_and_am_kill(sh: ShellDevice) -> None:
    open_two(sh)
    # am kill leaves the app on screen alone, as ActivityManager's killBackgroundProcesses
    assert sh.run(f"am kill {CONTACTS}").status == 0
    assert sh.run(f"pidof {CONTACTS}").status == 0
    assert sh.run("am kill-all").status == 0
    assert sh.run(f"pidof {SETTINGS}").status == 1
    assert sh.run(f"pidof {CONTACTS} com.android.launcher3").status == 0
    assert sh.run("pkill -f -x com.google.android.contacts").status == 0
    assert history(sh)[0] == SETTINGS  # it came back in front, started again
    assert sh.run(f"killall -v {SETTINGS}").text.startswith(f"Killed {SETTINGS}(")
    assert history(sh) == ["com.android.launcher3"]
    r = sh.run("killall nothing")
    assert (r.status, r.error) == (1, "killall: nothing: No such process\n")


def test_kill_reads_signals_and_operands_as_mksh_does(sh: ShellDevice) -> None:
    for line, message in [
        ("kill -s FOO 1", "/system/bin/sh: kill: bad signal 'FOO'\n"),
        ("kill -FOO 1", "/system/bin/sh: kill: bad signal 'FOO'\n"),
        ("kill abc", "/system/bin/sh: kill: abc: arguments must be jobs or process IDs\n"),
        ("kill 99999", "/system/bin/sh: kill: 99999: No such process\n"),
        ("kill -x 1", "/system/bin/sh: kill: -x: unknown option\n"),
    ]:
        r = sh.run(line)
        assert (r.status, r.error) == (1, message), line
    assert sh.run("kill").status == 1
    assert sh.run("kill -l 9 137 15").text == "KILL\nKILL\nTERM\n"
    assert sh.run("kill -s sigterm $$; kill -KILL -- $$").status == 0  # the sim's shell goes on
    # $$ is the shell `ps` lists
    pid, row = sh.run("echo $$; ps -o PID,NAME | grep ' sh$'").text.splitlines()
    assert row.split() == [pid, "sh"]
    assert sh.run("timeout -s SIGKILL 0.05 sleep 1").status == 137
