"""How adb servers find a simulated device: port scan, announce, `adb connect`; adbd restarts; tcp:."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import adbutils
import pytest

from mgfarm.farm.ports import quiet_range_start
from tests.integration.conftest import (
    AdbServer,
    SimHandle,
    free_scanned_adb_port,
    serving,
    start_adb_server,
    stop_adb_server,
)
from tests.support import run_mgfarm


def test_server_started_after_the_device_finds_it_by_port_scan(adb_server: AdbServer, tmp_path: Path) -> None:
    adb_port = free_scanned_adb_port()
    if adb_port is None:
        pytest.skip("every emulator port pair 5554-5585 is taken on this machine")
    with serving(adb_port, tmp_path / "d") as (line, serve):
        assert line.startswith(f"ready emulator-{adb_port - 1}")
        late = start_adb_server(adb_server.binary, tmp_path / "home")
        try:
            late.wait_for(f"emulator-{adb_port - 1}")
            out = late.adb("-s", f"emulator-{adb_port - 1}", "shell", "echo scanned")
            assert out.stdout == "scanned\n"
        finally:
            stop_adb_server(late)
        serve.terminate()
        assert serve.wait(timeout=15) == 0  # SIGTERM is a clean exit


def test_adb_connect_and_announce_at_once(adb_server: AdbServer, sim_device: SimHandle) -> None:
    """Two transports to one device: the announced emulator serial and `adb connect`'s host:port."""
    target = f"127.0.0.1:{sim_device.adb_port}"
    assert "connected to" in adb_server.adb("connect", target).stdout
    adb_server.wait_for(target)
    adb_server.adb("-s", target, "shell", "echo via-connect > /sdcard/both.txt")
    seen = adb_server.adb("-s", sim_device.serial, "shell", "cat /sdcard/both.txt")
    assert seen.stdout == "via-connect\n"
    adb_server.adb("disconnect", target)


def test_unroot_restarts_adbd_and_the_device_comes_back(adb_server: AdbServer, sim_device: SimHandle) -> None:
    assert adb_server.adb("-s", sim_device.serial, "root").stdout == "adbd is already running as root\n"
    assert adb_server.adb("-s", sim_device.serial, "unroot").stdout == "restarting adbd as non root\n"
    deadline = time.monotonic() + 20
    out = ""
    while time.monotonic() < deadline:
        out = adb_server.adb("-s", sim_device.serial, "shell", "getprop service.adb.root").stdout
        if out == "0\n":
            break
        time.sleep(0.2)
    assert out == "0\n"
    assert adb_server.adb("-s", sim_device.serial, "unroot").stdout == "adbd not running as root\n"


def test_unrooted_adbd_is_the_shell_user(
    adb_server: AdbServer, sim_device: SimHandle, tmp_path: Path
) -> None:
    """After `adb unroot` the shell and sync run as uid 2000: apps' data is private, the system image
    read-only, /data/local/tmp and /sdcard the shell's, and `su 0` root again (the image's su)."""
    serial = sim_device.serial
    db = "/data/data/com.android.providers.settings/databases/settings.db"
    assert adb_server.adb("-s", serial, "unroot").stdout == "restarting adbd as non root\n"
    deadline = time.monotonic() + 20
    while adb_server.adb("-s", serial, "shell", "id -u").stdout != "2000\n":
        assert time.monotonic() < deadline, "adbd did not come back as the shell user"
        time.sleep(0.2)
    listing = adb_server.adb("-s", serial, "shell", "ls /data/data")
    assert (listing.stdout, listing.returncode) == ("", 1)
    assert listing.stderr == "ls: /data/data: Permission denied\n"
    local = tmp_path / "note.txt"
    local.write_text("hi\n")
    # adb stats the destination first: in an app's folder that is refused already
    pushed = adb_server.adb("-s", serial, "push", str(local), "/data/data/com.android.providers.settings/x")
    assert pushed.returncode == 1
    assert (
        "stat failed when trying to push to /data/data/com.android.providers.settings/x: Permission denied"
        in (pushed.stdout + pushed.stderr)
    )
    pushed = adb_server.adb("-s", serial, "push", str(local), "/data/x")  # /data lets it look, not write
    assert pushed.returncode == 1
    assert "remote couldn't create file: Permission denied" in pushed.stdout + pushed.stderr
    pulled = adb_server.adb("-s", serial, "pull", db, str(tmp_path / "settings.db"))
    assert pulled.returncode == 1 and "Permission denied" in pulled.stdout + pulled.stderr
    assert not (tmp_path / "settings.db").exists()
    assert (
        adb_server.adb("-s", serial, "shell", "touch /system/x").stderr
        == "touch: /system/x: Read-only file system\n"
    )
    assert adb_server.adb("-s", serial, "push", str(local), "/data/local/tmp/note.txt").returncode == 0
    assert adb_server.adb("-s", serial, "shell", "cat /data/local/tmp/note.txt").stdout == "hi\n"
    assert adb_server.adb("-s", serial, "shell", f"su 0 head -c 6 {db}").stdout == "SQLite"
    assert adb_server.adb("-s", serial, "root").stdout == "restarting adbd as root\n"


