"""The existing backend end to end: devices the user already runs (an announced `emulator-NNNN` and a
`mgfarm sim serve` reached as HOST:PORT) adopted by `mgfarm up --backend existing`, used by `ps`,
`exec` and `run-task`, reset by `restart`, and left running by `down`."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from mgfarm.adb import server as adbserver
from mgfarm.farm.ports import free_port, quiet_range_start
from mgfarm.farm.state import farm_dir
from tests.support import run_mgfarm

from .conftest import AdbServer, SimHandle, free_scanned_adb_port, serving

mgfarm = partial(run_mgfarm, timeout=180)


@pytest.fixture
def user_env(tmp_path: Path, adb_server: AdbServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The CLI's environment: a private MGFARM_HOME, and the adb server's HOME (its console token)."""
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "mgfarm-home"))
    return {**os.environ, "HOME": str(adb_server.home)}


@pytest.fixture
def network_device(adb_server: AdbServer, tmp_path: Path, sim_device: SimHandle) -> Iterator[int]:
    """A `mgfarm sim serve` device announced to no adb server: reachable as 127.0.0.1:PORT only."""
    port = quiet_range_start(1, low=30000) + 1
    token_file = adb_server.home / ".emulator_console_auth_token"  # written by `sim_device`
    with serving(port, tmp_path / "net", "--token-file", str(token_file)) as (line, serve):
        assert line.startswith("ready "), line
        yield port
        assert serve.poll() is None, "the farm stopped a device it did not start"


def listed(server: AdbServer) -> dict[str, str]:
    lines = server.adb("devices").stdout.splitlines()[1:]
    return dict(line.split("\t", 1) for line in lines if "\t" in line)


def test_up_existing_runs_tasks_resets_and_down_leaves_the_devices_running(
    adb_server: AdbServer,
    sim_device: SimHandle,
    network_device: int,
    user_env: dict[str, str],
    tmp_path: Path,
) -> None:
    address = f"127.0.0.1:{network_device}"
    devices = ["--device", sim_device.serial, "--device", f"{address},console={network_device - 1}"]
    up = mgfarm(
        "up",
        "--backend",
        "existing",
        *devices,
        "--farm",
        "adopt",
        "--adb-port",
        str(adb_server.port),
        env=user_env,
    )
    assert up.returncode == 0, up.stderr
    assert "2/2 replicas ready" in up.stdout
    try:
        ps = mgfarm("ps", "--farm", "adopt", "--json", env=user_env)
        farm = json.loads(ps.stdout)[0]
        assert farm["backend"] == "existing"
        assert [(r["serial"], r["state"]) for r in farm["replicas"]] == [
            (sim_device.serial, "ready"),
            (address, "ready"),
        ]
        assert listed(adb_server) == {sim_device.serial: "device", address: "device"}

        shell = mgfarm("exec", "1", "--farm", "adopt", "--", "getprop", "sys.boot_completed", env=user_env)
        assert (shell.returncode, shell.stdout.strip()) == (0, "1")

        task = mgfarm("run-task", "settings.wifi_off", "--agent", "oracle", "--farm", "adopt", env=user_env)
        assert task.returncode == 0, task.stdout + task.stderr
        runs = str(tmp_path / "runs")
        suite = mgfarm(
            "eval", "--suite", "smoke", "--farm", "adopt", "--out", runs, "--no-record", env=user_env
        )
        assert suite.returncode == 0, suite.stderr
        assert "9/9 succeeded" in suite.stdout and "on 2 replicas" in suite.stdout, suite.stdout
        logs = mgfarm("logs", "0", "--farm", "adopt", "--tail", "5", env=user_env)
        assert logs.returncode == 0, logs.stderr

        # A restart resets the device to the golden snapshot saved when it was adopted (console
        # `avd snapshot load`), detaching and attaching it again, and does not restart it.
        for index, serial in enumerate([sim_device.serial, address]):
            off = mgfarm(
                "exec", str(index), "--farm", "adopt", "--", "settings put global wifi_on 0", env=user_env
            )
            assert off.returncode == 0, off.stderr
            restart = mgfarm("restart", str(index), "--farm", "adopt", env=user_env)
            assert restart.returncode == 0, restart.stderr
            assert adb_server.adb("-s", serial, "shell", "settings get global wifi_on").stdout.strip() == "1"
    finally:
        down = mgfarm("down", "--farm", "adopt", env=user_env)
    assert down.returncode == 0, down.stderr
    assert not farm_dir("adopt").exists()
    # Down detached what it had connected and stopped nothing: both devices still run and answer.
    assert listed(adb_server) == {sim_device.serial: "device"}
    assert sim_device.process.poll() is None
    echo = adb_server.adb("-s", sim_device.serial, "shell", "echo still-here")
    assert echo.stdout.strip() == "still-here"
    assert "connected to" in adb_server.adb("connect", address).stdout
    adb_server.adb("disconnect", address)


