"""Cold start of one simulated device: a fresh `python -m mgfarm.sim serve` worker until it says `ready`.

    .venv/bin/python benchmarks/bench_coldstart.py [--runs 5] [--bytecode] [--grpc]

Each run starts a worker on free ports (sandboxed as a farm runs it, no adb server) and reads its
stdout until the `ready` line; it prints the wall time to that line and the worker's CPU time
(user + system, from /proc) at that moment: on a busy machine the CPU time is the steadier figure.
Python compiles every module it has no cached bytecode for; with PYTHONDONTWRITEBYTECODE set (as in
some CI and container images) every worker pays that. `--bytecode` lets the workers cache bytecode
in a temporary PYTHONPYCACHEPREFIX (one unmeasured run fills it), as an installed package has; those
workers run without the sandbox, whose Landlock rules would hide that folder.
`--grpc` serves the emulator gRPC API too, as `mgfarm up` does by default.
Compare two checkouts by running this file from each, alternately. Prints medians and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile  # noqa: E402
from mgfarm.farm.ports import quiet_range_start  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (fields 14 and 15 of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_once(
    env: dict[str, str], workdir: Path, sandbox: bool = True, grpc: bool = False
) -> dict[str, float]:
    """Start one worker, wait for `ready`, stop it; wall and CPU seconds to ready."""
    console = quiet_range_start(1)
    token = workdir / "token"
    token.write_text("bench")
    data = Path(tempfile.mkdtemp(dir=workdir))
    argv = [
        *(sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(console + 1)),
        *("--data", str(data), "--token-file", str(token)),
        *([] if sandbox else ["--no-sandbox"]),
        *(["--grpc", str(quiet_range_start(1))] if grpc else []),
    ]
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        wall = time.perf_counter() - started
        if not line.startswith("ready "):
            raise SystemExit(f"the worker did not start: {line!r}")
        return {"ready_s": wall, "cpu_s": cpu_seconds(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bytecode", action="store_true", help="let workers cache bytecode (a temp prefix)")
    parser.add_argument("--grpc", action="store_true", help="serve the emulator gRPC API, as farms do")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="mgfarm-bench-cold-"))
    os.chmod(workdir, 0o755)  # the sandboxed worker runs as nobody
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")  # every module's, the libraries' too
        start_once(env, workdir, sandbox=False, grpc=args.grpc)  # fills the cache
    load = os.getloadavg()[0]
    rows = [start_once(env, workdir, sandbox=not args.bytecode, grpc=args.grpc) for _ in range(args.runs)]
    medians = {key: percentile([row[key] for row in rows], 0.5) for key in rows[0]}
    mode = (
        "cached bytecode"
        if args.bytecode
        else f"PYTHONDONTWRITEBYTECODE={env.get('PYTHONDONTWRITEBYTECODE', '')}"
    )
    mode += ", gRPC" if args.grpc else ""
    print(f"cold start of one device in {ROOT} ({mode}), median of {args.runs}, load average {load:.1f}:")
    print(f"ready {medians['ready_s']:.2f} s  worker CPU {medians['cpu_s']:.2f} s")
    setup = {"root": str(ROOT), "bytecode": args.bytecode, "grpc": args.grpc, "load": load}
    print(json.dumps({**setup, **medians}))


if __name__ == "__main__":
    main()
