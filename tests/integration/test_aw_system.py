"""AndroidWorld's Settings tasks (Wi-Fi, Bluetooth, brightness, their Verify forms and the two
composite ones) and SystemCopyToClipboard, unchanged, on a simulated device: set up, 0.0 untouched
(1.0 for a Verify task, whose goal is its precondition), 1.0 after a UI-only solution, torn down.
The text to copy exists only in the goal, so the solution types it into a new Markor note, long-presses
it, Select all, Copy (AndroidWorld reads the clipboard back through Clipper)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mgfarm.suites.androidworld import registry
from tests.integration.aw_apps import BOUNDS, AwDevice, aw_device, run_task

__all__ = ["aw_device"]

NO_NETWORKS = "To see available networks, turn Wi-Fi on."


def settings_page(dev: AwDevice, row: str) -> None:
    dev.launch("settings")
    dev.phone.tap(text=row)


def set_wifi(dev: AwDevice, on: bool) -> None:
    """Network & internet > Internet, flip the Wi-Fi switch when the screen shows the other state."""
    settings_page(dev, "Network & internet")
    dev.phone.tap(text="Internet")
    if dev.phone.has(NO_NETWORKS) == on:
        dev.phone.tap(rid="android:id/switch_widget")


def set_bluetooth(dev: AwDevice, on: bool) -> None:
    """Connected devices, flip Bluetooth when its subtitle says the other state."""
    settings_page(dev, "Connected devices")
    if dev.phone.has("On") != on:
        dev.phone.tap(rid="android:id/switch_widget")


def wifi(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    set_wifi(dev, raw["on_or_off"] == "on")


def bluetooth(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    set_bluetooth(dev, raw["on_or_off"] == "on")


def brightness(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Display, then tap the slider's far end (max) or near end (min)."""
    settings_page(dev, "Display")
    node = dev.phone.node(rid="com.android.settings:id/slider")
    m = BOUNDS.fullmatch(node["bounds"])
    assert m, node
    x0, y0, x1, y1 = (int(v) for v in m.groups())
    x = x1 - 2 if raw["max_or_min"] == "max" else x0 + 2
    dev.phone.sh(f"input tap {x} {(y0 + y1) // 2}")


def wifi_off_bluetooth_on(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    set_wifi(dev, False)
    set_bluetooth(dev, True)


def wifi_on_open_app(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    set_wifi(dev, True)
    dev.launch(raw["app_name"])


def copy_to_clipboard(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    markor = "net.gsantner.markor:id/"
    dev.launch("markor")
    dev.phone.tap(desc="Create a new file or folder")
    dev.type_into(f"clip{time.time_ns()}", rid=markor + "new_file_dialog__name")  # a name not taken
    dev.phone.tap(text="OK")
    editor = markor + "document__fragment__edit__highlighting_editor"
    dev.type_into(str(raw["clipboard_content"]), rid=editor)
    dev.long_press(rid=editor)
    dev.phone.tap(text="Select all")
    dev.phone.tap(text="Copy")


TASKS = [
    ("SystemCopyToClipboard", copy_to_clipboard),
    *[(f"SystemWifiTurn{s}", wifi) for s in ("Off", "On", "OffVerify", "OnVerify")],
    *[(f"SystemBluetoothTurn{s}", bluetooth) for s in ("Off", "On", "OffVerify", "OnVerify")],
    *[(f"SystemBrightness{s}", brightness) for s in ("Max", "Min", "MaxVerify", "MinVerify")],
]
COMPOSITE = [
    ("TurnOffWifiAndTurnOnBluetooth", wifi_off_bluetooth_on),
    ("TurnOnWifiAndOpenApp", wifi_on_open_app),
]


def run_verify(device: AwDevice, cls: Any, solve: Any) -> None:
    """A Verify task: 1.0 right after set-up (its goal is its precondition) and still 1.0 after the
    solution looked and left the setting as it was."""
    raw = cls.generate_random_params()
    task = cls(dict(raw))
    task.initialize_task(device.env)
    try:
        assert task.is_successful(device.env) == 1.0
        device.phone.home()
        solve(device, task, raw)
        assert task.is_successful(device.env) == 1.0, task.goal
    finally:
        task.tear_down(device.env)


@pytest.mark.parametrize(("name", "solve"), TASKS + COMPOSITE, ids=[n for n, _ in TASKS + COMPOSITE])
def test_system_task(aw_device: AwDevice, name: str, solve: Any) -> None:
    cls = registry()[name]
    if name.endswith("Verify"):
        run_verify(aw_device, cls, solve)
    else:
        run_task(aw_device, cls, 3, solve)
