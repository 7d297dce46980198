"""The simulated device's shell: an mksh-like interpreter and the commands it can run.

Importing this package registers every command module with the registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import (  # noqa: F401  (importing registers the commands)
    am_cmd,
    archive_cmd,
    awk,
    basic,
    blocks,
    cut_cmd,
    data_cmd,
    diff_cmd,
    dump_cmd,
    dumpsys,
    expr_cmd,
    file_cmd,
    files,
    find_cmd,
    grep_cmd,
    ime_cmd,
    lines_cmd,
    logcat,
    ls_cmd,
    net_cmd,
    pm_cmd,
    sed,
    service_cmd,
    settings_cmd,
    signals,
    sort_cmd,
    stat_cmd,
    system,
    test_cmd,
    text,
    tr_cmd,
    ui_cmd,
    xargs_cmd,
)
from mgfarm.sim.shell.interp import Shell, run_line
from mgfarm.sim.uiautomator import launcher as _u2_launcher  # noqa: F401  (registers app_process)

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

__all__ = ["ShellSession", "run_command_line"]


async def run_command_line(device: SimDevice, line: str, io: ShellIO) -> int:
    """Run one shell command line on `device`; returns its exit status (127 unknown, 2 syntax)."""
    return await run_line(device, line, io)


class ShellSession:
    """One shell whose variables, working directory and `$?` persist from line to line: what an
    interactive `adb shell` needs (`cd /sdcard` then `ls`). An `exit` line sets `exited`."""

    def __init__(self, device: SimDevice) -> None:
        self._shell = Shell(device)
        self.exited = False

    @property
    def status(self) -> int:
        return self._shell.status

    @property
    def cwd(self) -> str:
        return self._shell.cwd

    async def run(self, line: str, io: ShellIO) -> int:
        try:
            status, self.exited = await self._shell.run_session_text(line, io)
        finally:
            await io.stdout.flush()
            await io.stderr.flush()
        return status
