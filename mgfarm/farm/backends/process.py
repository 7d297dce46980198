"""Process backend: simulated devices in a few daemonised `mgfarm sim serve` workers on this host.

Each worker hosts a run of replicas on consecutive port pairs; the number of workers follows the
core count because one asyncio loop per core is what the CPU can drive.

A worker confines itself (mgfarm.sim.confine): read-write beneath its own data folder, where it
also saves snapshots, and read-only beneath the farm's `snapshots/` folder, which holds the golden
snapshot sealed read-only (files 0444, folders 0555). A golden saved by a fresh device is moved
there by the farm (`publish_snapshot`), never written there by a worker.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

from mgfarm.errors import MgfarmError
from mgfarm.farm import procs
from mgfarm.farm.backends.base import Backend, UpFlags
from mgfarm.farm.state import FarmState, Replica, Worker


def _names(line: str, serial: str) -> bool:
    """Whether a log line is about `serial` (emulator-5586 must not match emulator-55860)."""
    at = line.find(serial)
    while at >= 0:
        end = at + len(serial)
        if end == len(line) or not line[end].isdigit():
            return True
        at = line.find(serial, end)
    return False


class ProcessBackend(Backend):
    """Runs replicas as `python -m mgfarm.sim serve` worker processes."""

    name = "process"
    snapshot_store = "files"  # every worker gets the farm's snapshots/ folder

    def __init__(self, workers: int = 0, grpc: bool = False, storage: str | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.grpc = grpc
        self.storage = storage  # each device's data partition; None: the sim's default (2g)

    @classmethod
    def options(cls, flags: UpFlags) -> dict[str, object]:
        return {"workers": flags.workers, "grpc": flags.grpc, "storage": flags.storage}

    def _chunks(self, replicas: list[Replica]) -> list[list[Replica]]:
        """Group replicas into at most ~`self.workers` workers of consecutive port pairs."""
        from mgfarm.farm.ports import consecutive_runs  # see start

        size = max(1, math.ceil(len(replicas) / self.workers))
        by_port = {r.console_port: r for r in replicas}
        pairs = sorted((r.console_port, r.adb_port) for r in replicas)
        chunks: list[list[Replica]] = []
        for run in consecutive_runs(pairs):
            for i in range(0, len(run), size):
                chunks.append([by_port[console] for console, _ in run[i : i + size]])
        return chunks

    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        # Here, not at the top: a farm's watchdog loads this class for `alive` and starts a worker
        # only when it restores one; the two would cost it ~1.3 MiB all its life.
        from mgfarm.device import framebuffer
        from mgfarm.farm import frames

        token_file = farm_dir / "console_token"
        for chunk in self._chunks(replicas):
            first = chunk[0]
            tag = f"r{first.index}-n{len(chunk)}-{time.monotonic_ns()}"
            log = farm_dir / "logs" / f"worker-{tag}.log"
            data = farm_dir / "data" / tag
            golden = farm_dir / "snapshots"
            golden.mkdir(parents=True, exist_ok=True)
            # Made here, never by a worker (see mgfarm.device.framebuffer); one folder for the farm's life.
            if not farm.frames_dir:
                farm.frames_dir = str(frames.make_dir(farm.name, farm_dir))
            frames_dir = Path(farm.frames_dir)
            for rep in chunk:
                framebuffer.create(frames_dir / f"{rep.serial}.frame")
                rep.frame_file = str(frames_dir / f"{rep.serial}.frame")
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
                str(data),
                "--golden",
                str(golden),
                "--token-file",
                str(token_file),
                "--announce",
                str(farm.adb_server_port),
                "--profile",
                farm.profile,
                "--frames",
                str(frames_dir),
            ]
            if first.grpc_port:  # a run of consecutive consoles has consecutive gRPC ports (farm.ports)
                argv += ["--grpc", str(first.grpc_port)]
            if self.storage:
                argv += ["--storage", self.storage]
            pid = procs.spawn_daemon(argv, log)
            farm.workers = [w for w in farm.workers if not set(w.replicas) & {r.index for r in chunk}]
            farm.workers.append(
                Worker(pid=pid, replicas=[r.index for r in chunk], log=str(log), data=str(data))
            )
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

    def kill(self, farm: FarmState, rep: Replica, force: bool = False) -> None:
        """Stop one replica: its whole worker when it is alone there, else just drop it from the worker.

        A replica sharing a worker is stopped through its console by the caller (`kill`), which
        frees its ports while the worker keeps serving the others. `force`: the worker is frozen
        (its event loop answers nobody), so it is killed at once with every replica it hosts.
        """
        worker = self._worker(farm, rep)
        if worker is None:
            return
        worker.replicas.remove(rep.index)
        if force or not worker.replicas:
            procs.stop_pids([worker.pid], grace=0.0 if force else 5.0)
            farm.workers.remove(worker)

    def publish_snapshot(self, farm: FarmState, rep: Replica, name: str, farm_dir: Path) -> None:
        """Move the snapshot a replica saved into its worker's folder to the farm's read-only folder.

        One rename on one filesystem: other workers see all of it or nothing.
        """
        worker = self._worker(farm, rep)
        if worker is None or not worker.data:
            raise MgfarmError(f"Replica {rep.index} has no worker to take snapshot {name!r} from.")
        source = Path(worker.data) / "snapshots" / name
        target = farm_dir / "snapshots" / name
        if not (source / "state.json").is_file():
            raise MgfarmError(f"Replica {rep.index} did not save snapshot {name!r} into {source.parent}.")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            raise MgfarmError(f"Snapshot {name!r} is already published in {target.parent}.")
        mode = source.stat().st_mode
        source.chmod(mode | 0o200)  # moving a folder to another parent rewrites its `..` entry
        os.rename(source, target)
        target.chmod(mode)
        if os.geteuid() == 0:  # a worker that gave up root wrote it: the farm's user owns it now
            for path in [target, *target.rglob("*")]:
                os.lchown(path, 0, 0)

    def stop_all(self, farm: FarmState) -> list[str]:
        left = procs.stop_pids([w.pid for w in farm.workers])
        return [f"worker process {pid}" for pid in left]

    def logs(self, farm: FarmState, rep: Replica, farm_dir: Path, tail: int) -> str:
        worker = self._worker(farm, rep)
        if worker is None:
            return ""
        path = Path(worker.log)
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        # A worker hosts several replicas: keep this one's lines and the worker's own, not its neighbours'.
        others = [r.serial for r in farm.replicas if r.index in worker.replicas and r.serial != rep.serial]
        mine = [ln for ln in lines if not any(_names(ln, serial) for serial in others)]
        return "\n".join(mine[-tail:])

    def memory_kib(self, farm: FarmState) -> int:
        return sum(procs.memory_kib(w.pid) for w in farm.workers if procs.pid_alive(w.pid))
