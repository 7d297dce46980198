"""The watchdog's footprint: every farm runs one for its whole life, so what it imports is memory the
farm holds (~5 MiB for the interpreter, each module on top). It loads what its passes need only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mgfarm.farm.health import in_threads

ROOT = Path(__file__).resolve().parents[2]

# What `python -m mgfarm.farm.health NAME` holds before its first pass on a process farm: the
# module and the farm's backend, as `backend_of` builds it.
PROBE = """
import json, sys
import mgfarm.farm.health as health
from mgfarm.farm.state import FarmState
health.backend_of(FarmState(name="probe", backend="process", adb_server_port=5037, snapshot=""))
print(json.dumps(sorted(sys.modules)))
"""

MGFARM_MODULES = {
    "mgfarm",
    "mgfarm.errors",
    "mgfarm.adb",
    "mgfarm.adb.binary",
    "mgfarm.adb.console",
    "mgfarm.adb.errors",
    "mgfarm.adb.server",
    "mgfarm.adb.wire",
    "mgfarm.farm",
    "mgfarm.farm.backends",
    "mgfarm.farm.backends.base",
    "mgfarm.farm.backends.process",
    "mgfarm.farm.health",
    "mgfarm.farm.procs",
    "mgfarm.farm.profiles",
    "mgfarm.farm.state",
}

# Each of these once made the watchdog larger (or would): its restores' and other backends' code,
# the CLI's libraries, and stdlib packages it has no use for between restores.
HEAVY = {
    "mgfarm.device",
    "mgfarm.farm.boot",
    "mgfarm.farm.frames",
    "mgfarm.farm.ports",
    "mgfarm.farm.images",
    "mgfarm.farm.backends.docker",
    "mgfarm.farm.backends.existing",
    "mgfarm.farm.api",
    "mgfarm.adb.shell",
    "argparse",
    "concurrent.futures",
    "typing",
    "importlib.abc",
    "importlib.resources",
    "tempfile",
    "hashlib",
    "secrets",
    "random",
    "logging",
    "traceback",
    "ctypes",
    "asyncio",
    "email",
    "http.client",
    "docker",
    "requests",
    "yaml",
    "pydantic",
    "click",
    "typer",
    "rich",
    "numpy",
    "PIL",
    "grpc",
}


def watchdog_modules() -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out))


def test_the_watchdog_imports_only_what_its_passes_need() -> None:
    modules = watchdog_modules()
    assert {m for m in modules if m.split(".")[0] == "mgfarm"} == MGFARM_MODULES
    assert modules & HEAVY == set()


def test_in_threads_keeps_the_order_and_raises_the_first_error() -> None:
    assert in_threads(lambda n: n * n, list(range(50)), 8) == [n * n for n in range(50)]
    assert in_threads(lambda n: n, [], 8) == []

    def fails_on_seven(n: int) -> int:
        if n == 7:
            raise ValueError("seven")
        return n

    with pytest.raises(ValueError, match="seven"):
        in_threads(fails_on_seven, list(range(20)), 4)
