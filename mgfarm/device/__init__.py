"""One device: adbutils + console client + uiautomator2; actions; observations."""

from mgfarm.device.device import Device, DeviceError, ShellResult
from mgfarm.device.ui import UIElement

__all__ = ["Device", "DeviceError", "ShellResult", "UIElement"]
