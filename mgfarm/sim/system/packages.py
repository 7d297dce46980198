"""The package manager: which packages are installed, where their APKs and data live."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

# Packages every stock emulator image has, so `pm list packages` looks like a phone's.
SYSTEM_PACKAGES = (
    ("android", "/system/framework/framework-res.apk"),
    ("com.android.shell", "/system/priv-app/Shell/Shell.apk"),
    ("com.android.systemui", "/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk"),
    ("com.android.providers.settings", "/system/priv-app/SettingsProvider/SettingsProvider.apk"),
    ("com.android.providers.media", "/system/priv-app/MediaProvider/MediaProvider.apk"),
    ("com.android.inputmethod.latin", "/system/app/LatinIME/LatinIME.apk"),
)


@dataclass
class PackageInfo:
    """One installed package. `on_clear` re-creates the app's empty state after `pm clear`."""

    package: str
    apk_path: str = ""  # default: /data/app/<package>-1/base.apk for user apps
    system: bool = False
    label: str = ""
    version_code: int = 1
    version_name: str = "1.0"
    activities: list[str] = field(default_factory=list)  # fully qualified class names
    permissions: set[str] = field(default_factory=set)  # granted runtime permissions
    on_clear: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        if not self.apk_path:
            self.apk_path = f"/data/app/{self.package}-1/base.apk"

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "apk_path": self.apk_path,
            "system": self.system,
            "label": self.label,
            "version_code": self.version_code,
            "version_name": self.version_name,
            "activities": list(self.activities),
            "permissions": sorted(self.permissions),
        }


class PackageManager:
    """Installed packages by name; data folders live at /data/data/<package>."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self._packages: dict[str, PackageInfo] = {}
        # Apps' clear hooks outlive an uninstall, so a snapshot that brings the package back
        # brings back its behaviour too.
        self._hooks: dict[str, Callable[[], None]] = {}
        for name, path in SYSTEM_PACKAGES:
            self.add(PackageInfo(name, path, system=True))

    def add(self, info: PackageInfo) -> None:
        """Register (or replace) a package and make sure its data folder exists."""
        if info.on_clear is None:
            info.on_clear = self._hooks.get(info.package)
        else:
            self._hooks[info.package] = info.on_clear
        self._packages[info.package] = info
        self.device.fs.host(f"/data/data/{info.package}").mkdir(parents=True, exist_ok=True)

    def remove(self, package: str) -> bool:
        """Uninstall: forget the package and delete its data and APK folder."""
        info = self._packages.pop(package, None)
        if info is None:
            return False
        shutil.rmtree(self.device.fs.host(f"/data/data/{package}"), ignore_errors=True)
        if info.apk_path.startswith("/data/app/"):
            shutil.rmtree(self.device.fs.host(info.apk_path).parent, ignore_errors=True)
        return True

    def get(self, package: str) -> PackageInfo | None:
        return self._packages.get(package)

    def all(self) -> list[PackageInfo]:
        return sorted(self._packages.values(), key=lambda p: p.package)

    def path(self, package: str) -> str | None:
        info = self._packages.get(package)
        return None if info is None else info.apk_path

    def clear(self, package: str) -> bool:
        """Wipe /data/data/<package>, then let the app re-create its empty schema."""
        info = self._packages.get(package)
        if info is None:
            return False
        data = self.device.fs.host(f"/data/data/{package}")
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True, exist_ok=True)
        info.permissions.clear()
        if info.on_clear is not None:
            info.on_clear()
        return True

    def export_state(self) -> dict[str, Any]:
        return {"packages": [p.to_dict() for p in self.all()]}

    def import_state(self, state: dict[str, Any]) -> None:
        self._packages = {}
        for raw in state.get("packages", []):
            info = PackageInfo(
                package=raw["package"],
                apk_path=raw["apk_path"],
                system=raw.get("system", False),
                label=raw.get("label", ""),
                version_code=raw.get("version_code", 1),
                version_name=raw.get("version_name", "1.0"),
                activities=list(raw.get("activities", [])),
                permissions=set(raw.get("permissions", [])),
                on_clear=self._hooks.get(raw["package"]),
            )
            self._packages[info.package] = info
