"""Run one command line, or one script, in the sim and in the oracle, and say how they differ."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.unit.shellkit import ShellDevice

SIM_DIR = "/data/local/tmp"


@dataclass(frozen=True)
class Outcome:
    status: int
    out: bytes
    err: bytes


def in_sim(sim: ShellDevice, line: str, files: dict[str, bytes]) -> Outcome:
    for name, data in files.items():
        sim.host(f"{SIM_DIR}/{name}").write_bytes(data)
    r = sim.run(f"cd {SIM_DIR} && {line}", timeout=60)
    return Outcome(r.status, r.out, r.err)


def in_toybox(oracles: Path, workdir: Path, line: str, files: dict[str, bytes]) -> Outcome:
    """`line` under the oracle's mksh with only toybox's commands on PATH (as on a device)."""
    for name, data in files.items():
        (workdir / name).write_bytes(data)
    env = {"PATH": str(oracles / "bin"), "HOME": "/", "TZ": "UTC", "LANG": "C.UTF-8"}
    done = subprocess.run(
        [str(oracles / "mksh"), "-c", line],
        cwd=workdir,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    bin_dir = str(oracles / "bin") + "/"
    err = done.stderr.replace(str(oracles / "mksh").encode(), b"/system/bin/sh")
    return Outcome(done.returncode, done.stdout.replace(bin_dir.encode(), b"/system/bin/"),
                   err.replace(bin_dir.encode(), b"/system/bin/"))  # fmt: skip


def differences(pairs: list[tuple[str, Outcome, Outcome]], most: int = 5) -> str:
    """The first differing lines, for an assertion message."""
    shown = [f"{line!r}\n  oracle {want}\n  sim    {got}" for line, want, got in pairs[:most]]
    return f"{len(pairs)} differ:\n" + "\n".join(shown)
