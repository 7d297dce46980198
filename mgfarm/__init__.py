"""mgfarm: a farm of verifiable, resettable Android devices for mobile GUI agents.

`import mgfarm` registers Gymnasium ids: `gymnasium.make("mgfarm/<task_id>", farm=...)` for every
template of the catalog, `gymnasium.make("mgfarm/Task-v0", task_id=...)` for any, and
`gymnasium.make_vec(id, num_envs=N)` for a `MobileVectorEnv`.
"""

from __future__ import annotations

__version__ = "0.1.0"

import importlib
import importlib.machinery
import os
import re
import sys
import warnings
from pathlib import Path
from types import ModuleType

# Neither `typing` nor `importlib.abc` (which loads importlib.resources, tempfile, shutil, random):
# every process of a farm imports this package, the long-lived watchdog among them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mgfarm.device import Device
    from mgfarm.env.pool import EnvPool
    from mgfarm.vector import MobileVectorEnv, make_vec
    from mgfarm.wrappers import make

# Lazy exports keep `import mgfarm` fast: adbutils, gymnasium and numpy load on first use.
_LAZY = {
    "Device": "mgfarm.device",
    "make": "mgfarm.wrappers",
    "EnvPool": "mgfarm.env.pool",
    "MobileVectorEnv": "mgfarm.vector",
    "make_vec": "mgfarm.vector",
}

__all__ = ["Device", "EnvPool", "MobileVectorEnv", "__version__", "make", "make_vec", "register_envs"]

GENERIC_ID = "mgfarm/Task-v0"
_CATALOG = Path(__file__).resolve().parent / "catalog" / "tasks"
_TASK_ID_LINE = re.compile(r"^- id:\s*[\"']?([\w.:-]+)", re.MULTILINE)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'mgfarm' has no attribute {name!r}")


def _task_ids() -> list[str]:
    """Template ids of the catalog and of $MGFARM_TASKS, from their `- id:` lines.

    A line scan, not the catalog loader: it runs on import, where parsing and validating every
    template would cost ~0.7 s. An id it misses is still reachable through `mgfarm/Task-v0`.
    """
    folders = [_CATALOG, *(Path(p) for p in os.environ.get("MGFARM_TASKS", "").split(os.pathsep) if p)]
    ids: list[str] = []
    for folder in folders:
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            ids += _TASK_ID_LINE.findall(path.read_text(encoding="utf-8", errors="replace"))
    return ids


def register_envs(registration: ModuleType | None = None) -> None:
    """Register the `mgfarm/...` Gymnasium ids (again: call it after pointing $MGFARM_TASKS elsewhere)."""
    if registration is None:
        registration = importlib.import_module("gymnasium.envs.registration")
    entry, vector_entry = "mgfarm.wrappers:make", "mgfarm.vector:make_vec"
    registry = registration.registry
    ids = [(GENERIC_ID, {}), *((f"mgfarm/{t}", {"task_id": t}) for t in _task_ids())]
    for env_id, kwargs in ids:
        if env_id not in registry:
            registration.register(env_id, entry_point=entry, vector_entry_point=vector_entry, kwargs=kwargs)


class _RegisterWhenGymnasiumLoads:
    """Registers the ids right after Gymnasium's registry module is first imported (a meta path
    finder: `find_spec` is all `sys.meta_path` asks of one).

    Importing Gymnasium here would add ~0.3 s (numpy) to every `mgfarm` CLI command, most of which
    never use it; waiting for the user's own `import gymnasium` costs nothing.
    """

    NAME = "gymnasium.envs.registration"

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.NAME:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader: Any = spec.loader
        run_module = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            try:
                register_envs(module)
            except Exception as exc:  # never break the user's `import gymnasium`
                warnings.warn(f"mgfarm could not register its Gymnasium ids: {exc}", stacklevel=2)

        loader.exec_module = exec_module
        return spec


if "gymnasium.envs.registration" in sys.modules:
    register_envs(sys.modules["gymnasium.envs.registration"])
elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
