"""The watchdog under faults: a worker killed in the middle of a reset, a disk that fills during one."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm import api, procs
from mgfarm.farm.state import FarmState, Replica, load_farm
from tests.support import wait_until


def device_of(farm: FarmState, rep: Replica) -> Device:
    return Device(
        rep.serial,
        adb_port=farm.adb_server_port,
        console_port=rep.console_port,
        console_token=rep.console_token,
    )


def restored(name: str, index: int) -> bool:
    rep = load_farm(name).replica(index)
    return rep.state == "ready" and rep.restarts >= 1


@pytest.fixture
def farm_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("MGFARM_HOME", str(home))
    return home


def test_a_worker_killed_mid_reset_is_restored_and_the_watchdog_lives_on(farm_home: Path) -> None:
    farm = api.up(2, name="midreset")
    try:
        rep = farm.replicas[0]
        worker = next(w for w in farm.workers if rep.index in w.replicas)
        device = device_of(farm, rep)
        stop = threading.Event()

        def reset_in_a_loop() -> None:
            while not stop.is_set():
                with contextlib.suppress(MgfarmError):
                    device.snapshot_load("golden")

        resets = threading.Thread(target=reset_in_a_loop, daemon=True)
        resets.start()
        time.sleep(0.5)  # several loads are under way by now; the kill lands inside one
        os.kill(worker.pid, signal.SIGKILL)
        stop.set()
        resets.join(timeout=60)
        wait_until(lambda: all(restored("midreset", i) for i in worker.replicas), 90, "restore after kill")
        again = load_farm("midreset")
        fresh = device_of(again, again.replica(rep.index))
        assert fresh.shell("getprop sys.boot_completed").strip() == "1"
        assert procs.pid_alive(again.watchdog_pid), "the watchdog died on the way"
    finally:
        api.down("midreset")


@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """MGFARM_HOME on a 96 MiB tmpfs of its own, so the test can fill it without touching the host."""
    mount = tmp_path / "disk"
    mount.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        pytest.skip(f"mounting a small tmpfs needs root (mount said: {proc.stderr.strip()})")
    monkeypatch.setenv("MGFARM_HOME", str(mount / "home"))
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> Path:
    """A ballast file that takes every free byte of the file system under `folder`."""
    ballast = folder / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)
    return ballast


def test_a_disk_full_during_a_reset_refuses_it_and_keeps_the_device_whole(small_disk: Path) -> None:
    farm = api.up(1, name="diskfull")
    try:
        rep = farm.replicas[0]
        device = device_of(farm, rep)
        device.shell("echo before > /sdcard/marker.txt")
        ballast = fill(small_disk)
        try:
            with pytest.raises(MgfarmError):
                device.snapshot_load("golden")
            # Refused, not half done: the device still answers and still holds what it held.
            assert device.shell("cat /sdcard/marker.txt").strip() == "before"
            assert load_farm("diskfull").replica(0).state == "ready"
        finally:
            ballast.unlink()
        device.snapshot_load("golden")
        assert "No such file" in device.shell("cat /sdcard/marker.txt 2>&1")
        assert procs.pid_alive(load_farm("diskfull").watchdog_pid)
    finally:
        api.down("diskfull")
