"""Unit fixtures: simulated devices inside the test process, reached through a real adb server.

`adb_server` (module scope): the private adb server of tests/integration/conftest.py.
`sim_thread` (module scope): a `SimThread` announcing its devices to `adb_server`; `sim_thread.start()`
boots one in about 0.3 s, against about 3 s for a `mgfarm sim serve` worker of the integration tests.
`golden_device` (module scope): one in-process device with the env tests' golden snapshot saved.
`sh`: a booted device of its own, driven in-process through its shell (tests/unit/shellkit.py).
`task_device`: the same, as the judge and the capture see a device (`SimTaskDevice`: shell and pulls).
`measured`: the lengths of the texts FreeType is asked to measure, from an empty width cache.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import ImageFont

from mgfarm.device import Device
from mgfarm.sim.ui import fonts
from tests.integration.conftest import AdbServer, adb_server
from tests.integration.envfarm import prepare_golden
from tests.simhost import SimThread
from tests.unit.shellkit import ShellDevice, SimTaskDevice

__all__ = [
    "adb_server",
    "golden_device",
    "measured",
    "sh",
    "sim_thread",
    "task_device",
]  # the fixtures of tests/unit


@pytest.fixture(scope="module")
def sim_thread(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimThread]:
    token_file = adb_server.home / ".emulator_console_auth_token"  # where `adb emu` reads it too
    token_file.write_text(secrets.token_hex(8))
    sims = SimThread(tmp_path_factory.mktemp("sims"), adb_server.port, token_file)
    try:
        yield sims
    finally:
        sims.close()


@pytest.fixture(scope="module")
def golden_device(adb_server: AdbServer, sim_thread: SimThread) -> Iterator[Device]:
    sim = sim_thread.start()
    dev = Device(sim.serial, adb_port=adb_server.port, console_token=sim.token)
    prepare_golden(dev)
    yield dev
    dev.close()


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    device = ShellDevice(tmp_path)
    yield device
    device.close()


@pytest.fixture
def task_device(tmp_path: Path) -> Iterator[SimTaskDevice]:
    device = SimTaskDevice(tmp_path)
    yield device
    device.sh.close()


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The lengths of the texts FreeType is asked to measure, from an empty width cache."""
    seen: list[int] = []
    real = ImageFont.FreeTypeFont.getlength

    def counting(self: ImageFont.FreeTypeFont, text: str, *args: object, **kwargs: object) -> float:
        seen.append(len(text))
        return real(self, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageFont.FreeTypeFont, "getlength", counting)
    fonts._cached_width.cache_clear()
    yield seen
