"""Names shared by the farm actors, the env workers and the operator's `ray start --resources`."""

from __future__ import annotations

# One unit per device replica a node can host: `ray start --resources '{"mgfarm_replica": 8}'`.
# An env worker asks for one, so Ray never places more episodes on a node than it has replicas.
REPLICA_RESOURCE = "mgfarm_replica"
# Set on nodes with /dev/kvm (`"mgfarm_kvm": 1`); emulator farms are only started there.
KVM_RESOURCE = "mgfarm_kvm"
# Named, detached farm actors live here so that `mgfarm ps --ray` from another driver finds them.
NAMESPACE = "mgfarm"
FARM_ACTOR_PREFIX = "farm-"


def farm_name(node_id: str) -> str:
    """The local farm (state file name) that the farm actor on `node_id` owns."""
    return f"ray-{node_id[:12].lower()}"


def farm_actor_name(node_id: str) -> str:
    return f"{FARM_ACTOR_PREFIX}{node_id}"
