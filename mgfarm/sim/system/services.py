"""Starting the system services a device has before any app: settings, packages, providers, clock, modem."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mgfarm.sim.system.clock import Clock
from mgfarm.sim.system.logs import LogBuffer
from mgfarm.sim.system.media import MediaStore
from mgfarm.sim.system.packages import PackageManager
from mgfarm.sim.system.providers import ProviderRegistry, Route, SettingsProvider
from mgfarm.sim.system.settings import NAMESPACES, SETTINGS_DB, SettingsStore
from mgfarm.sim.system.telephony import Telephony

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice


def start_system_services(device: SimDevice) -> None:
    """Register `settings`, `packages`, `providers`, `clock` and `telephony` in `device.services`."""
    settings = SettingsStore(device.fs.host(SETTINGS_DB), on_write=device.changed)
    settings.create()
    providers = ProviderRegistry()
    # `content query --uri content://settings/global` works on a real device too.
    routes = {ns: Route(ns) for ns in NAMESPACES}
    providers.register("settings", SettingsProvider("settings", lambda: device.fs.host(SETTINGS_DB), routes))
    device.services["settings"] = settings
    device.services["packages"] = PackageManager(device)
    device.services["providers"] = providers
    device.services["clock"] = Clock()
    device.services["logs"] = LogBuffer(device)
    device.services["telephony"] = Telephony(device)
    media = MediaStore(device)
    media.create()
    providers.register("media", media)
