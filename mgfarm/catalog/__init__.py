"""The task catalog shipped with mgfarm: the app table (`apps.yaml`), YAML templates (`tasks/`) and
their checks and app databases (`verifiers/`).

`load_catalog()` builds the `Catalog` object (mgfarm.tasks.catalog) that setup steps, the judge, the
checker, the env and the CLI are handed; importing this package registers nothing.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType

from mgfarm.errors import MgfarmError
from mgfarm.tasks.apps import AppTable, load_apps
from mgfarm.tasks.catalog import Catalog

HERE = Path(__file__).resolve().parent
TASKS_DIR = HERE / "tasks"
APPS_FILE = HERE / "apps.yaml"
VERIFIERS = "mgfarm.catalog.verifiers"


def task_dirs() -> list[Path]:
    """The bundled templates, plus folders named in $MGFARM_TASKS (os.pathsep-separated)."""
    extra = [Path(p) for p in os.environ.get("MGFARM_TASKS", "").split(os.pathsep) if p]
    for folder in extra:
        if not folder.is_dir():
            raise MgfarmError(
                f"$MGFARM_TASKS names {folder}, which is not a folder; fix or unset MGFARM_TASKS."
            )
    return [TASKS_DIR, *extra]


def verifier_modules() -> list[ModuleType]:
    """Every module of the bundled check library, imported here (they register nothing)."""
    package = importlib.import_module(VERIFIERS)
    return [
        importlib.import_module(f"{VERIFIERS}.{info.name}") for info in pkgutil.iter_modules(package.__path__)
    ]


@cache
def bundled_apps() -> AppTable:
    """The app table of apps.yaml: every app declared once."""
    return load_apps(APPS_FILE)


@cache
def _load(dirs: tuple[Path, ...]) -> Catalog:
    return Catalog.build(dirs, verifier_modules(), bundled_apps())


def load_catalog(dirs: Sequence[Path] | None = None) -> Catalog:
    """The bundled apps and checks with the templates of `dirs` (default: the bundled ones and
    $MGFARM_TASKS); built once per set of folders in a process."""
    return _load(tuple(task_dirs() if dirs is None else dirs))
