"""adbd of the simulated device: a TCP listener whose connections speak the ADB transport protocol."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import TYPE_CHECKING

from mgfarm.sim.adbd.services import open_service
from mgfarm.sim.adbd.transport import Transport

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.adbd")


class Adbd:
    """Accepts ADB connections for one device; each becomes a `Transport` with its own streams."""

    def __init__(self, device: SimDevice, host: str, port: int) -> None:
        self.device = device
        self.host = host
        self.port = port
        self.transports: set[Transport] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port, reuse_address=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # OKAY then WRTE are small back-to-back writes: Nagle would hold the second for a delayed ACK.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        transport = Transport(self.device, reader, writer, open_service)
        self.transports.add(transport)
        try:
            await transport.run()
        finally:
            self.transports.discard(transport)

    def drop_transports(self) -> None:
        """Disconnect every host, as when adbd restarts; the hosts reconnect on their own."""
        for transport in list(self.transports):
            transport.writer.close()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for transport in list(self.transports):
            await transport.shutdown()
        if self._server is not None:
            await self._server.wait_closed()
