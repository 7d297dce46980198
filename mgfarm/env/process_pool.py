"""`ProcessEnvPool`: the envs of one batch spread over worker processes, so the trainer's process
does not pay for every env's adb I/O, PNG decoding and UI XML parsing under one GIL.

Each worker is a Python process running an `EnvPool` (threads) over its share of the envs. The
trainer talks to it over a Unix socket (pickled commands and the small parts of each result: UI
elements, goals, infos); the array parts of observations (the screenshots) travel through one
shared memory file (a memfd: it has no name that could outlive a killed trainer) in which every env
has its slot. A worker writes a slot only when its env shows a new frame; the trainer hands out
read-only views of the slots.

Workers are started with `python -c` rather than `multiprocessing`, so a training script needs no
`if __name__ == "__main__"` guard, and no fork copies the trainer's threads. A worker exits when
the trainer closes its socket (close(), or the trainer's death: the kernel closes it) and checks its
parent every half second in case a step hangs; leases are file locks, released by the kernel.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from mgfarm.env.batching import check_step_async, outstanding
from mgfarm.errors import MgfarmError

# A slot's bytes start on a cache line, so slots never share one between two writers.
ALIGN = 64
# How long close() waits for a worker to release its envs before it is killed.
CLOSE_TIMEOUT_S = 10.0
PARENT_POLL_S = 0.5

Layout = list[tuple[str, tuple[int, ...], str, int]]  # (key, shape, dtype, offset of env 0's slot)


def split(size: int, processes: int) -> list[range]:
    """Env indices of each worker: contiguous, sizes differing by at most one."""
    count = min(size, processes)
    bounds = [size * w // count for w in range(count + 1)]
    return [range(bounds[w], bounds[w + 1]) for w in range(count)]


def shared_layout(space: gymnasium.spaces.Dict, size: int) -> tuple[Layout, int]:
    """Where each array key of `size` observations lives in the shared file, and its total bytes."""
    layout: Layout = []
    offset = 0
    for key, sub in space.spaces.items():
        if isinstance(sub, gymnasium.spaces.Box):
            layout.append((key, tuple(sub.shape), np.dtype(sub.dtype).str, offset))
            offset += slot_bytes(tuple(sub.shape), np.dtype(sub.dtype).str) * size
    return layout, max(offset, 1)


def slot_bytes(shape: tuple[int, ...], dtype: str) -> int:
    """The bytes of one env's slot for an array of `shape`: its size rounded up to ALIGN."""
    return -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // ALIGN) * ALIGN


def shared_arrays(buffer: mmap.mmap, layout: Layout, size: int) -> dict[str, np.ndarray]:
    """One (size, *shape) array per key of `layout` over `buffer` (slots padded to ALIGN bytes)."""
    arrays: dict[str, np.ndarray] = {}
    for key, shape, dtype, offset in layout:
        # Row-major strides of one slot's array, after the stride from one env's slot to the next.
        inner = [int(np.prod(shape[i + 1 :])) * np.dtype(dtype).itemsize for i in range(len(shape))]
        strides = (slot_bytes(shape, dtype), *inner)
        arrays[key] = np.ndarray((size, *shape), dtype=dtype, buffer=buffer, offset=offset, strides=strides)
    return arrays


class WorkerFailed(MgfarmError):
    """A worker process of a `ProcessEnvPool` died or raised; the pool cannot go on."""


