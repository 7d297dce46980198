"""`serve --grpc PORT`: each device's emulator gRPC API, started after the device (see mgfarm.sim.grpc).

grpcio is imported only when a port is asked for, so serving without gRPC needs none of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mgfarm.errors import MgfarmError

if TYPE_CHECKING:
    import grpc

    from mgfarm.sim.device import SimDevice


@dataclass
class Serving:
    """One device's running gRPC server and its port."""

    server: grpc.aio.Server
    port: int


def ports(base: int | None, count: int) -> list[int]:
    return [] if base is None else [base + i for i in range(count)]


async def serve(device: SimDevice, base: int | None, index: int) -> Serving | None:
    """Serve the device's gRPC API on port `base + index`; None when no `--grpc` was given."""
    if base is None:
        return None
    port = base + index
    if not 1 <= port <= 65535:
        raise MgfarmError(
            f"--grpc {base} leaves no room for device {index + 1}; pick a port below {65535 - index}."
        )
    try:
        from mgfarm.sim.grpc.server import start_grpc
    except ImportError as exc:
        raise MgfarmError(
            f"--grpc needs grpcio and protobuf ({exc.name} is missing): pip install grpcio protobuf"
        ) from exc
    try:
        return Serving(await start_grpc(device, device.config.host, port), port)
    except (OSError, RuntimeError) as exc:
        raise MgfarmError(
            f"cannot serve gRPC on {device.config.host}:{port} ({exc}); pick a free port with --grpc."
        ) from exc


def ready(serving: Serving | None) -> str:
    """The ` grpc=PORT` part of the `ready` line, when the device serves gRPC."""
    return f" grpc={serving.port}" if serving else ""


async def stop(serving: Serving | None) -> None:
    if serving:
        await serving.server.stop(grace=0.5)
