"""The emulator image's entrypoint and health check, run on this machine around the stand-in
emulator (docker/emulator/standin/emulator, a simulated device): stale AVD locks are removed and
secrets regenerated at start and removed at a clean stop, a failing helper stops the start loudly,
and the health check notices a hung device."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mgfarm.adb.console import ConsoleClient
from mgfarm.adb.errors import ConsoleError
from tests.unit.test_emulator import free_pair

REPO = Path(__file__).resolve().parents[2]
ENTRYPOINT = REPO / "docker/emulator/entrypoint.sh"
HEALTHCHECK = REPO / "docker/emulator/healthcheck.py"
STANDIN = REPO / "docker/emulator/standin/emulator"


@dataclass
class Replica:
    proc: subprocess.Popen[str]
    env: dict[str, str]
    home: Path
    run_dir: Path
    avd_dir: Path
    console: int
    adb: int


def _env(tmp_path: Path, console: int, adb: int, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(home),
        "MGFARM_RUN_DIR": str(tmp_path / "run"),
        "ANDROID_AVD_HOME": str(home / ".android" / "avd"),
        "MGFARM_EMULATOR": str(STANDIN),
        "MGFARM_HEALTHCHECK": str(HEALTHCHECK),
        "MGFARM_BIND_HOST": "127.0.0.2",
        "MGFARM_EMU_ACCEL": "off",
        "MGFARM_EMU_CONSOLE_PORT": str(console),
        "MGFARM_EMU_ADB_PORT": str(adb),
        "MGFARM_CONSOLE_TOKEN": "fresh-token",
    }
    env.update(extra)
    return env


def _health(replica: Replica, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(HEALTHCHECK), *args], env=replica.env, capture_output=True, text=True, timeout=30
    )


@pytest.fixture
def replica(tmp_path: Path) -> Iterator[Replica]:
    console, adb = free_pair()
    env = _env(tmp_path, console, adb)
    home = Path(env["HOME"])
    avd_dir = home / ".android" / "avd" / "mgfarm.avd"
    # What a killed emulator (or a commit of a running one) leaves behind.
    (avd_dir / "hardware-qemu.ini.lock").mkdir(parents=True)
    (avd_dir / "snapshot.lock").write_text("4242")
    (home / ".android" / "adbkey").write_text("-----BEGIN PRIVATE KEY-----")
    (home / ".emulator_console_auth_token").write_text("baked-token")
    running = home / ".android" / "avd" / "running"
    running.mkdir()
    (running / "pid_4242.ini").write_text("grpc.port=8554\ngrpc.token=baked-grpc-token\n")
    proc = subprocess.Popen(
        ["bash", str(ENTRYPOINT)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    run_dir = Path(env["MGFARM_RUN_DIR"])
    deadline = time.monotonic() + 90
    while not (run_dir / "ready").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the entrypoint never got ready: {proc.communicate()[0][-2000:]}")
        time.sleep(0.2)
    yield Replica(proc, env, home, run_dir, avd_dir, console, adb)
    if proc.poll() is None:
        proc.terminate()
        proc.wait(20)


def _device_pid(adb: int) -> int:
    out = subprocess.run(
        ["pgrep", "-f", f"mgfarm.sim serve --host 127.0.0.1 --adb-port {adb} "],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert out, "the stand-in's device process is not running"
    return int(out[0])


@pytest.mark.timeout(240)
def test_start_clears_stale_locks_and_secrets_and_a_clean_stop_leaves_none(replica: Replica) -> None:
    assert not (replica.home / ".android" / "adbkey").exists()
    assert (replica.home / ".emulator_console_auth_token").read_text() == "fresh-token"
    assert (replica.run_dir / "console_token").read_text() == "fresh-token"
    assert not (replica.avd_dir / "snapshot.lock").exists()
    assert not (replica.home / ".android" / "avd" / "running").exists()  # the old gRPC token

    with ConsoleClient(replica.console, "fresh-token") as console, contextlib.suppress(ConsoleError):
        console.command("kill")  # the emulator may close before the final OK
    out, _ = replica.proc.communicate(timeout=60)
    assert replica.proc.returncode == 0, out[-2000:]
    assert "STAND-IN EMULATOR" in out
    assert not (replica.home / ".emulator_console_auth_token").exists()
    assert not (replica.run_dir / "console_token").exists()
    assert not list(replica.avd_dir.rglob("*.lock"))


@pytest.mark.timeout(240)
def test_health_needs_a_booted_device_and_an_answering_console(replica: Replica) -> None:
    healthy = _health(replica)
    assert healthy.returncode == 0, healthy.stdout
    assert "console answers" in healthy.stdout
    # The relay exposes the same device on the container's address.
    from mgfarm.adb.console import console_alive

    assert console_alive(replica.console, host="127.0.0.2")

    pid = _device_pid(replica.adb)
    os.kill(pid, signal.SIGSTOP)  # a hung guest: the process lives, nothing answers
    try:
        hung = _health(replica)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert hung.returncode == 1
    assert hung.stdout.startswith("unhealthy: adb on port")
    assert _health(replica).returncode == 0


def test_a_failing_helper_stops_the_start_loudly(tmp_path: Path) -> None:
    console, adb = free_pair()
    env = _env(tmp_path, console, adb, MGFARM_EMU_CORES="99")
    proc = subprocess.run(["bash", str(ENTRYPOINT)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "cores=99 is out of range" in proc.stderr
    assert "mgfarm.farm.emulator write-avd' failed" in proc.stderr
    assert "STAND-IN EMULATOR" not in proc.stdout


def test_the_stand_in_refuses_an_avd_locked_by_another_instance(tmp_path: Path) -> None:
    avd_home = tmp_path / "avd"
    avd = avd_home / "mgfarm.avd"
    (avd / "hardware-qemu.ini.lock").mkdir(parents=True)
    (avd / "config.ini").write_text("AvdId=mgfarm\n")
    proc = subprocess.run(
        [sys.executable, str(STANDIN), "-avd", "mgfarm", "-ports", "5554,5555", "-no-window"],
        env={**os.environ, "ANDROID_AVD_HOME": str(avd_home)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 1
    assert "Running multiple emulators with the same AVD" in proc.stderr