class ProcessEnvPool:
    """`size` envs on leased replicas of `farm`, run by `processes` worker processes.

    The same interface as `EnvPool` for `MobileVectorEnv` (reset_all, step_async / step_wait,
    spaces, close), with the same next-step autoreset and per-episode seeds. Observations' arrays
    are read-only views of shared memory that the next step overwrites (`shared_arrays()` gives
    the whole batch); copy what must outlive a step. `record=DIR`: each worker records its envs'
    episodes into DIR, numbered in one sequence with the other workers' (`Recorder`).
    """

    def __init__(
        self,
        farm: str | None = None,
        size: int = 8,
        tasks: str | Sequence[str] = "train",
        seed: int = 0,
        processes: int = 2,
        **env_kwargs: Any,
    ) -> None:
        if size < 1:
            raise MgfarmError(f"size={size} is too small; a pool needs at least 1 env.")
        if processes < 1:
            raise MgfarmError(f"processes={processes} must be at least 1.")
        record = env_kwargs.pop("record", None)
        if record:
            # A path, not a `Recorder` (its lock does not travel); absolute, whatever the workers' cwd.
            env_kwargs["record"] = str(Path(os.fspath(record)).resolve())
        self.size = size
        self.parts = split(size, processes)
        self._workers: list[_Worker] = []
        self._pending: list[Any] | None = None
        self._broken: str | None = None
        self._buffer: mmap.mmap | None = None
        self._arrays: dict[str, np.ndarray] = {}
        # When each worker got through its start (seconds after it was spawned): `imported`,
        # `configured`, `built` (its envs), `shared` (the observation slots mapped).
        self.startup: list[dict[str, float]] = []
        try:
            # The workers start first: their Python start and imports (~0.6 s of CPU each) run while
            # this process loads the catalog, and while the other workers start.
            self._workers = [_Worker(number, part) for number, part in enumerate(self.parts)]
            # Imported only now, to start the workers sooner (~0.2 s of CPU: the envs' modules).
            from mgfarm.catalog import load_catalog
            from mgfarm.env.pool import resolve_tasks

            # Loaded (and the tasks checked) here, once: a worker unpickles it in ~20 ms where
            # loading takes ~1-2 s of CPU, and bad task names are refused before any env is built.
            catalog = env_kwargs["catalog"] = env_kwargs.get("catalog") or load_catalog()
            resolve_tasks(tasks, catalog)
            for worker in self._workers:
                config = {
                    "farm": farm,
                    "size": len(worker.part),
                    "tasks": tasks,
                    "seed": seed,
                    "first_index": worker.part.start,
                }
                worker.send(("start", {**config, **env_kwargs}, worker.number == 0))
            replies = self._gather("starting its envs")
            self._spaces: tuple[gymnasium.Space[Any], gymnasium.Space[Any]] = replies[0][0]
            self.startup = [
                {key: round(at - w.spawned, 3) for key, at in timings.items()}
                for w, (_, timings) in zip(self._workers, replies, strict=True)
            ]
            self._share()
        except BaseException:
            self.close()
            raise

    def _share(self) -> None:
        """Creates the shared file for every env's arrays and hands it to every worker."""
        obs_space = self._spaces[0]
        if not isinstance(obs_space, gymnasium.spaces.Dict):
            raise MgfarmError(f"A pool's observation space must be a Dict space, not {obs_space}.")
        layout, total = shared_layout(obs_space, self.size)
        fd = os.memfd_create("mgfarm-observations", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, total)
            self._buffer = mmap.mmap(fd, total)
            for worker in self._workers:
                worker.send(("share", layout, self.size))
                socket.send_fds(worker.sock, [b"f"], [fd])
        finally:
            os.close(fd)
        mapped = self._gather("mapping the shared observations")
        for worker, shared in zip(self._workers, mapped, strict=True):
            self.startup[worker.number]["shared"] = round(shared - worker.spawned, 3)
        self._arrays = shared_arrays(self._buffer, layout, self.size)
        for array in self._arrays.values():
            array.flags.writeable = False

    def __len__(self) -> int:
        return self.size

    def spaces(self) -> tuple[gymnasium.Space[Any], gymnasium.Space[Any]]:
        """The observation and action space of one env (all envs of a pool share them)."""
        return self._spaces

    def shared_arrays(self) -> dict[str, np.ndarray]:
        """Every env's latest array observations, (size, *shape) per key, read-only; the next step
        overwrites the slots of envs that show a new frame."""
        return self._arrays

    def pids(self) -> list[int]:
        """The worker processes' ids (e.g. to read their CPU time)."""
        return [w.process.pid for w in self._workers]

    def reset_all(self, seed: int | None = None) -> tuple[list[dict[str, Any] | None], list[dict[str, Any]]]:
        """A new episode in every env; `seed` restarts the episode seeds from it."""
        self._check()
        for worker in self._workers:
            worker.send(("reset", seed))
        replies = self._gather("a reset")
        obs: list[dict[str, Any] | None] = []
        infos: list[dict[str, Any]] = []
        for worker, (part_obs, part_infos) in zip(self._workers, replies, strict=True):
            obs += self._filled(worker.part, part_obs)
            infos += part_infos
        return obs, infos

    def step_async(self, actions: Sequence[Any]) -> None:
        self._check()
        check_step_async(self.size, actions, self._pending)
        batch = list(actions)
        for worker in self._workers:
            worker.send(("step", batch[worker.part.start : worker.part.stop]))
        self._pending = batch

    def step_wait(
        self,
    ) -> tuple[list[dict[str, Any] | None], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        outstanding(self._pending)
        self._pending = None
        replies = self._gather("a step")
        obs: list[dict[str, Any] | None] = []
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        for worker, (part_obs, part_rewards, part_term, part_trunc, part_infos) in zip(
            self._workers, replies, strict=True
        ):
            obs += self._filled(worker.part, part_obs)
            rewards += part_rewards
            terminated += part_term
            truncated += part_trunc
            infos += part_infos
        return obs, rewards, terminated, truncated, infos

    def step_all(
        self, actions: Sequence[Any]
    ) -> tuple[list[dict[str, Any] | None], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """One step in every env (in parallel); ended episodes are reset instead."""
        self.step_async(actions)
        return self.step_wait()

    def stats(self) -> list[dict[str, Any]]:
        """Each worker's `EnvPool.stats.summary()` (timings of its envs' resets and steps)."""
        self._check()
        for worker in self._workers:
            worker.send(("stats",))
        return list(self._gather("reading stats"))

    def _filled(self, part: range, observations: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
        """Observations with their array keys pointing at the envs' shared slots."""
        for index, obs in zip(part, observations, strict=True):
            if obs is not None:
                for key, array in self._arrays.items():
                    obs[key] = array[index]
        return observations

    def _check(self) -> None:
        if self._broken is not None:
            raise WorkerFailed(self._broken)
        if not self._workers:
            raise MgfarmError("This pool is closed.")

    def _gather(self, doing: str) -> list[Any]:
        """Every worker's reply to the command just sent, in worker order; the first failure (a
        worker's exception, or its death) closes the pool and is raised as one `WorkerFailed`."""
        replies: dict[int, Any] = {}
        waiting = {w.conn: w for w in self._workers}
        failure: str | None = None
        while waiting and failure is None:
            for conn in wait(list(waiting)):
                worker = waiting.pop(conn)  # type: ignore[call-overload]
                try:
                    status, payload = worker.conn.recv()
                except (EOFError, OSError):
                    failure = worker.died(doing)
                    break
                if status == "error":
                    failure = worker.raised(doing, payload)
                    break
                replies[worker.number] = payload
        if failure is not None:
            self._broken = failure
            self.close()
            raise WorkerFailed(failure)
        return [replies[w.number] for w in self._workers]

    def close(self) -> None:
        """Closes every env (releasing its replica) and stops the workers; idempotent."""
        for worker in self._workers:
            worker.close()
        self._workers = []
        self._arrays = {}
        if self._buffer is not None:
            with contextlib.suppress(BufferError):  # views the trainer still holds keep it mapped
                self._buffer.close()
            self._buffer = None

    def __enter__(self) -> ProcessEnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_workers", None):
            with contextlib.suppress(Exception):  # at interpreter exit, modules may be gone
                self.close()


class _Worker:
    """The trainer's side of one worker process: its socket and the envs it holds."""

    def __init__(self, number: int, part: range) -> None:
        self.number = number
        self.part = part
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.conn = Connection(os.dup(self.sock.fileno()))
        mgfarm_root = str(Path(__file__).resolve().parents[2])  # the worker imports this mgfarm
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in (mgfarm_root, os.environ.get("PYTHONPATH")) if p),
        }
        code = (
            f"from mgfarm.env.process_pool import worker_main; worker_main({theirs.fileno()}, {os.getpid()})"
        )
        self.spawned = time.monotonic()  # the same clock in every process: startup times compare
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", code], pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL
            )
        finally:
            theirs.close()  # only the worker holds its end: the trainer sees EOF when it dies

    def send(self, message: tuple[Any, ...]) -> None:
        with contextlib.suppress(OSError):  # a dead worker: its EOF is what the next read reports
            self.conn.send(message)

    def describe(self) -> str:
        return (
            f"env worker {self.number} (pid {self.process.pid}, envs {self.part.start}-{self.part.stop - 1})"
        )

    def died(self, doing: str) -> str:
        try:
            code = self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            code = None
        how = f"exit code {code}" if code is not None and code >= 0 else f"signal {-(code or 0)}"
        if code is None:
            how = "its socket closed"
        return f"{self.describe()} died during {doing} ({how}); the vector env is closed, make a new one."

    def raised(self, doing: str, payload: tuple[str, str, str]) -> str:
        kind, message, trace = payload
        if kind == "MgfarmError":  # the user's input or the farm's state: its sentence says it all
            return f"{self.describe()}: {message}"
        return f"{self.describe()} failed during {doing}: {kind}: {message}\n{trace}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.send(("close",))
            # A worker still sending a step's results nobody will read fails at once (EPIPE) and
            # exits, instead of blocking on a full socket until it is killed.
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RD)
            try:
                self.process.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.conn.close()
        self.sock.close()


