"""Tables the farm commands print: the `ps` listing and the summary after `up`."""

from __future__ import annotations

import time
from typing import Any

from rich.table import Table

from mgfarm.farm.state import READY, FarmState, uptime

_STATE_STYLE = {"ready": "green", "booting": "yellow", "restoring": "yellow", "failed": "red"}


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def farm_table(farm: FarmState) -> Table:
    """One row per replica: replica, serial, state, uptime, snapshot, console, adb and gRPC ports
    (no gRPC column when no device serves one)."""
    ready = sum(r.state == READY for r in farm.replicas)
    title = (
        f"farm {farm.name} · {farm.backend} · {farm.profile} · adb server 127.0.0.1:{farm.adb_server_port} · "
        f"{ready}/{len(farm.replicas)} ready"
    )
    table = Table(title=title, title_justify="left")
    grpc = any(r.grpc_port for r in farm.replicas)
    columns = ["replica", "serial", "state", "uptime", "snapshot", "console", "adb"] + (
        ["grpc"] if grpc else []
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("serial", "state", "snapshot") else "right")
    now = time.time()
    for rep in farm.replicas:
        style = _STATE_STYLE.get(rep.state, "")
        state = f"[{style}]{rep.state}[/]" if style else rep.state
        if rep.reason and rep.state != READY:
            state += f" ({rep.reason})"
        up = _duration(uptime(rep, now)) if rep.state == READY else "-"
        ports = [str(rep.console_port or "-"), str(rep.adb_port or "-")]
        if grpc:
            ports.append(str(rep.grpc_port or "-"))
        table.add_row(str(rep.index), rep.serial, state, up, farm.snapshot, *ports)
    return table


def farm_json(farm: FarmState) -> dict[str, Any]:
    """The farm as `ps --json` prints it (the state file plus uptime; no console tokens)."""
    data = farm.to_json()
    now = time.time()
    for rep_data, rep in zip(data["replicas"], farm.replicas, strict=True):
        rep_data.pop("console_token", None)
        rep_data["uptime"] = round(uptime(rep, now), 1) if rep.state == READY else 0.0
    return data


def summary_line(farm: FarmState, seconds: float) -> str:
    ready = sum(r.state == READY for r in farm.replicas)
    return (
        f"{ready}/{len(farm.replicas)} replicas ready in {seconds:.1f} s; "
        f"adb: `adb -P {farm.adb_server_port} devices`; stop with `mgfarm down --farm {farm.name}`."
    )
