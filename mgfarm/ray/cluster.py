"""`mgfarm up|ps|down --ray`: one farm actor per node of a Ray cluster."""

from __future__ import annotations

import time
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends import DEFAULT_BACKEND
from mgfarm.ray.connect import NodeInfo, alive_nodes, connect, import_ray
from mgfarm.ray.farm_actor import NodeFarm
from mgfarm.ray.resources import FARM_ACTOR_PREFIX, KVM_RESOURCE, NAMESPACE, REPLICA_RESOURCE, farm_actor_name


def _farm_nodes(replicas_per_node: int, kvm: bool) -> list[NodeInfo]:
    """The nodes that get a farm: those offering mgfarm replicas (and KVM when asked for)."""
    nodes = [n for n in alive_nodes() if n.replicas > 0 and (n.kvm or not kvm)]
    if not nodes:
        need = f'"{REPLICA_RESOURCE}": {replicas_per_node}' + (f', "{KVM_RESOURCE}": 1' if kvm else "")
        raise MgfarmError(
            f"No Ray node offers mgfarm replicas; start the nodes with `ray start --resources '{{{need}}}'`."
        )
    short = [n for n in nodes if n.replicas < replicas_per_node]
    if short:
        raise MgfarmError(
            f"Node {short[0].address} ({short[0].node_id[:8]}) offers {short[0].replicas} "
            f"{REPLICA_RESOURCE} but --replicas-per-node is {replicas_per_node}; lower it or raise the "
            "node's resource."
        )
    return nodes


def _spawn(node: NodeInfo, replicas: int, backend: str, options: dict[str, Any], kvm: bool) -> Any:
    ray = import_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    actor_class = ray.remote(NodeFarm)
    return actor_class.options(
        name=farm_actor_name(node.node_id),
        namespace=NAMESPACE,
        lifetime="detached",
        num_cpus=0,
        # A tiny share of the KVM marker only pins emulator farms to KVM nodes; it reserves nothing.
        resources={KVM_RESOURCE: 0.001} if kvm else {},
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False),
        # The farm's devices are children of this actor: never restart it behind the farm's back.
        max_restarts=0,
    ).remote(replicas, backend, options)


def farm_actors() -> list[Any]:
    """Handles of every farm actor in the cluster."""
    ray = import_ray()
    names = [
        a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if a["namespace"] == NAMESPACE
    ]
    actors = []
    for name in sorted(n for n in names if n.startswith(FARM_ACTOR_PREFIX)):
        try:
            actors.append(ray.get_actor(name, namespace=NAMESPACE))
        except ValueError:
            # Listed, then gone before the lookup: its node died in between. A dead farm has no
            # handle to stop it through; its node's own cleanup (or `mgfarm down` there) stops it.
            continue
    return actors


def up(
    address: str,
    replicas_per_node: int,
    backend: str = DEFAULT_BACKEND,
    options: dict[str, Any] | None = None,
    kvm: bool = False,
) -> list[dict[str, Any]]:
    """Start a farm on every node that offers mgfarm replicas; all or nothing."""
    if replicas_per_node < 1:
        raise MgfarmError(f"--replicas-per-node must be at least 1, got {replicas_per_node}.")
    ray = connect(address)
    if farm_actors():
        raise MgfarmError(
            "Farms are already up on this Ray cluster; see `mgfarm ps --ray` or `mgfarm down --ray`."
        )
    nodes = _farm_nodes(replicas_per_node, kvm)
    actors = [_spawn(n, replicas_per_node, backend, dict(options or {}), kvm) for n in nodes]
    pending = {a.up.remote(): n for a, n in zip(actors, nodes, strict=True)}
    results: list[dict[str, Any]] = []
    failures: list[str] = []
    for ref, node in pending.items():
        try:
            results.append(ray.get(ref))
        except Exception as exc:  # any node failing means the whole `up` is undone
            failures.append(f"node {node.address} ({node.node_id[:8]}): {_reason(exc)}")
    if failures:
        _stop(actors)
        raise MgfarmError(f"Could not start every farm ({'; '.join(failures)}); nothing was left running.")
    return results


def ps(address: str) -> list[dict[str, Any]]:
    """Every node's farm status."""
    ray = connect(address)
    statuses = []
    for actor in farm_actors():
        try:
            statuses.append(ray.get(actor.status.remote(), timeout=30))
        except Exception as exc:  # a dead node shows up as a row with its reason
            statuses.append({"node_id": "?", "farm": "?", "up": False, "error": _reason(exc), "replicas": []})
    return statuses


def down(address: str) -> list[str]:
    """Stop every node's farm and its actor; returns one line per node."""
    connect(address)
    actors = farm_actors()
    if not actors:
        raise MgfarmError("No mgfarm farms are up on this Ray cluster; nothing to stop.")
    return _stop(actors)


def _stop(actors: list[Any]) -> list[str]:
    ray = import_ray()
    lines: list[str] = []
    for actor in actors:
        try:
            lines.append(ray.get(actor.down.remote(), timeout=120))
        except Exception as exc:
            lines.append(f"could not stop a farm: {_reason(exc)}")
        ray.kill(actor)
    # ray.kill returns before the actor's name is freed; wait so that a new `up` is not refused.
    deadline = time.monotonic() + 30
    while farm_actors() and time.monotonic() < deadline:
        time.sleep(0.2)
    return lines


def _reason(exc: BaseException) -> str:
    """One line from an exception that may have crossed Ray (RayTaskError wraps the original)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        exc = cause
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__
