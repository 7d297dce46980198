"""System properties (`getprop`/`setprop`), as the google_apis x86_64 Android 13 emulator reports them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from mgfarm.sim.system.profiles import PROFILES

TABLE = Path(__file__).with_name("props_android13.txt")
# Until `boot` finishes, the device looks like an emulator still showing its boot animation.
BOOTING = {"sys.boot_completed": "0", "dev.bootcomplete": "0", "init.svc.bootanim": "running"}


@cache
def image_props() -> dict[str, str]:
    """The image's table (~600 keys), with `{name}`/`{density}` left for `default_props` to fill."""
    values: dict[str, str] = {}
    for line in TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


# Android 14 (API 34) google_apis x86_64 emulator: what differs from the Android 13 table.
A13_BUILD = ("TE1A.240213.009", "12342917", "Thu Mar 21 00:43:12 UTC 2024", "1710981792")
A14_BUILD = ("UE1A.230829.036.A1", "11228894", "Sat Dec 16 23:01:15 UTC 2023", "1702767675")
A14_FIXED = {
    "ro.build.version.security_patch": "2023-09-05",
    "ro.kernel.version": "6.1",
    "ro.product.cpu.abilist": "x86_64,arm64-v8a",
    "ro.product.cpu.abilist64": "x86_64,arm64-v8a",
    "ro.system.product.cpu.abilist": "x86_64,arm64-v8a",
    "ro.system.product.cpu.abilist64": "x86_64,arm64-v8a",
    "ro.vendor.product.cpu.abilist": "x86_64,arm64-v8a",
    "ro.vendor.product.cpu.abilist64": "x86_64,arm64-v8a",
    "ro.build.version.min_supported_target_sdk": "28",
}


def android14(values: dict[str, str]) -> dict[str, str]:
    """The Android 14 image's properties, derived from the Android 13 table key by key."""
    out = {}
    for key, value in values.items():
        for old, new in zip(A13_BUILD, A14_BUILD, strict=True):
            value = value.replace(old, new)
        value = value.replace("/emu64x:13/", "/emu64xa:14/").replace("-userdebug 13 ", "-userdebug 14 ")
        if value == "emu64x":
            value = "emu64xa"
        if key.endswith(("version.release", "release_or_codename", "release_or_preview_display")):
            value = "14"
        elif key.endswith(("version.sdk", "first_api_level", "vndk.version", "vendor.api_level")):
            value = "34"
        out[key] = value
    out["ro.build.version.known_codenames"] = values["ro.build.version.known_codenames"] + ",UpsideDownCake"
    return out | A14_FIXED


def profile_overrides(profile: str) -> dict[str, str]:
    """What a device profile sets over the default (Android 13) table: a DeviceConfig's extra_props.

    `aosp` is the Android 13 image with AOSP apps: its properties are the default table's.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown device profile '{profile}'; use one of {', '.join(PROFILES)}")
    base = image_props()
    values = android14(base) if profile == "android14" else base
    return {k: v for k, v in values.items() if base.get(k) != v}


def default_props(name: str, width: int, height: int, density: int) -> dict[str, str]:
    """Properties of a freshly booted simulated device: the image's, this device's AVD name and density."""
    del width, height  # the emulator reports its size through `wm size`, not through a property
    values = {
        k: v.replace("{name}", name).replace("{density}", str(density)) for k, v in image_props().items()
    }
    values.update(BOOTING)
    return values


class Props:
    """A property store; `ro.*` keys are write-once like on Android."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)

    def get(self, key: str, default: str = "") -> str:
        return self.values.get(key, default)

    def set(self, key: str, value: str) -> bool:
        """False when a read-only property already has a value (setprop then fails)."""
        if key.startswith("ro.") and self.values.get(key):
            return False
        self.values[key] = value
        return True

    def listing(self) -> str:
        return "".join(f"[{k}]: [{v}]\n" for k, v in sorted(self.values.items()))
