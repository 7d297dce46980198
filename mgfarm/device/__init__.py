"""One device: adbutils + console client + uiautomator2; actions; observations.

The names below load on first use: the farm's own processes (its watchdog) import small modules of
this package, such as `framebuffer`, and would otherwise carry adbutils, requests and numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mgfarm.device.device import Device, DeviceError, ShellResult
    from mgfarm.device.ui import UIElement

__all__ = ["Device", "DeviceError", "ShellResult", "UIElement"]
_HOMES = {"Device": "device", "DeviceError": "device", "ShellResult": "device", "UIElement": "ui"}


def __getattr__(name: str) -> object:
    if name in _HOMES:
        return getattr(importlib.import_module(f"mgfarm.device.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'mgfarm.device' has no attribute {name!r}")
