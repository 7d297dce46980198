"""System properties (`getprop`/`setprop`)."""

from __future__ import annotations


def default_props(name: str, width: int, height: int, density: int) -> dict[str, str]:
    """Properties of a freshly booted simulated device, shaped like an API 34 emulator's."""
    return {
        "ro.product.name": "mgfarm_sim",
        "ro.product.model": "mgfarm_sim_x86_64",
        "ro.product.device": "mgfarm_sim",
        "ro.product.brand": "mgfarm",
        "ro.product.manufacturer": "mgfarm",
        "ro.product.cpu.abi": "x86_64",
        "ro.product.cpu.abilist": "x86_64",
        "ro.build.version.sdk": "34",
        "ro.build.version.release": "14",
        "ro.build.type": "userdebug",
        "ro.build.tags": "dev-keys",
        "ro.build.id": "MGFARM.SIM.1",
        "ro.build.fingerprint": "mgfarm/mgfarm_sim/mgfarm_sim:14/MGFARM.SIM.1/1:userdebug/dev-keys",
        "ro.debuggable": "1",
        "ro.secure": "0",
        "ro.kernel.qemu": "1",
        "ro.boot.qemu.avd_name": name,
        "ro.sf.lcd_density": str(density),
        "ro.mgfarm.screen": f"{width}x{height}",
        "persist.sys.timezone": "UTC",
        "persist.sys.locale": "en-US",
        "service.adb.root": "1",
        "sys.boot_completed": "0",
        "dev.bootcomplete": "0",
        "init.svc.bootanim": "running",
    }


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
