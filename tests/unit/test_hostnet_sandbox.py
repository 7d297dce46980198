"""A sandboxed worker serving gRPC: its threads still may not connect to a host port, while its
connector (mgfarm.sim.hostnet, started before the sandbox) reaches 127.0.0.1 for the a11y forwarder."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mgfarm.farm.ports import free_port
from mgfarm.sim.confine import landlock_abi

ABI, WHY = landlock_abi()

# Runs in a fresh interpreter, as `sim serve --grpc` does it: connector, then the sandbox, then tries.
PROBE = r"""
import asyncio, socket, sys
from pathlib import Path
from mgfarm.sim import hostnet
from mgfarm.sim.server import ServeOptions, device_configs, sandbox_for
from mgfarm.sim.confine import confine, describe
data, port = Path(sys.argv[1]), int(sys.argv[2])
options = ServeOptions(adb_port=int(sys.argv[3]), data_dir=data, announce=None, grpc_port=int(sys.argv[4]))
hostnet.start_connector()
print(describe(confine(sandbox_for(options, device_configs(options, data), data))), flush=True)
try:
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    print("direct ALLOWED", flush=True)
except OSError as exc:
    print("direct denied", exc.errno, flush=True)
async def through_connector():
    sock = await hostnet.connect(port)
    sock.close()
asyncio.run(through_connector())
print("connector ALLOWED", flush=True)
"""


@pytest.mark.skipif(ABI < 4, reason=f"no Landlock network rules on this kernel: {WHY or f'ABI {ABI}'}")
def test_only_the_connector_thread_reaches_a_host_port(tmp_path: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    data = tmp_path / "data"
    data.mkdir()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, str(data), str(port), str(free_port()), str(free_port())],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        listener.close()
    lines = proc.stdout.splitlines()
    assert lines and lines[0].startswith(f"sandbox: Landlock ABI {ABI}"), proc.stdout + proc.stderr
    assert "unconfined" not in lines[0]  # the connector is expected, not reported as a leak
    assert lines[1].startswith("direct denied"), lines
    assert lines[2] == "connector ALLOWED", proc.stderr
