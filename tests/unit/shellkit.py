"""A booted simulated device driven in-process through `run_command_line`, for the shell tests, and
the same device as the judge sees one (`SimTaskDevice`: shell and pulls)."""

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


@dataclass
class Reply:
    output: str
    exit_code: int


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


class SimTaskDevice:
    """A simulated device in this process, as the capture sees a device: shell and pulls."""

    profile = ""

    def __init__(self, tmp_path: Path) -> None:
        self.sh = ShellDevice(tmp_path)
        self.pulled: list[str] = []
        self.longest = 0  # bytes of the longest command line sent

    def shell(self, script: str) -> str:
        self.longest = max(self.longest, len(script.encode()))
        result = self.sh.run(script)
        return result.text + result.error

    def shell2(self, script: str) -> Reply:
        result = self.sh.run(script)
        return Reply(result.text + result.error, result.status)

    def pull_many(self, paths: list[str], limit: int | None = None) -> list[bytes | None]:
        self.pulled += paths
        found = [self.sh.host(p).read_bytes() if self.sh.host(p).is_file() else None for p in paths]
        return [d if d is None or limit is None else d[: limit + 1] for d in found]
