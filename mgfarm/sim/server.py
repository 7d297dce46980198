"""`mgfarm sim serve`: many simulated devices in one asyncio process, on consecutive port pairs."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from mgfarm.errors import MgfarmError
from mgfarm.sim import grpc_hook, hostnet, snapshot
from mgfarm.sim.adbd import Adbd
from mgfarm.sim.confine import Report, Sandbox, confine, describe
from mgfarm.sim.console import Console, TokenError, default_token_file, read_token
from mgfarm.sim.device import DeviceConfig, SimDevice
from mgfarm.sim.framebuffer import RAW, RAW_KEPT_ALONE, FrameBuffer, open_buffers
from mgfarm.sim.heap import keep_freed_memory, trim_when_idle
from mgfarm.sim.release import Release
from mgfarm.sim.system.props import profile_overrides
from mgfarm.sim.system.space import DEFAULT_STORAGE, MIN_STORAGE

log = logging.getLogger("mgfarm.sim.server")

# A 64-device worker measured ~140 MiB of data segment (VmData) after booting and a screenshot, an app
# start and a dump on each device; 2 GiB leaves room for caches and threads and stops a runaway device.
DEFAULT_MEMORY_LIMIT = 2 * 1024**3
MIN_MEMORY_LIMIT = 256 * 1024**2  # below this the interpreter and its libraries fail to load
REANNOUNCE_SECONDS = 0.5  # how often a device without an adb server transport announces itself
ANNOUNCE_READY_TIMEOUT = 10.0  # seconds `ready` waits for the adb server to attach an announced device


@dataclass
class ServeOptions:
    adb_port: int = 5555
    count: int = 1
    data_dir: Path | None = None  # None: a temporary folder removed at exit
    snapshot_dir: Path | None = None  # None: <data_dir>/snapshots, shared by the devices
    token_file: Path | None = None
    announce: int | None = None  # adb server port to announce each device to
    host: str = "127.0.0.1"
    golden_dir: Path | None = None  # read-only snapshots (the farm's golden), searched after snapshot_dir
    sandbox: bool = True  # confine the worker with the kernel (see mgfarm.sim.confine)
    user: str = "nobody"  # who the worker becomes when started as root
    memory_limit: int = DEFAULT_MEMORY_LIMIT  # bytes of RLIMIT_DATA; 0: no cap
    grpc_port: int | None = None  # --grpc: device 1's emulator gRPC port, the next ones count up
    profile: str = "android13"  # --profile: which emulator image the devices mirror (props, dumpsys, apps)
    frames_dir: Path | None = None  # --frames: the farm's folder of per-device frame files (`SERIAL.frame`)
    storage: int = DEFAULT_STORAGE  # --storage: bytes of each device's data partition


def device_configs(options: ServeOptions, data_dir: Path) -> list[DeviceConfig]:
    snapshots = options.snapshot_dir or data_dir / "snapshots"
    configs = []
    for i in range(options.count):
        adb_port = options.adb_port + 2 * i
        configs.append(
            DeviceConfig(
                name=f"mgfarm_sim_{adb_port - 1}",
                adb_port=adb_port,
                data_dir=data_dir / f"emulator-{adb_port - 1}",
                snapshot_dir=snapshots,
                golden_dir=options.golden_dir,
                token_file=options.token_file,
                host=options.host,
                extra_props=profile_overrides(options.profile),
                profile=options.profile,
                storage=options.storage,
            )
        )
    return configs


async def announce(adb_server_port: int, adb_port: int) -> bool:
    """Tell an adb server that an emulator listens on adb_port (`host:emulator:P`); False if unreachable."""
    request = f"host:emulator:{adb_port}".encode()
    try:
        _reader, writer = await asyncio.open_connection("127.0.0.1", adb_server_port)
    except OSError:
        return False
    writer.write(f"{len(request):04x}".encode() + request)
    with contextlib.suppress(OSError):
        await writer.drain()
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


class DeviceHost:
    """One device with its adbd and console listeners."""

    def __init__(self, config: DeviceConfig, announce_to: int | None, token: str | None = None) -> None:
        self.device = SimDevice(config)
        self.announce_to = announce_to
        self.token = token
        self.adbd = Adbd(self.device, config.host, config.adb_port)
        self.console: Console | None = None
        self.device.on_adbd_restart = self.restart_adbd
        self._announcer: asyncio.Task[None] | None = None
        self.grpc: grpc_hook.Serving | None = None  # the device's gRPC server, when `--grpc` asks for one
        self.announced = False  # an adb server took the first announcement

    async def start(self) -> None:
        """Boot the device, then listen; raises MgfarmError when a port is taken."""
        config = self.device.config
        await self.device.boot()
        self.console = Console(self.device, config.host, config.console_port, self.token)
        try:
            await self.console.start()
            await self.adbd.start()
        except OSError as exc:
            await self.stop()
            if exc.errno == errno.EADDRINUSE:
                raise MgfarmError(
                    f"port {config.console_port} or {config.adb_port} on {config.host} is already in use; "
                    "pick a free pair with --adb-port."
                ) from exc
            raise MgfarmError(f"cannot listen on {config.host}:{config.adb_port}: {exc.strerror}.") from exc
        if self.announce_to is not None:
            self.announced = await announce(self.announce_to, config.adb_port)
            if not self.announced:
                log.warning("%s: no adb server on port %d to announce to", config.serial, self.announce_to)
            self._announcer = asyncio.get_running_loop().create_task(self.keep_announced(self.announce_to))

    async def keep_announced(self, adb_server_port: int) -> None:
        """Announce again while no adb server is attached, as emulators do after `adb kill-server`.

        A killed server drops its transport; a new one on the same port knows nothing of this
        device until it is announced, so the device keeps knocking until a transport is back.
        """
        port = self.device.config.adb_port
        while True:
            await asyncio.sleep(REANNOUNCE_SECONDS)
            if not any(t.connected for t in self.adbd.transports):
                await announce(adb_server_port, port)

    async def attached(self, timeout: float) -> bool:
        """Whether an adb server holds a transport to this device (CNXN done) within `timeout` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not any(t.connected for t in self.adbd.transports):
            if loop.time() > deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    def restart_adbd(self) -> None:
        """Drop every transport and announce again, like adbd restarting inside an emulator."""
        self.adbd.drop_transports()
        if self.announce_to is not None:
            asyncio.get_running_loop().create_task(announce(self.announce_to, self.device.config.adb_port))

    async def stop(self) -> None:
        if self._announcer is not None:
            self._announcer.cancel()
        await self.adbd.stop()
        if self.console is not None:
            await self.console.stop()


