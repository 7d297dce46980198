"""Helpers tests share: the real `mgfarm` CLI in a child process, polling until a condition holds, and
a private farm."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mgfarm.farm.state import FarmState

MGFARM = str(Path(sys.executable).parent / "mgfarm")


def run_mgfarm(
    *args: str, timeout: float, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process; without `env` it inherits this one's (MGFARM_HOME included)."""
    return subprocess.run(
        [MGFARM, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout, check=False
    )


def wait_until(predicate: Callable[[], bool], timeout: float, what: str, every: float = 0.2) -> None:
    """Polls `predicate` every `every` seconds; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@contextmanager
def private_farm(home: Path, replicas: int) -> Iterator[FarmState]:
    """A private process farm (`mgfarm.env.runner.farm_for`) under `home` as MGFARM_HOME, stopped after."""
    from mgfarm.env.runner import farm_for

    old = os.environ.get("MGFARM_HOME")
    os.environ["MGFARM_HOME"] = str(home)
    try:
        with farm_for(None, replicas) as state:
            yield state
    finally:
        if old is None:
            os.environ.pop("MGFARM_HOME", None)
        else:
            os.environ["MGFARM_HOME"] = old
