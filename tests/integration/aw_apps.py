"""One simulated device under AndroidWorld's own env, and a driver that solves tasks through the UI only.

Used by the tests/integration/test_aw_<app>.py modules: AndroidWorld (from $MGFARM_ANDROID_WORLD,
through tests/compat/androidworld.py) initialises and judges each task; the solution finds its
targets in `uiautomator dump` and acts with `input`, never by writing the app's data.
"""

from __future__ import annotations

import os
import random
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.compat import androidworld
from tests.integration.conftest import AdbServer, SimProcess
from tests.integration.phone_driver import Phone

BOUNDS = re.compile(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]")


@dataclass
class AwDevice:
    """AndroidWorld's AsyncAndroidEnv and a UI driver on the same simulated device."""

    env: Any
    phone: Phone

    def launch(self, app_name: str) -> None:
        """Open an app as AndroidWorld's `open_app` action does."""
        from android_world.env import adb_utils

        adb_utils.launch_app(app_name, self.env.controller)

    def long_press(self, **sel: str) -> None:
        x, y = self.center(**sel)
        self.phone.sh(f"input swipe {x} {y} {x} {y} 800")

    def center(self, **sel: str) -> tuple[int, int]:
        node = self.phone.node(sel.get("text"), sel.get("desc"), sel.get("rid"))
        m = BOUNDS.fullmatch(node["bounds"])
        assert m, node
        x0, y0, x1, y1 = (int(v) for v in m.groups())
        return (x0 + x1) // 2, (y0 + y1) // 2

    def type_into(self, value: str, **sel: str) -> None:
        """Tap a field, type, and hide the keyboard (BACK only closes the IME while it is up)."""
        self.phone.tap(sel.get("text"), sel.get("desc"), sel.get("rid"))
        for i, line in enumerate(value.split("\n")):
            if i:
                self.phone.key("KEYCODE_ENTER")
            if line:
                self.phone.sh("input text " + shlex.quote(line.replace(" ", "%s")))
        self.phone.key("KEYCODE_BACK")

    def texts(self, rid: str) -> list[str]:
        import xml.etree.ElementTree as ET

        return [
            el.attrib["text"]
            for el in ET.fromstring(self.phone.dump()).iter("node")
            if el.attrib["resource-id"] == rid
        ]

    def scroll_down(self) -> None:
        self.phone.sh("input swipe 540 1800 540 900 400")


def run_task(device: AwDevice, cls: type, seed: int, solve: Any, opened: str = "") -> None:
    """AndroidWorld's own check of a task: initialise, 0.0 untouched, solve by UI, 1.0, tear down.
    `opened`: an app to open once before the untouched check, for a task whose judge reads a file
    that the app only re-creates when it runs."""
    random.seed(seed)
    params = cls.generate_random_params()  # type: ignore[attr-defined]
    raw = dict(params)
    task = cls(params)
    task.initialize_task(device.env)
    try:
        if opened:
            device.launch(opened)
            device.phone.dump()  # its first screen drawn
        assert task.is_successful(device.env) == 0.0
        device.phone.home()
        solve(device, task, raw)
        assert task.is_successful(device.env) == 1.0, task.goal
    finally:
        task.tear_down(device.env)


@pytest.fixture(scope="module")
def aw_device(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AwDevice]:
    if androidworld.android_world_source() is None:
        pytest.skip(f"set {androidworld.ENV_VAR} to an AndroidWorld checkout to run AndroidWorld's tasks")
    pytest.importorskip("android_env", reason="android-env is not installed (pip install -e '.[compat]')")
    work: Path = tmp_path_factory.mktemp("aw")
    androidworld.prepare_android_world(work)
    sim = SimProcess(adb_server, work, 1)
    old_home = os.environ.get("HOME")
    try:
        handle = sim.wait_ready()[0]
        os.environ["HOME"] = str(adb_server.home)  # AndroidWorld's adb calls find the console token here
        env = androidworld.async_env(str(adb_server.binary), adb_server.port, handle.serial)
        yield AwDevice(env, Phone(adb_server.client().device(handle.serial)))
    finally:
        if old_home is not None:
            os.environ["HOME"] = old_home
        sim.stop()
