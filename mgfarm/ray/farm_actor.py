"""The per-node farm actor: owns the farm of the node it is pinned to.

A plain class; `cluster.py` turns it into a detached, named Ray actor pinned to one node, so the
farm's devices run on that node and `mgfarm ps --ray` can find it from any driver.
"""

from __future__ import annotations

import fcntl
import socket
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.state import READY, farm_exists, home
from mgfarm.ray.resources import farm_name
from mgfarm.snapshots.farm import up


def current_node_id() -> str:
    import ray

    return str(ray.get_runtime_context().get_node_id())


class NodeFarm:
    """Starts, reports and stops this node's farm (named after the node)."""

    def __init__(self, replicas: int, backend: str, options: dict[str, Any]) -> None:
        self.node_id = current_node_id()
        self.name = farm_name(self.node_id)
        self.replicas = replicas
        self.backend = backend
        self.options = options

    def up(self) -> dict[str, Any]:
        """Start the node's farm and wait until its replicas are ready."""
        # Farm actors sharing one host (several Ray nodes on a machine) must not pick ports at the
        # same moment: a farm reserves its ports only once its state file is written.
        lock_path = home() / "ray-up.lock"
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with lock_path.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            up(self.replicas, backend=self.backend, name=self.name, **self.options)
        return self.status()

    def status(self) -> dict[str, Any]:
        """The node's farm as plain data (what `mgfarm ps --ray` prints)."""
        summary: dict[str, Any] = {
            "node_id": self.node_id,
            "host": socket.gethostname(),
            "farm": self.name,
            "backend": self.backend,
            "replicas": [],
            "ready": 0,
            "up": False,
        }
        if not farm_exists(self.name):
            return summary
        try:
            farm = api.status(self.name)
        except MgfarmError as exc:
            summary["error"] = str(exc)
            return summary
        summary["up"] = True
        summary["adb_server_port"] = farm.adb_server_port
        summary["replicas"] = [
            {"index": r.index, "serial": r.serial, "state": r.state, "reason": r.reason}
            for r in farm.replicas
        ]
        summary["ready"] = sum(r.state == READY for r in farm.replicas)
        return summary

    def down(self) -> str:
        """Stop the node's farm; returns what happened, in one line."""
        if not farm_exists(self.name):
            return f"{self.name}: nothing running"
        api.down(self.name)
        return f"{self.name}: stopped"
