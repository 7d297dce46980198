"""The backend registry: each way of running devices is one `Backend` class registered by name.

Adding a backend means adding its module (a `Backend` subclass, see `base.py`) and one line in
`_MODULES`; `mgfarm up --backend NAME`, the watchdog, `down` and snapshot builds then use it.

A backend's module is imported when that backend is asked for, not with this package: the watchdog
of a process farm must not hold the docker client and image code of the other backends.
"""

from __future__ import annotations

import importlib

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends.base import Backend, UpFlags, check_storage

# name -> (module, class); the order is the one `--backend` lists.
_MODULES: dict[str, tuple[str, str]] = {
    "process": ("mgfarm.farm.backends.process", "ProcessBackend"),
    "docker": ("mgfarm.farm.backends.docker", "DockerBackend"),
    "emulator": ("mgfarm.farm.backends.emulator", "EmulatorBackend"),
    "existing": ("mgfarm.farm.backends.existing", "ExistingBackend"),
}

BACKEND_NAMES: tuple[str, ...] = tuple(_MODULES)
DEFAULT_BACKEND = "process"

__all__ = [
    "BACKENDS",
    "BACKEND_NAMES",
    "DEFAULT_BACKEND",
    "Backend",
    "UpFlags",
    "backend_class",
    "check_storage",
    "get_backend",
]


def backend_class(name: str) -> type[Backend]:
    """The backend registered as `name` (its module imported now); one sentence listing the choices
    for any other name."""
    if name not in _MODULES:
        raise MgfarmError(f"Unknown backend {name!r}; use one of: {', '.join(BACKEND_NAMES)}.")
    module, cls = _MODULES[name]
    found: type[Backend] = getattr(importlib.import_module(module), cls)
    return found


def get_backend(name: str, **options: object) -> Backend:
    """The backend called `name`, built from its options (those `options()` made, kept in the state file)."""
    return backend_class(name)(**options)  # each class takes its own options


def __getattr__(name: str) -> dict[str, type[Backend]]:
    """`BACKENDS`, name -> class of every backend, imports them all (the CLI's help, tests)."""
    if name == "BACKENDS":
        return {backend: backend_class(backend) for backend in BACKEND_NAMES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