def test_forward_to_a_port_without_server_is_refused(adb_server: AdbServer, sim_device: SimHandle) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        local = probe.getsockname()[1]
    forward = adb_server.adb("-s", sim_device.serial, "forward", f"tcp:{local}", "tcp:9999")
    assert forward.returncode == 0, forward.stderr
    with socket.create_connection(("127.0.0.1", local), timeout=5) as conn:
        conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert conn.recv(100) == b""  # the device refused the tcp: stream, adb closed the socket
    adb_server.adb("-s", sim_device.serial, "forward", "--remove", f"tcp:{local}")
    # refused at OPEN (not accepted then closed): the adb server answers FAIL to the client
    device = adb_server.client().device(sim_device.serial)
    with pytest.raises(adbutils.AdbError):
        device.create_connection(adbutils.Network.TCP, 9999)


def test_reverse_is_refused_in_one_sentence_and_lists_nothing(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    reverse = adb_server.adb("-s", sim_device.serial, "reverse", "tcp:1234", "tcp:5678")
    assert reverse.returncode == 1
    assert "adb reverse is not supported by simulated devices; use adb forward instead" in reverse.stderr
    listing = adb_server.adb("-s", sim_device.serial, "reverse", "--list")
    assert listing.returncode == 0 and listing.stdout.strip() == ""
    assert adb_server.adb("-s", sim_device.serial, "shell", "echo", "alive").stdout.strip() == "alive"


def test_tcp_reaches_a_device_local_server_while_its_shell_lives(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    device = adb_server.client().device(sim_device.serial)
    device.sync.push(b"jar", "/data/local/tmp/u2.jar")
    launch = device.shell(
        "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008", stream=True
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                conn = device.create_connection(adbutils.Network.TCP, 9008)
                break
            except adbutils.AdbError:
                assert time.monotonic() < deadline, "the local server never came up"
                time.sleep(0.1)
        with conn:
            conn.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := conn.recv(4096):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and reply.endswith(b"pong")
    finally:
        launch.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # closing the launching shell stops the server
        try:
            device.create_connection(adbutils.Network.TCP, 9008).close()
            time.sleep(0.1)
        except adbutils.AdbError:
            return
    raise AssertionError("the local server outlived its shell stream")


def test_serve_on_a_taken_port_fails_with_one_sentence(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        console_port = taken.getsockname()[1]
        data = tmp_path / "data"
        args = ["sim", "serve", "--adb-port", str(console_port + 1), "--data", str(data)]
        proc = run_mgfarm(*args, "--token-file", str(tmp_path / "token"), timeout=60)
    assert proc.returncode == 1
    assert "already in use" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert not (data / f"emulator-{console_port}").exists()  # it failed before booting anything


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--data", "pass a writable --data folder"),
        ("--snapshots", "pass a writable --snapshots folder"),
        ("--token-file", "pass a readable --token-file"),
    ],
)
def test_serve_with_an_unusable_path_fails_with_one_sentence(
    tmp_path: Path, option: str, expected: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")  # a path under a regular file can be created by nobody, root included
    args = {
        "--data": tmp_path / "data",
        "--snapshots": tmp_path / "snaps",
        "--token-file": tmp_path / "token",
    }
    args[option] = blocker / "below"
    argv = [sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", "2"]  # never reached: fails first
    argv += [str(x) for pair in args.items() for x in pair]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert expected in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_serve_on_an_address_not_of_this_machine_fails_with_one_sentence(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", "40001", "--host", "192.0.2.1"]
    argv += ["--data", str(tmp_path / "data"), "--token-file", str(tmp_path / "token")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert "cannot listen on 192.0.2.1:40000" in proc.stderr and "with --host" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_reboot_takes_the_device_away(
    adb_server: AdbServer, sim_devices: Callable[[int], list[SimHandle]]
) -> None:
    first, second = sim_devices(2)
    adb_server.adb("-s", first.serial, "reboot", timeout=30)
    deadline = time.monotonic() + 15
    while adb_server.device_state(first.serial) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert adb_server.device_state(first.serial) is None
    assert (
        adb_server.adb("-s", second.serial, "shell", "echo other").stdout == "other\n"
    )  # others keep serving


def test_ready_means_the_adb_server_already_lists_the_device(adb_server: AdbServer, tmp_path: Path) -> None:
    """`sim serve --announce` says ready only when `adb -s SERIAL` works at once (no offline window)."""
    for round_ in range(3):
        adb_port = quiet_range_start(1) + 1
        with serving(adb_port, tmp_path / f"d{round_}", "--announce", str(adb_server.port)) as (line, _):
            assert line.startswith(f"ready emulator-{adb_port - 1}"), line
            state = adb_server.adb("-s", f"emulator-{adb_port - 1}", "get-state")
            assert state.stdout.strip() == "device", state.stderr