# ---------------------------------------------------------------------------------------------
# The worker process


def _watch_parent(parent: int) -> None:
    """Exits the worker when the trainer is gone, even while a step hangs (its socket EOF is only
    read between commands)."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def _strip(obs: dict[str, Any] | None, index: int, arrays: dict[str, np.ndarray], last: list[Any]) -> Any:
    """An observation without its arrays, which are written to env `index`'s slots (only when the
    env shows a different frame object than the one last written)."""
    if obs is None:
        return None
    small = dict(obs)
    for key, array in arrays.items():
        value = small.pop(key, None)
        if value is None:
            continue
        if last[index].get(key) is not value:
            array[index] = value
            last[index][key] = value  # held, so its id cannot be reused by a different frame
    return small


def worker_main(fd: int, parent: int) -> None:
    """A worker: builds an `EnvPool` from the "start" config, then serves commands until "close" or
    the trainer's socket closes."""
    timings = {"imported": time.monotonic()}
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the trainer's to handle; it closes us
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    from mgfarm.env.pool import EnvPool

    sock = socket.socket(fileno=fd)
    conn = Connection(os.dup(fd))
    pool: EnvPool | None = None
    arrays: dict[str, np.ndarray] = {}
    last: list[dict[str, Any]] = []
    first = 0
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            command = message[0]
            try:
                if command == "start":
                    _, config, send_spaces = message
                    timings["configured"] = time.monotonic()
                    first = config["first_index"]
                    pool = EnvPool(**config)
                    timings["built"] = time.monotonic()
                    # One worker's spaces do for all (a screenshot Box pickles to ~30 MB).
                    reply: Any = (pool.spaces() if send_spaces else None, timings)
                elif command == "share":
                    _, layout, size = message
                    _, fds, _, _ = socket.recv_fds(sock, 1, 1)
                    with open(fds[0], "r+b") as shared:
                        buffer = mmap.mmap(shared.fileno(), 0)
                    everyone = shared_arrays(buffer, layout, size)
                    assert pool is not None
                    arrays = {key: a[first : first + len(pool)] for key, a in everyone.items()}
                    last = [{} for _ in range(len(pool))]
                    reply = time.monotonic()
                elif command == "reset":
                    assert pool is not None
                    obs, infos = pool.reset_all(seed=message[1])
                    reply = ([_strip(o, i, arrays, last) for i, o in enumerate(obs)], infos)
                elif command == "step":
                    assert pool is not None
                    obs, rewards, terminated, truncated, infos = pool.step_all(message[1])
                    small = [_strip(o, i, arrays, last) for i, o in enumerate(obs)]
                    reply = (small, rewards, terminated, truncated, infos)
                elif command == "stats":
                    assert pool is not None
                    reply = pool.stats.summary()
                elif command == "close":
                    break
                else:
                    raise MgfarmError(f"unknown command {command!r}")
            except Exception as exc:
                kind = "MgfarmError" if isinstance(exc, MgfarmError) else type(exc).__name__
                reply = None
                conn.send(("error", (kind, str(exc), traceback.format_exc())))
                continue
            try:
                conn.send(("ok", reply))
            except pickle.PicklingError as exc:
                conn.send(("error", ("PicklingError", str(exc), traceback.format_exc())))
    except (BrokenPipeError, ConnectionResetError):
        pass  # the trainer is gone
    finally:
        if pool is not None:
            pool.close()
        conn.close()
        sock.close()
