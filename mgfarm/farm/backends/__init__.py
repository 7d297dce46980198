"""The backend registry: each way of running devices is one `Backend` class registered by name.

Adding a backend means adding its module (a `Backend` subclass, see `base.py`) and one line in
`BACKENDS`; `mgfarm up --backend NAME`, the watchdog, `down` and snapshot builds then use it.
"""

from __future__ import annotations

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends.base import Backend, UpFlags
from mgfarm.farm.backends.docker import DockerBackend
from mgfarm.farm.backends.emulator import EmulatorBackend
from mgfarm.farm.backends.existing import ExistingBackend
from mgfarm.farm.backends.process import ProcessBackend

BACKENDS: dict[str, type[Backend]] = {
    ProcessBackend.name: ProcessBackend,
    DockerBackend.name: DockerBackend,
    EmulatorBackend.name: EmulatorBackend,
    ExistingBackend.name: ExistingBackend,
}

DEFAULT_BACKEND = ProcessBackend.name

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "Backend", "UpFlags", "backend_class", "get_backend"]


def backend_class(name: str) -> type[Backend]:
    """The backend registered as `name`; one sentence listing the choices for any other name."""
    try:
        return BACKENDS[name]
    except KeyError:
        raise MgfarmError(f"Unknown backend {name!r}; use one of: {', '.join(BACKENDS)}.") from None


def get_backend(name: str, **options: object) -> Backend:
    """The backend called `name`, built from its options (those `options()` made, kept in the state file)."""
    return backend_class(name)(**options)  # each class takes its own options