async def serve(options: ServeOptions, say: Callable[[str], None], stop: asyncio.Event) -> None:
    """Boot and serve the devices until `stop` is set or every device was killed."""
    if options.count < 1:
        raise MgfarmError(f"--count {options.count} is not a device count; pass 1 or more.")
    if 0 < options.memory_limit < MIN_MEMORY_LIMIT:
        raise MgfarmError(
            f"--memory-limit {options.memory_limit // 1024**2}m is below the 256m a worker needs to start; "
            "pass 256m or more, or 0 for no cap."
        )
    if options.storage < MIN_STORAGE:
        raise MgfarmError(
            f"--storage {options.storage // 1024**2}m is below the 64m a device needs for its own files; "
            "pass 64m or more (the default is 2g)."
        )
    highest = 65535 - 2 * (options.count - 1)
    if not 2 <= options.adb_port <= highest:
        raise MgfarmError(
            f"--adb-port {options.adb_port} leaves no room for {options.count} port pairs; "
            f"pick an adb port from 2 to {highest}."
        )
    temp: Path | None = None
    data_dir = options.data_dir
    if data_dir is None:
        temp = data_dir = Path(tempfile.mkdtemp(prefix="mgfarm-sim-"))
    hosts: list[DeviceHost] = []
    trimmers: list[asyncio.Task[None]] = []
    try:
        configs = device_configs(options, data_dir)
        token = prepare_files(configs)
        check_ports(configs)
        for config in configs:
            snapshot.recover(config)
        if options.grpc_port is not None:
            # Before the sandbox: the one thread that may connect to 127.0.0.1 for the devices, as an
            # emulator reaches the host through 10.0.2.2 (android_env's a11y wrapper; mgfarm.sim.hostnet).
            hostnet.start_connector()
        # Mapped before the sandbox, which gives the device no path to them (mgfarm/sim/framebuffer.py).
        buffers = frame_buffers(options, configs)
        if len(configs) == 1:
            RAW.limit(RAW_KEPT_ALONE)
        # The memory kept for fast frames goes back while the worker is lightly used, all once idle.
        release = Release(buffers)
        loop = asyncio.get_running_loop()
        trimmers = [
            loop.create_task(trim_when_idle(also=release.idle, worked=release.worked)),
            loop.create_task(release.while_light()),
        ]
        if options.sandbox:
            say_sandbox(confine(sandbox_for(options, configs, data_dir)))
        ready: list[asyncio.Task[None]] = []
        for config in configs:
            host = DeviceHost(config, options.announce, token)
            host.device.framebuffer = buffers.get(config.serial)
            await host.start()
            hosts.append(host)
            host.grpc = await grpc_hook.serve(host.device, options.grpc_port, len(hosts) - 1)
            ready.append(asyncio.get_running_loop().create_task(say_ready(host, options.announce, say)))
        await wait_until_done(hosts, stop)
        for task in ready:
            task.cancel()
    finally:
        for trimmer in trimmers:
            trimmer.cancel()
        for host in hosts:
            await host.stop()
            await grpc_hook.stop(host.grpc)
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


