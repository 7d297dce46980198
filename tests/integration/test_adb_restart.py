"""Devices come back on their own when the adb server is killed and started again, as emulators do."""

from __future__ import annotations

import time
from pathlib import Path

from mgfarm.adb import server as adbserver
from mgfarm.adb.binary import find_adb

from .conftest import SimProcess, start_adb_server, stop_adb_server


def listed(port: int) -> dict[str, str]:
    return adbserver.devices(port)


def test_devices_reattach_to_a_restarted_adb_server(tmp_path: Path) -> None:
    # A private server: killing it must not disturb other tests' devices.
    server = start_adb_server(find_adb(), tmp_path / "adbhome")
    sim = SimProcess(server, tmp_path, 2)
    try:
        serials = {h.serial for h in sim.wait_ready()}
        for round_ in range(2):
            server.adb("kill-server", timeout=30)
            deadline = time.monotonic() + 10
            while adbserver.server_running(server.port) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not adbserver.server_running(server.port)
            assert server.adb("start-server", timeout=30).returncode == 0
            started = time.monotonic()
            # The devices listen far from 5555-5585, where the server would look by itself:
            # only their own announcements can bring them back.
            while time.monotonic() - started < 15:
                if all(listed(server.port).get(s) == "device" for s in serials):
                    break
                time.sleep(0.05)
            took = time.monotonic() - started
            print(f"round {round_}: both devices back {took:.2f} s after the adb server started")
            assert all(listed(server.port).get(s) == "device" for s in serials), listed(server.port)
            for serial in serials:
                assert server.adb("-s", serial, "shell", "echo", "ok").stdout.strip() == "ok"
    finally:
        sim.stop()
        stop_adb_server(server)
