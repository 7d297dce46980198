"""What `mgfarm up|ps|down --ray` print: one table row per node's farm."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from mgfarm.farm.backends import check_storage
from mgfarm.farm.profiles import check_profile


def farms_table(statuses: list[dict[str, Any]]) -> Table:
    """One row per node: node, host, farm, ready/total, replica states."""
    table = Table(title="mgfarm farms on the Ray cluster")
    for column in ("node", "host", "farm", "backend", "ready", "replicas"):
        table.add_column(column)
    for s in statuses:
        replicas = s.get("replicas", [])
        states = ", ".join(f"{r['serial']}:{r['state']}" for r in replicas) or s.get("error", "down")
        table.add_row(
            str(s.get("node_id", "?"))[:12],
            str(s.get("host", "?")),
            str(s.get("farm", "?")),
            str(s.get("backend", "?")),
            f"{s.get('ready', 0)}/{len(replicas)}",
            states,
        )
    return table


def farm_options(
    image: str | None,
    snapshot: str | None,
    adb_port: int | None,
    cpus: float | None,
    memory: str | None,
    profile: str | None = None,
    grpc: bool | None = None,
    storage: str | None = None,
) -> dict[str, Any]:
    """The `mgfarm.farm.api.up` keyword arguments each node's farm gets (only those given); a bad
    --profile or --storage is refused here, before any node starts a farm."""
    if profile is not None:
        check_profile(profile)
    if storage is not None:
        storage = check_storage(storage)
    given = {"image": image, "snapshot": snapshot, "adb_port": adb_port, "cpus": cpus, "memory": memory}
    given.update(profile=profile, grpc=grpc, storage=storage)
    return {k: v for k, v in given.items() if v is not None}
