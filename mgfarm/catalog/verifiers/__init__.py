"""The check library the catalog's YAML names: one module per app plus generic checks.

Importing this package imports every module in it; each registers its checks with
`mgfarm.tasks.judge.check`, its app with `declare_app` and its databases with `declare_database`.
"""

from __future__ import annotations

import importlib
import pkgutil


def _import_all() -> None:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


_import_all()
