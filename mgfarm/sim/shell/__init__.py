"""The simulated device's shell: an mksh-like interpreter and the commands it can run.

Importing this package registers every command module with the registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import (  # noqa: F401  (importing registers the commands)
    am_cmd,
    basic,
    data_cmd,
    dumpsys,
    files,
    ime_cmd,
    pm_cmd,
    settings_cmd,
    system,
    text,
    ui_cmd,
)
from mgfarm.sim.shell.interp import run_line
from mgfarm.sim.uiautomator import launcher as _u2_launcher  # noqa: F401  (registers app_process)

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

__all__ = ["run_command_line"]


async def run_command_line(device: SimDevice, line: str, io: ShellIO) -> int:
    """Run one shell command line on `device`; returns its exit status (127 unknown, 2 syntax)."""
    return await run_line(device, line, io)
