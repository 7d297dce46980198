"""Joining a Ray cluster with errors a user can act on."""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.ray.resources import KVM_RESOURCE, NAMESPACE, REPLICA_RESOURCE


def import_ray() -> Any:
    """The ray module, or a clear sentence on how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise MgfarmError("Ray is not installed; install it with `pip install 'mgfarm[ray]'`.") from exc
    return ray


def check_reachable(address: str, timeout: float = 3.0) -> None:
    """Fail fast on a HOST:PORT nobody listens on (Ray itself retries for minutes)."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise MgfarmError(f"Ray address {address!r} is not HOST:PORT; pass e.g. 10.0.0.1:6379 or auto.")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise MgfarmError(
            f"Nothing answers at Ray address {address} ({exc.strerror or exc}); start the head with "
            "`ray start --head` or pass the address it printed."
        ) from None


def connect(address: str) -> Any:
    """Join the cluster at `address` (e.g. `auto` or `10.0.0.1:6379`) in mgfarm's namespace."""
    ray = import_ray()
    check_reachable(address)
    if ray.is_initialized():
        return ray
    try:
        ray.init(
            address=address,
            namespace=NAMESPACE,
            logging_level=logging.WARNING,
            log_to_driver=False,
            configure_logging=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise MgfarmError(
            f"Cannot reach a Ray cluster at {address!r} ({str(exc).splitlines()[0]}); "
            "start one with `ray start --head` or pass its address."
        ) from exc
    return ray


@dataclass(frozen=True)
class NodeInfo:
    """One alive Ray node and the mgfarm resources it offers."""

    node_id: str
    address: str
    replicas: int
    kvm: bool


def alive_nodes() -> list[NodeInfo]:
    """The cluster's alive nodes, in a stable order."""
    ray = import_ray()
    nodes = []
    for node in ray.nodes():
        if not node.get("Alive"):
            continue
        resources = node.get("Resources", {})
        nodes.append(
            NodeInfo(
                node_id=node["NodeID"],
                address=node.get("NodeManagerAddress", "?"),
                replicas=int(resources.get(REPLICA_RESOURCE, 0)),
                kvm=resources.get(KVM_RESOURCE, 0) > 0,
            )
        )
    return sorted(nodes, key=lambda n: (n.address, n.node_id))
