"""One simulated device: the hub that the ADB services, the console and the shell all reach."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mgfarm.sim.io import LocalServer, ShellIO
from mgfarm.sim.system import procfs
from mgfarm.sim.system.fs import DeviceFS
from mgfarm.sim.system.props import Props, default_props
from mgfarm.sim.system.space import DEFAULT_STORAGE

if TYPE_CHECKING:
    from mgfarm.sim.framebuffer import FrameBuffer
    from mgfarm.sim.system.services import Services


@dataclass
class DeviceConfig:
    """What distinguishes one simulated device from another."""

    name: str
    adb_port: int
    data_dir: Path  # host folder owned by this device (its Android root lives under it)
    snapshot_dir: Path  # where this device saves named snapshots (shared by the devices of a worker)
    width: int = 1080
    height: int = 2400
    density: int = 420
    token_file: Path | None = None  # console auth token; None means ~/.emulator_console_auth_token
    golden_dir: Path | None = None  # read-only snapshots (the farm's golden), searched after snapshot_dir
    host: str = "127.0.0.1"
    extra_props: dict[str, str] = field(default_factory=dict)
    profile: str = "android13"  # see mgfarm.sim.system.profiles: names the system apps' packages
    storage: int = DEFAULT_STORAGE  # bytes of the data partition (system/space.py)

    @property
    def console_port(self) -> int:
        return self.adb_port - 1

    @property
    def serial(self) -> str:
        return f"emulator-{self.console_port}"


class SimDevice:
    """State and behaviour of one simulated device.

    Durable state lives in files under `fs.root` (SQLite databases, settings, /sdcard); the
    in-memory parts (properties, activity stack, UI state, clock) round-trip through
    `export_state`/`import_state` so a snapshot captures everything.
    """

    def __init__(self, config: DeviceConfig) -> None:
        self.config = config
        # Files are stamped with the device clock, as a device's kernel stamps them with its own.
        self.fs = DeviceFS(config.data_dir / "root", now=self.now, size=config.storage)
        self.fs.virtual.update(procfs.virtual_files(self))
        self.fs.programs = shell_programs
        self.props = Props(default_props(config.name, config.width, config.height, config.density))
        self.props.values.update(config.extra_props)
        self.local_servers: dict[int, LocalServer] = {}
        self.root_adbd = True  # emulator images run adbd as root
        self.booted = asyncio.Event()
        self.killed = asyncio.Event()  # set by `kill` on the console or `reboot:`; hosts stop the device
        self._services: Services | None = None  # made by `start_services`, the first part of boot
        self.started_at = time.monotonic()
        # Bumped after anything that may change what the screen shows (see `changed`).
        self.epoch = 0
        # Set by the host: drops and re-announces every transport, as when adbd restarts (root/unroot).
        self.on_adbd_restart: Callable[[], None] | None = None
        # The farm's shared frame file for this device, mapped by the worker before it was confined
        # (`mgfarm-frame`); None: screens leave only as PNG over adb.
        self.framebuffer: FrameBuffer | None = None

    @property
    def services(self) -> Services:
        """The system services (settings, packages, providers, clock, activities, window, apps...)."""
        if self._services is None:
            raise RuntimeError(f"device {self.config.name} has not started its services: boot it first")
        return self._services

    def device_ns(self, host_ns: int) -> int:
        """A host instant (a change time the host kernel stamped) in device time; host time before
        the services start."""
        return self._services.clock.device_ns(host_ns) if self._services is not None else host_ns

    def now(self) -> float:
        """The device's wall time in seconds: its clock service once started, host time before."""
        return self._services.clock.now() if self._services is not None else time.time()

    def changed(self) -> None:
        """Note that state behind the screen may have changed: the window manager composes anew.

        Every way in that can write (shell commands other than pure reads, sync pushes, input,
        uiautomator2 actions, console commands, snapshot loads) calls this when it is done.
        """
        self.epoch += 1

    async def shell(self, command: str, io: ShellIO) -> int:
        """Run one shell command line; returns its exit status."""
        from mgfarm.sim.shell import run_command_line

        return await run_command_line(self, command, io)

    def start_services(self) -> None:
        """Lay out the filesystem and start the system services: the part of `boot` before the apps."""
        from mgfarm.sim.system.services import start_services

        self.fs.create_skeleton()
        self._services = start_services(self)

    async def boot(self) -> None:
        """Start the system services, install and seed apps, then report boot."""
        from mgfarm.sim.apps import install_apps

        self.start_services()
        install_apps(self)
        self.props.set("sys.boot_completed", "1")
        self.props.set("dev.bootcomplete", "1")
        self.props.set("init.svc.bootanim", "stopped")
        self.booted.set()


def shell_programs() -> frozenset[str]:
    """/system/bin: the shell's commands (the shell package is loaded by then, or now)."""
    from mgfarm.sim.shell import registry

    return registry.programs()