def frame_buffers(options: ServeOptions, configs: list[DeviceConfig]) -> dict[str, FrameBuffer]:
    """Map the frame files the farm created for these devices; MgfarmError when one cannot be."""
    if options.frames_dir is None:
        return {}
    config = configs[0]
    try:
        return open_buffers(options.frames_dir, [c.serial for c in configs], config.width, config.height)
    except (OSError, ValueError) as exc:
        raise MgfarmError(
            f"cannot map the frame files in {options.frames_dir} ({exc}); pass the farm's --frames folder."
        ) from exc


async def say_ready(host: DeviceHost, announce_to: int | None, say: Callable[[str], None]) -> None:
    """`ready ...` once the device can be used: announced devices only when their adb server has
    attached them, so a caller that reads the line can run `adb -s SERIAL` at once."""
    config = host.device.config
    if host.announced and not await host.attached(ANNOUNCE_READY_TIMEOUT):
        log.warning("%s: the adb server on port %d has not attached it yet", config.serial, announce_to)
    grpc = grpc_hook.ready(host.grpc)
    say(f"ready {config.serial} adb={config.adb_port} console={config.console_port}{grpc}")


def sandbox_for(options: ServeOptions, configs: list[DeviceConfig], data_dir: Path) -> Sandbox:
    """Read-write: the data folder and the snapshot folder; read-only: the golden snapshots."""
    writable = [data_dir, configs[0].snapshot_dir]
    readable = [options.golden_dir] if options.golden_dir else []
    temp = data_dir / "tmp"  # SQLite and tempfile users stay inside the sandbox
    temp.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = os.environ["SQLITE_TMPDIR"] = str(temp)
    tempfile.tempdir = None
    return Sandbox(
        writable=writable,
        readable=readable,
        bind_ports=[p for c in configs for p in (c.console_port, c.adb_port)]
        + grpc_hook.ports(options.grpc_port, len(configs)),
        connect_ports=[options.announce] if options.announce is not None else [],
        user=options.user,
        memory_bytes=options.memory_limit,
        own_threads=1 if options.grpc_port is not None else 0,  # hostnet's connector, started first
    )


