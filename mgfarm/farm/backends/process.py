"""Process backend: simulated devices in a few daemonised `mgfarm sim serve` workers on this host.

Each worker hosts a run of replicas on consecutive port pairs; the number of workers follows the
core count because one asyncio loop per core is what the CPU can drive.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

from mgfarm.farm import procs
from mgfarm.farm.ports import consecutive_runs
from mgfarm.farm.state import FarmState, Replica, Worker


class ProcessBackend:
    """Runs replicas as `python -m mgfarm.sim serve` worker processes."""

    name = "process"
    shared_snapshots = True  # every worker gets the farm's snapshots/ folder

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1

    def _chunks(self, replicas: list[Replica]) -> list[list[Replica]]:
        """Group replicas into at most ~`self.workers` workers of consecutive port pairs."""
        size = max(1, math.ceil(len(replicas) / self.workers))
        by_port = {r.console_port: r for r in replicas}
        pairs = sorted((r.console_port, r.adb_port) for r in replicas)
        chunks: list[list[Replica]] = []
        for run in consecutive_runs(pairs):
            for i in range(0, len(run), size):
                chunks.append([by_port[console] for console, _ in run[i : i + size]])
        return chunks

    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        token_file = farm_dir / "console_token"
        for chunk in self._chunks(replicas):
            first = chunk[0]
            tag = f"r{first.index}-n{len(chunk)}-{time.monotonic_ns()}"
            log = farm_dir / "logs" / f"worker-{tag}.log"
            argv = [
                sys.executable,
                "-m",
                "mgfarm.sim",
                "serve",
                "--adb-port",
                str(first.adb_port),
                "--count",
                str(len(chunk)),
                "--data",
                str(farm_dir / "data" / tag),
                "--snapshots",
                str(farm_dir / "snapshots"),
                "--token-file",
                str(token_file),
                "--announce",
                str(farm.adb_server_port),
            ]
            pid = procs.spawn_daemon(argv, log)
            farm.workers = [w for w in farm.workers if not set(w.replicas) & {r.index for r in chunk}]
            farm.workers.append(Worker(pid=pid, replicas=[r.index for r in chunk], log=str(log)))
            for rep in chunk:
                rep.backend_id = f"pid:{pid}"
                rep.started_at = time.time()

    def _worker(self, farm: FarmState, rep: Replica) -> Worker | None:
        for worker in farm.workers:
            if rep.index in worker.replicas:
                return worker
        return None

    def alive(self, farm: FarmState, rep: Replica) -> bool:
        worker = self._worker(farm, rep)
        return worker is not None and procs.pid_alive(worker.pid)

    def kill(self, farm: FarmState, rep: Replica) -> None:
        """Stop one replica: its whole worker when it is alone there, else just drop it from the worker.

        A replica sharing a worker is stopped through its console by the caller (`kill`), which
        frees its ports while the worker keeps serving the others.
        """
        worker = self._worker(farm, rep)
        if worker is None:
            return
        worker.replicas.remove(rep.index)
        if not worker.replicas:
            procs.stop_pids([worker.pid])
            farm.workers.remove(worker)

    def stop_all(self, farm: FarmState) -> list[str]:
        left = procs.stop_pids([w.pid for w in farm.workers])
        return [f"worker process {pid}" for pid in left]

    def logs(self, farm: FarmState, rep: Replica, farm_dir: Path, tail: int) -> str:
        worker = self._worker(farm, rep)
        logs = [Path(worker.log)] if worker else []
        if not logs:
            return ""
        lines = logs[0].read_text(errors="replace").splitlines() if logs[0].exists() else []
        return "\n".join(lines[-tail:])

    def memory_kib(self, farm: FarmState) -> int:
        return sum(procs.memory_kib(w.pid) for w in farm.workers if procs.pid_alive(w.pid))
