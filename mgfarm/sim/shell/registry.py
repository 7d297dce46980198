"""The table of shell commands. Any sim module may add commands with `@command("name")`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mgfarm.sim.io import ShellIO

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice
    from mgfarm.sim.system.fs import DeviceFS


@dataclass
class Invocation:
    """One command as the interpreter runs it: argv after expansion, its streams and environment."""

    device: SimDevice
    argv: list[str]
    io: ShellIO
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = "/"
    uid: int = 0  # who it runs as: adbd's uid, or su's

    @property
    def fs(self) -> DeviceFS:
        """The device's files as this command's uid may reach them (what a user names goes here)."""
        return self.device.fs.as_user(self.uid)

    def out(self, text: str | bytes) -> None:
        self.io.stdout.write(text)

    def err(self, text: str | bytes) -> None:
        self.io.stderr.write(text)


CommandFn = Callable[[Invocation], Awaitable[int]]
COMMANDS: dict[str, CommandFn] = {}


def command(*names: str) -> Callable[[CommandFn], CommandFn]:
    """Register an async command under one or more names (e.g. `toybox md5sum` and `md5sum`)."""

    def register(fn: CommandFn) -> CommandFn:
        for name in names:
            COMMANDS[name] = fn
        return fn

    return register


_programs: tuple[int, frozenset[str]] = (0, frozenset())


def programs() -> frozenset[str]:
    """What /system/bin holds: every registered command, and the shell itself."""
    global _programs
    if _programs[0] != len(COMMANDS):
        _programs = (len(COMMANDS), frozenset(COMMANDS) | {"sh"})
    return _programs[1]


def is_number(text: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '¹' or '٣', which int() and sh reject."""
    return text.isascii() and text.isdigit()
