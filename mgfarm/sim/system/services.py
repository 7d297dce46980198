"""The system services a device has before any app: settings, packages, providers, clock, modem, windows.

`start_services` makes them, once per boot; everything else reaches them as typed attributes of
`device.services`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mgfarm.sim.system.activities import ActivityManager
from mgfarm.sim.system.clipboard import Clipboard
from mgfarm.sim.system.clock import Clock
from mgfarm.sim.system.logs import LogBuffer
from mgfarm.sim.system.media import MediaStore
from mgfarm.sim.system.packages import PackageManager
from mgfarm.sim.system.providers import ProviderRegistry, Route, SettingsProvider
from mgfarm.sim.system.settings import NAMESPACES, SETTINGS_DB, SettingsStore
from mgfarm.sim.system.telephony import Telephony
from mgfarm.sim.system.windows import WindowManager

if TYPE_CHECKING:
    from mgfarm.sim.apps.base import App
    from mgfarm.sim.device import SimDevice


class Stateful(Protocol):
    """A service whose in-memory state a snapshot saves and restores."""

    def export_state(self) -> dict[str, Any]: ...

    def import_state(self, state: dict[str, Any]) -> None: ...


@dataclass
class Services:
    """One device's system services."""

    settings: SettingsStore
    packages: PackageManager
    providers: ProviderRegistry
    clock: Clock
    logs: LogBuffer
    telephony: Telephony
    activities: ActivityManager
    window: WindowManager
    clipboard: Clipboard
    apps: dict[str, App] = field(default_factory=dict)  # installed apps by package, filled by install_apps

    def stateful(self) -> dict[str, Stateful]:
        """The services with in-memory state, by the names snapshots file them under, in restore order."""
        return {
            "packages": self.packages,
            "clock": self.clock,
            "telephony": self.telephony,
            "activities": self.activities,
            "window": self.window,
            "clipboard": self.clipboard,
        }


def start_services(device: SimDevice) -> Services:
    """Create the settings and media databases and every system service (the filesystem exists)."""
    settings = SettingsStore(device.fs.host(SETTINGS_DB), on_write=device.changed, space=device.fs.space)
    settings.create()
    providers = ProviderRegistry()
    # `content query --uri content://settings/global` works on a real device too.
    routes = {ns: Route(ns) for ns in NAMESPACES}
    providers.register(
        "settings", SettingsProvider("settings", lambda: device.fs.host(SETTINGS_DB), routes, device.fs.space)
    )
    media = MediaStore(device)
    media.create()
    providers.register("media", media)
    return Services(
        settings=settings,
        packages=PackageManager(device),
        providers=providers,
        clock=Clock(),
        logs=LogBuffer(device),
        telephony=Telephony(device),
        activities=ActivityManager(device),
        window=WindowManager(device),
        clipboard=Clipboard(),
    )
