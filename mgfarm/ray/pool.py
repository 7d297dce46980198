"""`RayEnvPool`: the local pool's API, with each env running on whichever node has a free replica."""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.ray.cluster import farm_actors
from mgfarm.ray.connect import connect
from mgfarm.ray.resources import REPLICA_RESOURCE
from mgfarm.ray.worker import EnvWorker, StepResult

PLACEMENT_TIMEOUT_S = 60.0


@dataclass
class Slot:
    """One env of the pool: its worker (None when it could not be placed) and where it runs."""

    worker: Any = None
    node_id: str = ""
    episode: int = -1
    task_id: str = ""
    seed: int = 0
    running: bool = False
    info: dict[str, Any] = field(default_factory=dict)


class RayEnvPool:
    """Parallel episodes across a Ray cluster's farms (start them with `mgfarm up --ray`).

    `reset_all`, `reset(i)`, `step_all`, `step_async`/`step_wait` and `close` behave like the local
    pool's. An episode whose replica or node is lost ends truncated with the reason in `info["failed"]`
    (as with the local env); the next reset of that slot runs on a node whose farm still has a free
    replica, or fails the same way when none has.
    """

    def __init__(
        self,
        size: int,
        tasks: str | list[str],
        seed: int = 0,
        address: str = "auto",
        env_options: dict[str, Any] | None = None,
    ) -> None:
        if size < 1:
            raise MgfarmError(f"size must be at least 1, got {size}.")
        self.ray = connect(address)
        self.task_ids = _task_ids(tasks)
        self.env_options = dict(env_options or {})
        self._episodes = itertools.count()
        self._seed = seed
        self._pending: list[Any] | None = None
        self.slots = [Slot() for _ in range(size)]
        # First placement is Ray's alone: each worker holds one replica resource on its node.
        workers = [self._worker_class().remote(self.env_options) for _ in range(size)]
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
        for slot, w in zip(self.slots, where, strict=True):
            slot.node_id = w["node_id"]

    @property
    def size(self) -> int:
        return len(self.slots)

    def _worker_class(self, node_id: str | None = None) -> Any:
        options: dict[str, Any] = {"num_cpus": 0, "resources": {REPLICA_RESOURCE: 1}, "max_restarts": 0}
        if node_id is not None:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)
        return self.ray.remote(EnvWorker).options(**options)

    # ------------------------------------------------------------------ placement after a loss

    def _free_replicas(self) -> dict[str, int]:
        """Ready replicas per node, less those this pool's workers already hold."""
        ready: dict[str, int] = {}
        refs = [a.status.remote() for a in farm_actors()]
        for ref in refs:
            try:
                status = self.ray.get(ref, timeout=10)
            except Exception:  # a farm actor on a dead node: that node offers nothing
                continue
            if status.get("up"):
                ready[status["node_id"]] = int(status.get("ready", 0))
        held = Counter(s.node_id for s in self.slots if s.worker is not None)
        return {node: count - held[node] for node, count in ready.items() if count - held[node] > 0}

    def _replace(self, slot: Slot) -> None:
        """Drop the slot's worker and place a new one where a farm has a free replica."""
        self._drop(slot)
        free = self._free_replicas()
        if not free:
            return
        node_id = max(free, key=lambda n: free[n])
        worker = self._worker_class(node_id).remote(self.env_options)
        try:
            self.ray.get(worker.where.remote(), timeout=PLACEMENT_TIMEOUT_S)
        except Exception:
            self.ray.kill(worker)
            return
        slot.worker, slot.node_id = worker, node_id

    def _drop(self, slot: Slot) -> None:
        if slot.worker is not None:
            with contextlib.suppress(Exception):  # already gone with its node
                self.ray.kill(slot.worker)
        slot.worker, slot.node_id = None, ""

    # ------------------------------------------------------------------ the pool API

    def reset(self, index: int) -> tuple[Any, dict[str, Any]]:
        """Start the next episode in slot `index`."""
        return self._reset_many([index])[0]

    def reset_all(self) -> tuple[list[Any], list[dict[str, Any]]]:
        """Start the next episode in every slot."""
        results = self._reset_many(list(range(self.size)))
        return [r[0] for r in results], [r[1] for r in results]

    def _reset_many(self, indices: list[int]) -> list[tuple[Any, dict[str, Any]]]:
        for i in indices:
            slot = self.slots[i]
            if slot.worker is None or slot.info.get("failed"):
                self._replace(slot)
            slot.episode = next(self._episodes)
            slot.task_id = self.task_ids[slot.episode % len(self.task_ids)]
            slot.seed = self._seed + slot.episode
        refs = {
            i: self.slots[i].worker.reset.remote(self.slots[i].task_id, self.slots[i].seed)
            for i in indices
            if self.slots[i].worker is not None
        }
        results = []
        for i in indices:
            slot = self.slots[i]
            obs: Any = None
            info: dict[str, Any] = {"failed": "no node of the Ray cluster has a free replica"}
            if i in refs:
                obs, info = self._get(slot, refs[i], reset=True)
            info = {**info, "episode": slot.episode, "task_id": slot.task_id, "seed": slot.seed}
            slot.running, slot.info = not info.get("failed"), info
            results.append((obs, info))
        return results

    def step_async(self, actions: list[dict[str, Any]]) -> None:
        """Send one action per slot (ignored for slots with no running episode)."""
        if len(actions) != self.size:
            raise MgfarmError(f"step needs one action per env: got {len(actions)} for a pool of {self.size}.")
        self._pending = [
            s.worker.step.remote(a) if s.running and s.worker is not None else None
            for s, a in zip(self.slots, actions, strict=True)
        ]

    def step_wait(self) -> tuple[list[Any], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """Collect what `step_async` sent: observations, rewards, terminated, truncated, infos."""
        if self._pending is None:
            raise MgfarmError("step_wait() was called without step_async(); send actions first.")
        pending, self._pending = self._pending, None
        results: list[StepResult] = []
        for slot, ref in zip(self.slots, pending, strict=True):
            if ref is None:
                result: StepResult = (None, 0.0, False, True, {**slot.info, "no_episode": True})
            else:
                result = self._get(slot, ref, reset=False)
                info = {**result[4], "episode": slot.episode, "task_id": slot.task_id, "seed": slot.seed}
                result = (result[0], result[1], result[2], result[3], info)
                slot.info = info
                if result[2] or result[3]:
                    slot.running = False
            results.append(result)
        obs, rewards, terminated, truncated, infos = (list(x) for x in zip(*results, strict=True))
        return obs, rewards, terminated, truncated, infos

    def step_all(
        self, actions: list[dict[str, Any]]
    ) -> tuple[list[Any], list[float], list[bool], list[bool], list[dict[str, Any]]]:
        """One action per slot, all at once."""
        self.step_async(actions)
        return self.step_wait()

    def _get(self, slot: Slot, ref: Any, reset: bool) -> Any:
        """A worker's answer; a lost worker (its node died) becomes a failed episode."""
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayActorError as exc:
            reason = f"node lost: {str(exc).strip().splitlines()[-1]}"
            info = {"failed": reason, "node_id": slot.node_id}
            self._drop(slot)
            return (None, info) if reset else (None, 0.0, False, True, info)

    def nodes(self) -> list[str]:
        """The node id each slot's env runs on ('' when it has none)."""
        return [s.node_id for s in self.slots]

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


def _task_ids(tasks: str | list[str]) -> list[str]:
    """Task ids from a list, or from a suite name in the catalog."""
    if isinstance(tasks, list):
        if not tasks:
            raise MgfarmError("tasks is an empty list; pass task ids or a suite name such as 'train'.")
        return list(tasks)
    from mgfarm.tasks.catalog import list_tasks

    ids = [t.id for t in list_tasks(tasks)]
    if not ids:
        raise MgfarmError(f"No tasks in suite {tasks!r}; see `mgfarm tasks list`.")
    return ids
