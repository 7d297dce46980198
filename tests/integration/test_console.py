"""The emulator console over plain TCP and through `adb emu`."""

from __future__ import annotations

import socket
from collections.abc import Callable

from tests.integration.conftest import AdbServer, SimHandle

GREETING_END = b"OK\r\n"


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while not data.endswith(marker):
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def test_greeting_and_auth_are_byte_exact(adb_server: AdbServer, sim_device: SimHandle) -> None:
    token_path = adb_server.home / ".emulator_console_auth_token"
    with socket.create_connection(("127.0.0.1", sim_device.console_port), timeout=10) as sock:
        greeting = read_until(sock, GREETING_END)
        assert greeting == (
            b"Android Console: Authentication required\r\n"
            b"Android Console: type 'auth <auth_token>' to authenticate\r\n"
            b"Android Console: you can find your <auth_token> in \r\n"
            + f"'{token_path}'\r\n".encode()
            + b"OK\r\n"
        )
        sock.sendall(b"avd status\r\n")
        assert read_until(sock, b"\r\n") == b"KO: unknown command, try 'help'\r\n"
        sock.sendall(b"auth wrong\r\n")
        assert read_until(sock, b"\r\n") == (
            b"KO: authentication token does not match ~/.emulator_console_auth_token\r\n"
        )
        sock.sendall(f"auth {sim_device.token}\r\n".encode())
        assert read_until(sock, GREETING_END) == (
            b"Android Console: type 'help' for a list of commands\r\nOK\r\n"
        )
        sock.sendall(b"ping\r\n")
        assert read_until(sock, GREETING_END) == b"I am alive!\r\nOK\r\n"
        sock.sendall(b"avd snapshot save\r\n")
        assert read_until(sock, b"\r\n") == b"KO: Argument missing, try 'avd snapshot save <name>'\r\n"
        sock.sendall(b"quit\r\n")
        assert sock.recv(100) == b""


def test_adb_emu_avd_name_and_unknown(adb_server: AdbServer, sim_device: SimHandle) -> None:
    name = adb_server.adb("-s", sim_device.serial, "emu", "avd", "name")
    assert name.stdout.splitlines()[0] == f"mgfarm_sim_{sim_device.console_port}"
    bogus = adb_server.adb("-s", sim_device.serial, "emu", "frobnicate")
    assert "KO: unknown command" in bogus.stdout + bogus.stderr


def test_snapshot_save_load_restores_files_and_props(adb_server: AdbServer, sim_device: SimHandle) -> None:
    def sh(cmd: str) -> str:
        return adb_server.adb("-s", sim_device.serial, "shell", cmd).stdout

    sh("echo before > /sdcard/state.txt; setprop debug.mgfarm.test before")
    save = adb_server.adb("-s", sim_device.serial, "emu", "avd", "snapshot", "save", "t1")
    assert "OK" in save.stdout
    sh("echo after > /sdcard/state.txt; echo extra > /sdcard/extra.txt; setprop debug.mgfarm.test after")
    listing = adb_server.adb("-s", sim_device.serial, "emu", "avd", "snapshot", "list").stdout
    assert "t1" in listing and listing.startswith("List of snapshots present on all disks:")
    load = adb_server.adb("-s", sim_device.serial, "emu", "avd", "snapshot", "load", "t1")
    assert "OK" in load.stdout and "KO" not in load.stdout
    assert sh("cat /sdcard/state.txt") == "before\n"
    assert sh("ls /sdcard/extra.txt; echo $?").splitlines()[-1] != "0"
    assert sh("getprop debug.mgfarm.test") == "before\n"
    missing = adb_server.adb("-s", sim_device.serial, "emu", "avd", "snapshot", "load", "nope")
    assert "KO: snapshot 'nope' does not exist" in missing.stdout


def test_kill_stops_the_device(adb_server: AdbServer, sim_device: SimHandle) -> None:
    out = adb_server.adb("-s", sim_device.serial, "emu", "kill")
    assert "OK: killing emulator, bye bye" in out.stdout
    assert sim_device.process.wait(timeout=15) == 0


def test_golden_saved_on_one_device_restores_a_setting_on_another(
    adb_server: AdbServer, sim_devices: Callable[[int], list[SimHandle]]
) -> None:
    first, second = sim_devices(2)

    def adb(dev: SimHandle, *args: str) -> str:
        return adb_server.adb("-s", dev.serial, *args).stdout

    adb(first, "shell", "settings put global wifi_on 0; settings put system screen_brightness 77")
    assert "OK" in adb(first, "emu", "avd", "snapshot", "save", "golden")
    adb(second, "shell", "settings put global wifi_on 1")
    assert "golden" in adb(second, "emu", "avd", "snapshot", "list")
    assert "KO" not in adb(second, "emu", "avd", "snapshot", "load", "golden")
    assert adb(second, "shell", "settings get global wifi_on") == "0\n"
    assert adb(second, "shell", "settings get system screen_brightness") == "77\n"
    # the loaded copy is the device's own: changing it leaves the golden and the other device alone
    adb(second, "shell", "settings put system screen_brightness 5")
    assert adb(first, "shell", "settings get system screen_brightness") == "77\n"
    assert "KO" not in adb(second, "emu", "avd", "snapshot", "load", "golden")
    assert adb(second, "shell", "settings get system screen_brightness") == "77\n"


def test_adb_emu_drives_modem_battery_and_sms(adb_server: AdbServer, sim_device: SimHandle) -> None:
    def emu(*words: str) -> str:
        done = adb_server.adb("-s", sim_device.serial, "emu", *words)
        # The real adb client prints the console's reply and exits 0 even on `KO:` (adb's console
        # client returns 0 once connected), so callers read the reply.
        assert done.returncode == 0, done.stderr
        return done.stdout

    def sh(cmd: str) -> str:
        return adb_server.adb("-s", sim_device.serial, "shell", cmd).stdout

    assert emu("gsm", "call", "5551234").startswith("OK")
    assert "mCallState=1" in sh("dumpsys telephony.registry")
    assert emu("gsm", "list").splitlines()[0] == "inbound from 5551234 : incoming"
    assert emu("gsm", "accept", "5551234").startswith("OK")
    assert "mCallState=2" in sh("dumpsys telephony.registry")
    assert emu("gsm", "cancel", "5551234").startswith("OK")
    assert "mCallState=0" in sh("dumpsys telephony.registry")
    assert emu("sms", "send", "5550100", "see", "you", "soon").startswith("OK")
    assert "body=see you soon" in sh("content query --uri content://sms/inbox")
    assert emu("power", "capacity", "42").startswith("OK")
    assert "  level: 42" in sh("dumpsys battery")
    assert emu("geo", "fix", "-122.08", "37.42").startswith("OK")
    assert emu("network", "speed", "lte").startswith("OK")
    assert emu("rotate").startswith("OK")
    assert emu("gsm", "call", "not-a-number").startswith("KO: ")
    assert emu("power", "capacity", "101").startswith("KO: ")
