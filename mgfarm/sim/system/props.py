"""System properties (`getprop`/`setprop`), as the google_apis x86_64 Android 13 emulator reports them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

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
