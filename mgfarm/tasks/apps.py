"""Apps the catalog knows by name: label -> package and launcher activity (declared by verifier modules)."""

from __future__ import annotations

from dataclasses import dataclass

from mgfarm.errors import MgfarmError


@dataclass(frozen=True)
class AppDecl:
    """How to find and launch one app."""

    name: str  # short name used in templates: `contacts`
    package: str
    activity: str | None  # launcher activity, fully qualified or starting with "."
    label: str  # what the launcher shows: `Contacts`


APPS: dict[str, AppDecl] = {}


def declare_app(name: str, package: str, activity: str | None, label: str) -> None:
    """Register an app so setup steps and oracles can open it by name or label."""
    APPS[name] = AppDecl(name, package, activity, label)


def find_app(name: str) -> AppDecl:
    """An app by short name, label (any case) or package."""
    from mgfarm.tasks.judge import load_verifiers

    load_verifiers()
    wanted = name.strip().lower()
    for app in APPS.values():
        if wanted in (app.name.lower(), app.label.lower(), app.package.lower()):
            return app
    known = ", ".join(sorted(a.label for a in APPS.values()))
    raise MgfarmError(f"Unknown app {name!r}; use one of: {known}.")


def launch_command(app: AppDecl) -> str:
    """The shell command that brings the app's launcher activity to the front."""
    if app.activity:
        return f"am start -n {app.package}/{app.activity}"
    return f"monkey -p {app.package} -c android.intent.category.LAUNCHER 1"
