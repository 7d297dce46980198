"""Apps the catalog knows by name: label, package per device profile and launcher activity.

The one table is mgfarm/catalog/apps.yaml; `load_apps` reads it into an `AppTable` that the catalog
hands to setup steps, snapshot recipes and (as `launcher_names`) the device's `open_app`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mgfarm.errors import MgfarmError

DEFAULT_PROFILE = "google"  # AndroidWorld's image, and a simulated device's default profile
# A device profile (`mgfarm up --profile`, mgfarm.farm.profiles) -> its column in apps.yaml.
PROFILE_COLUMNS = {"android13": "google", "android14": "google", "aosp": "aosp"}
# Folders named by an app's package: its private data, and its folder in shared storage.
APP_DATA_ROOTS = (
    "/data/data/",
    "/data/user/0/",
    "/sdcard/Android/data/",
    "/storage/emulated/0/Android/data/",
)


@dataclass(frozen=True)
class AppDecl:
    """How to find and launch one app."""

    name: str  # short name used in templates: `contacts`
    label: str  # what the launcher shows: `Contacts`
    packages: dict[str, str]  # device profile -> package; "*" when it is the same on every profile
    activity: str | None = None  # launcher activity, fully qualified or starting with "."
    aliases: tuple[str, ...] = ()

    @property
    def package(self) -> str:
        """The package on the default profile."""
        return self.packages.get(DEFAULT_PROFILE) or next(iter(self.packages.values()))

    def package_on(self, profile: str) -> str:
        """The package on a device of this profile (android13, android14, aosp; '' is the default)."""
        return self.packages.get(PROFILE_COLUMNS.get(profile, DEFAULT_PROFILE)) or self.package

    def candidates(self) -> tuple[str, ...]:
        """Every package the app has on some profile, the default profile's first."""
        return tuple(dict.fromkeys([self.package, *self.packages.values()]))

    def names(self) -> tuple[str, ...]:
        """Every name (lower case) an agent or template may use for it."""
        return tuple(dict.fromkeys(n.lower() for n in (self.name, self.label, *self.aliases)))


@dataclass(frozen=True)
class AppTable:
    """The catalog's apps, by short name."""

    apps: dict[str, AppDecl]

    def __iter__(self) -> Iterator[AppDecl]:
        return iter(self.apps.values())

    def find(self, name: str) -> AppDecl:
        """An app by short name, label, alias (any case) or package."""
        wanted = name.strip().lower()
        for app in self.apps.values():
            if wanted in app.names() or wanted in app.candidates():
                return app
        known = ", ".join(sorted(a.label for a in self.apps.values()))
        raise MgfarmError(f"Unknown app {name!r}; use one of: {known}.")

    def path_on(self, path: str, profile: str) -> str:
        """A device path on a device of `profile`: an app data path declared under an app's default
        package moves to that app's package there (/data/data/com.google.android.deskclock/databases/
        alarms.db is /data/data/com.android.deskclock/databases/alarms.db on aosp); others stay as given.

        Templates and verifiers name app data at the default profile's paths; this is the one place
        that moves them, for setup steps, state capture, checks and adversaries alike.
        """
        for app in self.apps.values():
            package = app.package_on(profile)
            if package == app.package:
                continue
            for root in APP_DATA_ROOTS:
                if path.startswith(f"{root}{app.package}/"):
                    return f"{root}{package}/{path[len(root) + len(app.package) + 1 :]}"
        return path

    def launcher_names(self) -> dict[str, tuple[str, ...]]:
        """Every name of every app (lower case) -> its candidate packages, for the device's `open_app`."""
        return {n: app.candidates() for app in self.apps.values() for n in app.names()}


def launch_command(app: AppDecl, profile: str = "") -> str:
    """The shell command that brings the app's launcher activity up on a device of `profile`."""
    package = app.package_on(profile)
    if app.activity:
        return f"am start -n {package}/{app.activity}"
    return f"monkey -p {package} -c android.intent.category.LAUNCHER 1"


def load_apps(path: Path) -> AppTable:
    """The app table of a YAML list (see mgfarm/catalog/apps.yaml); a bad entry names file and app."""
    data = yaml.safe_load(path.read_text()) or []
    if not isinstance(data, list):
        raise MgfarmError(f"{path}: an app table is a YAML list of apps; start each with `- name: ...`.")
    apps: dict[str, AppDecl] = {}
    for raw in data:
        app = _app(path, raw)
        if app.name in apps:
            raise MgfarmError(f"{path}: app {app.name!r} is declared twice; keep one entry.")
        apps[app.name] = app
    return AppTable(apps)


def _app(path: Path, raw: Any) -> AppDecl:
    if not isinstance(raw, dict) or not raw.get("name") or not raw.get("label"):
        raise MgfarmError(f"{path}: every app needs a name and a label, not {raw!r}.")
    if ("package" in raw) == ("packages" in raw):
        raise MgfarmError(f"{path}: app {raw['name']!r} needs `package` or `packages` (per profile), one.")
    packages = {"*": str(raw["package"])} if "package" in raw else dict(raw["packages"])
    return AppDecl(
        name=str(raw["name"]),
        label=str(raw["label"]),
        packages={str(k): str(v) for k, v in packages.items()},
        activity=raw.get("activity"),
        aliases=tuple(str(a) for a in raw.get("aliases", ())),
    )
