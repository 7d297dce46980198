"""Helpers tests share: the real `mgfarm` CLI in a child process, and polling until a condition holds."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

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
