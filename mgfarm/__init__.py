"""mgfarm: a farm of verifiable, resettable Android devices for mobile GUI agents."""

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mgfarm.device import Device
    from mgfarm.env.env import make
    from mgfarm.env.pool import EnvPool

# Lazy exports keep `import mgfarm` fast: adbutils, gymnasium and numpy load on first use.
_LAZY = {"Device": "mgfarm.device", "make": "mgfarm.env.env", "EnvPool": "mgfarm.env.pool"}

__all__ = ["Device", "EnvPool", "__version__", "make"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'mgfarm' has no attribute {name!r}")
