"""A booted simulated device driven in-process through `run_command_line`, for the shell tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from mgfarm.sim.device import DeviceConfig, SimDevice
from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import run_command_line


@dataclass
class Result:
    status: int
    out: bytes
    err: bytes

    @property
    def text(self) -> str:
        return self.out.decode()

    @property
    def error(self) -> str:
        return self.err.decode()


class ShellDevice:
    """One device on its own event loop; `run(line)` returns status, stdout and stderr."""

    def __init__(self, tmp_path: Path, boot: bool = True) -> None:
        self.loop = asyncio.new_event_loop()
        config = DeviceConfig(
            name="shell", adb_port=5555, data_dir=tmp_path / "dev", snapshot_dir=tmp_path / "snaps"
        )
        self.device = SimDevice(config)
        if boot:
            self.loop.run_until_complete(self.device.boot())
        else:
            self.device.start_services()

    def run(self, line: str, stdin: bytes = b"", timeout: float = 10.0) -> Result:
        io = ShellIO.buffered(stdin)
        status = self.loop.run_until_complete(
            asyncio.wait_for(run_command_line(self.device, line, io), timeout)
        )
        return Result(status, bytes(io.stdout.collected), bytes(io.stderr.collected))

    def host(self, path: str) -> Path:
        return self.device.fs.host(path)

    def close(self) -> None:
        self.loop.close()