def say_sandbox(report: Report) -> None:
    """The sandbox line goes to the log: a weaker sandbox is a warning, never a failure."""
    line = describe(report)
    if report.landlock_abi and not report.notes:
        print(f"{log.name}: {line}", file=sys.stderr, flush=True)  # the worker's log says how it runs
    else:
        log.warning("%s", line)


def prepare_files(configs: list[DeviceConfig]) -> str:
    """Create the data and snapshot folders and read the console token before anything boots."""
    config = configs[0]  # the devices share the data root, the snapshot folder and the token file
    for folder, option in ((config.data_dir.parent, "--data"), (config.snapshot_dir, "--snapshots")):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MgfarmError(
                f"cannot create {folder} ({exc.strerror}); pass a writable {option} folder."
            ) from exc
    token_file = config.token_file or default_token_file()
    try:
        return read_token(token_file)
    except TokenError as exc:
        raise MgfarmError(f"{exc}.") from exc
    except OSError as exc:
        raise MgfarmError(
            f"cannot read or create the console token {token_file} ({exc.strerror}); "
            "pass a readable --token-file."
        ) from exc


def check_ports(configs: list[DeviceConfig]) -> None:
    """Fail before booting anything when a port is taken."""
    for config in configs:
        for port in (config.console_port, config.adb_port):
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the listeners will
                try:
                    sock.bind((config.host, port))
                except OSError as exc:
                    if exc.errno == errno.EADDRINUSE:
                        taken = f"port {port} on {config.host} is already in use"
                        raise MgfarmError(f"{taken}; pick a free pair with --adb-port.") from exc
                    raise MgfarmError(
                        f"cannot listen on {config.host}:{port} ({exc.strerror}); "
                        "pass an address of this machine with --host."
                    ) from exc


async def wait_until_done(hosts: list[DeviceHost], stop: asyncio.Event) -> None:
    """Return when stop is set or all devices were killed; a killed device stops serving at once."""
    live = {asyncio.ensure_future(h.device.killed.wait()): h for h in hosts}
    stopper = asyncio.ensure_future(stop.wait())
    try:
        while live:
            done, _ = await asyncio.wait({*live, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if stopper in done:
                return
            for fut in done:
                host = live.pop(fut)
                log.info("%s: killed", host.device.config.serial)
                await host.stop()
    finally:
        stopper.cancel()
        for fut in live:
            fut.cancel()


class BoundedLog(logging.StreamHandler[TextIO]):
    """The worker's log, bounded: a device can trigger some warnings at will (a settings database it
    overwrote, a bad packet), and a loop of them must not fill the host's disk through this file.
    Each message (by its template) is written `repeats` times at most, the whole log `limit` bytes."""

    def __init__(self, stream: TextIO, limit: int = 64 * 1024 * 1024, repeats: int = 100) -> None:
        super().__init__(stream)
        self.left = limit
        self.repeats = repeats
        self.seen: dict[object, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        key = (record.name, record.msg)
        count = self.seen.get(key, 0) + 1
        if len(self.seen) < 10_000 or key in self.seen:  # the table is bounded too
            self.seen[key] = count
        if count > self.repeats or self.left <= 0:
            return
        text = self.format(record)
        if count == self.repeats:
            text += f"\n{record.name}: (that message came {count} times; it is not written again)"
        self.left -= len(text) + 1
        if self.left <= 0:
            text = f"{record.name}: the log is full; messages after this one are not written"
        self.stream.write(text + "\n")
        self.flush()


def run(options: ServeOptions, say: Callable[[str], None] | None = None) -> None:
    """Serve in the foreground; SIGTERM and SIGINT end it cleanly."""

    def default_say(line: str) -> None:
        print(line, flush=True)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await serve(options, say or default_say, stop)

    handler = BoundedLog(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    keep_freed_memory()
    asyncio.run(main())