def test_a_device_without_console_runs_with_snapshot_none(
    adb_server: AdbServer, network_device: int, user_env: dict[str, str]
) -> None:
    address = f"127.0.0.1:{network_device}"
    args = [
        "up",
        "--backend",
        "existing",
        "--device",
        address,
        "--farm",
        "bare",
        "--adb-port",
        str(adb_server.port),
    ]
    refused = mgfarm(*args, env=user_env)
    assert refused.returncode != 0
    said = " ".join(refused.stderr.split())  # rich wraps long lines
    assert "cannot be reset to snapshot 'golden'" in said and "pass --snapshot none" in said
    assert not farm_dir("bare").exists() and address not in listed(adb_server)

    up = mgfarm(*args, "--snapshot", "none", env=user_env)
    assert up.returncode == 0, up.stderr
    try:
        task = mgfarm("run-task", "settings.wifi_off", "--agent", "oracle", "--farm", "bare", env=user_env)
        assert task.returncode == 0, task.stdout + task.stderr
    finally:
        assert mgfarm("down", "--farm", "bare", env=user_env).returncode == 0
    assert address not in listed(adb_server)


def test_an_unreachable_device_is_one_sentence_and_nothing_is_left(
    adb_server: AdbServer, sim_device: SimHandle, user_env: dict[str, str]
) -> None:
    port = str(adb_server.port)  # `sim_device` wrote the console token adopted consoles are opened with
    for device, said in [
        (
            f"127.0.0.1:{free_port()},console={free_port()}",
            "is not reachable (adb connect: failed to connect",
        ),
        ("emulator-31998", f"Device emulator-31998 is not on the adb server at port {port}"),
    ]:
        proc = mgfarm(
            "up",
            "--backend",
            "existing",
            "--device",
            device,
            "--farm",
            "gone",
            "--adb-port",
            port,
            env=user_env,
        )
        text = " ".join(proc.stderr.split())
        assert proc.returncode != 0 and said in text, proc.stderr
        assert "Traceback" not in text and text.startswith("error: ") and text.endswith(".")
        assert not farm_dir("gone").exists()
    assert not any(serial.startswith("127.0.0.1:") for serial in listed(adb_server))


def test_an_emulator_without_an_adb_server_is_found_by_the_server_up_starts(
    tmp_path: Path, user_env: dict[str, str]
) -> None:
    """As an emulator started by hand before any adb server: the server `up` starts scans for it (a
    farm's private server would not), and `down` stops that server but not the device."""
    adb_port = free_scanned_adb_port()
    if adb_port is None:
        pytest.skip("every emulator port pair 5554-5585 is taken on this machine")
    server_port = free_port()
    serial = f"emulator-{adb_port - 1}"
    with serving(adb_port, tmp_path / "emu") as (line, serve):
        assert line.startswith(f"ready {serial}"), line
        args = ["--device", serial, "--snapshot", "none", "--farm", "byhand", "--adb-port", str(server_port)]
        up = mgfarm("up", "--backend", "existing", *args, env=user_env)
        assert up.returncode == 0, up.stderr
        assert adbserver.devices(server_port) == {serial: "device"}
        assert mgfarm("down", "--farm", "byhand", env=user_env).returncode == 0
        assert not adbserver.server_running(server_port)  # it was the farm's, started for it
        assert serve.poll() is None


def test_a_device_another_farm_adopted_is_refused_naming_that_farm(
    adb_server: AdbServer, sim_device: SimHandle, user_env: dict[str, str]
) -> None:
    def adopt(farm: str, device: str) -> subprocess.CompletedProcess[str]:
        args = ["up", "--backend", "existing", "--device", device, "--farm", farm]
        return mgfarm(*args, "--adb-port", str(adb_server.port), env=user_env)

    first = adopt("first", sim_device.serial)
    assert first.returncode == 0, first.stderr
    try:
        # By its serial, and by its adb address: the same device both times.
        for device in (
            sim_device.serial,
            f"127.0.0.1:{sim_device.adb_port},console={sim_device.console_port}",
        ):
            second = adopt("second", device)
            text = " ".join(second.stderr.split())
            assert second.returncode != 0 and "Traceback" not in text, second.stderr
            assert text == (
                f"error: Device {device.split(',')[0]} is already replica 0 of farm 'first'; stop that farm "
                "with `mgfarm down --farm first` or leave the device out."
            )
            assert not farm_dir("second").exists()
        assert listed(adb_server).get(sim_device.serial) == "device"  # the first farm's device is untouched
        ps = json.loads(mgfarm("ps", "--farm", "first", "--json", env=user_env).stdout)
        assert [r["state"] for r in ps[0]["replicas"]] == ["ready"]
    finally:
        assert mgfarm("down", "--farm", "first", env=user_env).returncode == 0
