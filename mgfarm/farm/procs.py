"""Daemonised helper processes: start detached, check, stop; never touch a pid that is not ours."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import time
from pathlib import Path


def spawn_daemon(argv: list[str], log: Path, env: dict[str, str] | None = None) -> int:
    """Start `argv` in its own session with output appended to `log`; returns its pid.

    A new session keeps it alive when the CLI (and its terminal) goes away.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env={**os.environ, **(env or {})},
        )
    return proc.pid


def _reap(pid: int) -> None:
    """Collect `pid` if it is our exited child, so it does not linger as a zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def pid_alive(pid: int) -> bool:
    """True when `pid` runs and is not a zombie."""
    if pid <= 0:
        return False
    _reap(pid)
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[-1].split()
    except OSError:
        return False
    return bool(fields) and fields[0] not in ("Z", "X")


def is_ours(pid: int, marker: str = "mgfarm") -> bool:
    """True when `pid` is alive and its command line mentions `marker` (guards against pid reuse)."""
    if not pid_alive(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return marker.encode() in cmdline


def stop_pids(pids: list[int], marker: str = "mgfarm", grace: float = 5.0) -> list[int]:
    """SIGTERM our pids, SIGKILL what survives `grace` seconds; returns pids still alive after that."""
    mine = [pid for pid in pids if is_ours(pid, marker)]
    for pid in mine:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid_alive(p) for p in mine):
        time.sleep(0.05)
    for pid in mine:
        if pid_alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and any(pid_alive(p) for p in mine):
        time.sleep(0.05)
    return [pid for pid in mine if pid_alive(pid)]


def memory_kib(pid: int) -> int:
    """Proportional set size of `pid` in KiB (shared pages split fairly), RSS when PSS is unknown."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            values[parts[0][:-1]] = int(parts[1])
    return values.get("Pss", values.get("Rss", 0))


def sim_workers_under(folder: Path) -> list[int]:
    """Our live `mgfarm.sim serve` processes whose data folder (`--data`) lies under `folder`.

    What `down` stops besides the workers its state lists: one the state lost track of must not
    keep serving (and holding its adb transport) after its farm is gone.
    """
    prefix = f"{folder}/"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != os.geteuid():
                continue
            args = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        serve = args[1:4] == ["-m", "mgfarm.sim", "serve"]
        data = [b for a, b in itertools.pairwise(args) if a == "--data"]
        if serve and data and data[0].startswith(prefix) and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found
