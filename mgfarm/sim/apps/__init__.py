"""Apps of the simulated device: every module here that defines an `App` subclass is installed at boot."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import TYPE_CHECKING

from mgfarm.sim.apps.base import App

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

NOT_APPS = {"base", "widgets"}


def discover() -> list[type[App]]:
    """App classes of this package's modules, sorted by package name (adding an app touches no other file)."""
    found: list[type[App]] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in NOT_APPS or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, App) and value.__module__ == module.__name__:
                found.append(value)
    return sorted(found, key=lambda cls: cls.package)


def install_apps(device: SimDevice) -> None:
    """Install and seed every app, register its packages, then go home."""
    from mgfarm.sim.system.packages import PackageInfo

    apps, packages = device.services.apps, device.services.packages
    # A provider package can hold several apps' data (contacts2.db and calllog.db): `pm clear` on it
    # must let each of them re-create its schema.
    provider_hooks: dict[str, list[Callable[[], None]]] = {}
    for cls in discover():
        app = cls(device)
        apps[app.package] = app
        if packages is not None:
            packages.add(
                PackageInfo(
                    app.package,
                    apk_path=apk_path(app.label),
                    system=True,
                    label=app.label,
                    version_name=app.version_name,
                    activities=sorted(app.activities),
                    on_clear=app.make_data,
                )
            )
            for extra in app.provider_packages:
                hooks = provider_hooks.setdefault(extra, [])
                hooks.append(app.make_data)
                packages.add(
                    PackageInfo(
                        extra,
                        apk_path=apk_path(extra.rsplit(".", 1)[-1].title() + "Provider"),
                        system=True,
                        on_clear=_run_all(hooks),
                    )
                )
        app.install()
    device.services.activities.home()


def app_for(device: SimDevice, role: str) -> App | None:
    """The installed app playing `role` (clock, contacts, dialer, files) under the device's profile."""
    from mgfarm.sim.system.profiles import package_of

    return device.services.apps.get(package_of(device.config.profile, role))


def apk_path(label: str) -> str:
    name = label.replace(" ", "")
    return f"/system/priv-app/{name}/{name}.apk"


def _run_all(hooks: list[Callable[[], None]]) -> Callable[[], None]:
    def run() -> None:
        for hook in hooks:
            hook()

    return run
