"""Helpers tests share: the real `mgfarm` CLI in a child process, polling until a condition holds, and
a private farm."""

from __future__ import annotations

import os
import random
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
def home_env(home: Path) -> Iterator[None]:
    """MGFARM_HOME set to `home` in this process for the block, then as it was."""
    old = os.environ.get("MGFARM_HOME")
    os.environ["MGFARM_HOME"] = str(home)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("MGFARM_HOME", None)
        else:
            os.environ["MGFARM_HOME"] = old


@contextmanager
def private_farm(home: Path, replicas: int) -> Iterator[FarmState]:
    """A private process farm (`mgfarm.env.runner.farm_for`) under `home` as MGFARM_HOME, stopped after."""
    from mgfarm.env.runner import farm_for

    with home_env(home), farm_for(None, replicas) as state:
        yield state


@contextmanager
def named_farm(home: Path, name: str, replicas: int, columns: int) -> Iterator[dict[str, str]]:
    """A process farm `name` started as `mgfarm up` does, under `home` as MGFARM_HOME, stopped after;
    yields the env a user's shell would have, `columns` wide."""
    from mgfarm.farm import api
    from mgfarm.farm.ports import free_port

    with home_env(home):
        first = random.randrange(20000, 60000, 2)
        api.up(replicas, backend="process", name=name, adb_port=free_port(), first_port=first)
        try:
            yield {**os.environ, "COLUMNS": str(columns)}
        finally:
            api.down(name)


def latest_run(folder: Path) -> Path:
    """The newest run folder under an eval's --out folder."""
    return sorted(p for p in folder.iterdir() if p.is_dir())[-1]


def processes_matching(match: Callable[[bytes], bool]) -> list[int]:
    """Pids of this host's processes whose command line (its NUL-separated bytes) `match` accepts."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if match(cmdline):
                found.append(int(entry.name))
    return found
