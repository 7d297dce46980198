"""The same smoke run with each adb binary on this machine (Debian's 29.x and adbutils' bundled 36.x)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import adbutils
import pytest

from tests.integration.conftest import SimProcess, start_adb_server, stop_adb_server


def adb_binaries() -> list[Path]:
    found = []
    system = shutil.which("adb")
    if system:
        found.append(Path(system))
    bundled = Path(adbutils.__file__).parent / "binaries" / "adb"
    if os.access(bundled, os.X_OK):
        found.append(bundled)
    return found


@pytest.mark.parametrize("binary", adb_binaries(), ids=lambda p: str(p))
def test_smoke_with_each_adb_binary(binary: Path, tmp_path: Path) -> None:
    server = start_adb_server(binary, tmp_path / "home")
    sim = SimProcess(server, tmp_path, 1)
    try:
        (device,) = sim.wait_ready()
        serial = device.serial
        shell = server.adb("-s", serial, "shell", "echo out; echo err >&2; exit 5")
        assert (shell.stdout, shell.stderr, shell.returncode) == ("out\n", "err\n", 5)
        payload = os.urandom(1_500_000)
        (tmp_path / "up.bin").write_bytes(payload)
        assert server.adb("-s", serial, "push", str(tmp_path / "up.bin"), "/sdcard/x/up.bin").returncode == 0
        assert (
            server.adb("-s", serial, "pull", "/sdcard/x/up.bin", str(tmp_path / "down.bin")).returncode == 0
        )
        assert (tmp_path / "down.bin").read_bytes() == payload
        assert server.adb("-s", serial, "emu", "ping").stdout.startswith("I am alive!")
    finally:
        sim.stop()
        stop_adb_server(server)
