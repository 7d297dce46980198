"""`RayEnvPool`: the local `EnvPool`'s API, with each env running wherever a replica is free."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mgfarm.env.batching import check_step_async, outstanding
from mgfarm.errors import MgfarmError
from mgfarm.ray.cluster import farm_actors
from mgfarm.ray.connect import connect
from mgfarm.ray.resources import REPLICA_RESOURCE
from mgfarm.ray.worker import EnvWorker, StepResult

PLACEMENT_TIMEOUT_S = 60.0
# A slot that found no free replica anywhere asks the farms again at most this often.
PLACEMENT_RETRY_S = 5.0
NO_REPLICA = "no node of the Ray cluster has a free replica"

Batch = tuple[list[Any], list[float], list[bool], list[bool], list[dict[str, Any]]]


@dataclass
class Slot:
    """One env of the pool: its worker (None while it has none) and the node it runs on."""

    worker: Any = None
    node_id: str = ""
    needs_reset: bool = True
    broken: bool = False
    retry_at: float = 0.0
    episodes: int = 0
    last_obs: Any = None


class RayEnvPool:
    """Like `mgfarm.EnvPool`, across the farms of a Ray cluster (start them with `mgfarm up --ray`).

    `reset_all`, `step_async`/`step_wait`, `step_all`, `len()` and `close` behave like the local
    pool's, including next-step autoreset (`info["autoreset"]`). Each env is a Ray actor holding one
    `mgfarm_replica` resource, so Ray places it on a node with a free replica. An episode whose
    replica or node is lost ends truncated with the reason in `info["failed"]` and `info["node_id"]`
    naming the node; that slot's next reset goes to a node whose farm still has a ready replica.
    """

    def __init__(
        self,
        size: int = 8,
        tasks: str | Sequence[str] = "train",
        seed: int = 0,
        address: str = "auto",
        **env_kwargs: Any,
    ) -> None:
        if size < 1:
            raise MgfarmError(f"size={size} is too small; a RayEnvPool needs at least 1 env.")
        from mgfarm.catalog import load_catalog
        from mgfarm.env.pool import resolve_tasks

        self.ray = connect(address)
        self.task_ids = resolve_tasks(tasks, env_kwargs.get("catalog") or load_catalog())
        ready = sum(self._ready_replicas().values())
        if ready < size:
            raise MgfarmError(
                f"The Ray cluster's farms have {ready} ready replicas but the pool wants {size}; start farms "
                "with `mgfarm up --ray ADDRESS --replicas-per-node N` or ask for a smaller size."
            )
        self.seed = seed
        self.env_kwargs = env_kwargs
        self._pending: list[tuple[str, Any]] | None = None
        self.slots = [Slot() for _ in range(size)]
        # First placement is Ray's alone: each worker holds one replica resource on its node.
        workers = [self._worker_options().remote(self.task_ids, env_kwargs) for _ in range(size)]
        for slot, worker in zip(self.slots, workers, strict=True):
            slot.worker = worker
        try:
            where = self.ray.get([w.where.remote() for w in workers], timeout=PLACEMENT_TIMEOUT_S)
        except self.ray.exceptions.GetTimeoutError:
            self.close()
            raise MgfarmError(
                f"Ray could not place {size} envs within {PLACEMENT_TIMEOUT_S:.0f} s: the cluster offers "
                f"fewer free {REPLICA_RESOURCE}; lower size or add nodes (`mgfarm ps --ray` shows them)."
            ) from None
        except self.ray.exceptions.RayError as exc:
            self.close()
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            raise MgfarmError(
                f"An env worker could not start ({reason}); check that mgfarm is installed on every node."
            ) from None
        for slot, w in zip(self.slots, where, strict=True):
            slot.node_id = w["node_id"]

    def __len__(self) -> int:
        return len(self.slots)

    @property
    def size(self) -> int:
        return len(self.slots)

    def nodes(self) -> list[str]:
        """The node id each env runs on ('' while it has none)."""
        return [s.node_id for s in self.slots]

    # ------------------------------------------------------------------ placement

    def _worker_options(self, node_id: str | None = None) -> Any:
        options: dict[str, Any] = {"num_cpus": 0, "resources": {REPLICA_RESOURCE: 1}, "max_restarts": 0}
        if node_id is not None:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)
        return self.ray.remote(EnvWorker).options(**options)

    def _ready_replicas(self) -> dict[str, int]:
        """Ready replicas per node, from every node's farm actor."""
        ready: dict[str, int] = {}
        refs = [a.status.remote() for a in farm_actors()]
        for ref in refs:
            try:
                status = self.ray.get(ref, timeout=10)
            except Exception:  # a farm actor on a dead node: that node offers nothing
                continue
            if status.get("up"):
                ready[status["node_id"]] = int(status.get("ready", 0))
        return ready

    def _free_replicas(self) -> dict[str, int]:
        """Ready replicas per node, less those this pool's envs already hold."""
        ready = self._ready_replicas()
        held = Counter(s.node_id for s in self.slots if s.worker is not None)
        return {node: n - held[node] for node, n in ready.items() if n - held[node] > 0}

    def _replace(self, slot: Slot) -> None:
        """Drop the slot's worker and place a new one on a node whose farm has a free replica.

        Ray's resource alone could put it back on the node that just lost its farm (the node still
        offers the resource), so the pool pins it to the node with the most free ready replicas.
        """
        self._drop(slot)
        slot.broken = False
        free = self._free_replicas()
        if not free:
            slot.retry_at = time.monotonic() + PLACEMENT_RETRY_S
            return
        node_id = max(free, key=lambda n: free[n])
        worker = self._worker_options(node_id).remote(self.task_ids, self.env_kwargs)
        try:
            self.ray.get(worker.where.remote(), timeout=PLACEMENT_TIMEOUT_S)
        except Exception:
            with contextlib.suppress(Exception):
                self.ray.kill(worker)
            slot.retry_at = time.monotonic() + PLACEMENT_RETRY_S
            return
        slot.worker, slot.node_id = worker, node_id

    def _drop(self, slot: Slot) -> None:
        if slot.worker is not None:
            with contextlib.suppress(Exception):  # already gone with its node
                self.ray.kill(slot.worker)
        slot.worker, slot.node_id = None, ""

    # ------------------------------------------------------------------ the pool API

    def _episode_seed(self, index: int) -> int:
        """The local pool's seeds: a function of (pool seed, env index, episode number)."""
        seq = np.random.SeedSequence([self.seed, index, self.slots[index].episodes])
        return int(seq.generate_state(1)[0] % (2**31))

    def _send_reset(self, index: int) -> tuple[str, Any]:
        slot = self.slots[index]
        if slot.broken or (slot.worker is None and time.monotonic() >= slot.retry_at):
            self._replace(slot)
        if slot.worker is None:
            return "none", None
        seed = self._episode_seed(index)
        slot.episodes += 1
        return "reset", slot.worker.reset.remote(seed)

    def spaces(self) -> tuple[Any, Any]:
        """The observation and action space of one env, asked of the first env that has a worker."""
        for slot in self.slots:
            if slot.worker is not None:
                spaces: tuple[Any, Any] = self.ray.get(
                    slot.worker.spaces.remote(), timeout=PLACEMENT_TIMEOUT_S
                )
                return spaces
        raise MgfarmError(f"None of the pool's envs has a replica now ({NO_REPLICA}); try again later.")

    def reset_all(self, seed: int | None = None) -> tuple[list[Any], list[dict[str, Any]]]:
        """Start a new episode in every env (in parallel); `seed` restarts the episode seeds from it."""
        if seed is not None:
            self.seed = seed
            for slot in self.slots:
                slot.episodes = 0
        sent = [self._send_reset(i) for i in range(self.size)]
        results = [self._collect(i, kind, ref) for i, (kind, ref) in enumerate(sent)]
        return [r[0] for r in results], [r[4] for r in results]

    def step_async(self, actions: Sequence[Any]) -> None:
        """Send one action per env; an env whose episode ended is reset instead (its action ignored)."""
        check_step_async(self.size, actions, self._pending)
        self._pending = [
            self._send_reset(i) if slot.needs_reset else ("step", slot.worker.step.remote(action))
            for i, (slot, action) in enumerate(zip(self.slots, actions, strict=True))
        ]

    def step_wait(self) -> Batch:
        """Observations, rewards, terminated, truncated and infos of what `step_async` sent."""
        pending, self._pending = outstanding(self._pending), None
        results = [self._collect(i, kind, ref) for i, (kind, ref) in enumerate(pending)]
        return (
            [r[0] for r in results],
            [r[1] for r in results],
            [r[2] for r in results],
            [r[3] for r in results],
            [r[4] for r in results],
        )

    def step_all(self, actions: Sequence[Any]) -> Batch:
        """One step in every env (in parallel); ended episodes are reset instead."""
        self.step_async(actions)
        return self.step_wait()

    def _collect(self, index: int, kind: str, ref: Any) -> StepResult:
        """The answer to what was sent to slot `index`, as a step result; updates the slot."""
        slot = self.slots[index]
        if kind == "none":
            slot.needs_reset = True
            return slot.last_obs, 0.0, False, False, {"failed": NO_REPLICA, "autoreset": True}
        try:
            answer = self.ray.get(ref)
        except self.ray.exceptions.RayActorError as exc:
            lost: dict[str, Any] = {"failed": f"node lost: {str(exc).strip().splitlines()[0]}"}
            info = {**lost, "node_id": slot.node_id}
            self._drop(slot)
            answer = (None, info) if kind == "reset" else (None, 0.0, False, True, info)
        if kind == "reset":
            obs, info = answer
            info = {**info, "autoreset": True}
            result: StepResult = (obs if obs is not None else slot.last_obs, 0.0, False, False, info)
            slot.needs_reset = bool(info.get("failed"))
        else:
            result = answer
            info = result[4]
            slot.needs_reset = result[2] or result[3]
        if info.get("failed"):
            slot.broken = True
        if result[0] is not None:
            slot.last_obs = result[0]
        return result

    def close(self) -> None:
        """Close every env (releasing its replica) and stop the workers."""
        refs = [s.worker.close.remote() for s in self.slots if s.worker is not None]
        with contextlib.suppress(Exception):  # workers on lost nodes took their leases with them
            self.ray.get(refs, timeout=60)
        for slot in self.slots:
            self._drop(slot)

    def __enter__(self) -> RayEnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
