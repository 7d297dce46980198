"""Existing backend: devices the user already runs (a phone on USB, an emulator started by hand,
`mgfarm sim serve` on some port) adopted into a farm, never started or killed by it.

`--device` names each one: a serial the adb server lists (`emulator-5554`, a USB serial) or a
network address `HOST:PORT` that the farm `adb connect`s. Reset is the console's
`avd snapshot load`, so a device needs a console for it: an `emulator-NNNN` serial has one on port
NNNN, any other device gets one named as `SERIAL,console=PORT`. A device without a `golden`
snapshot gets one saved from its state at adoption, as a fresh farm's devices do. A farm of devices
without a console runs with `--snapshot none`: episodes then start from whatever state the device
is in. Stopping disconnects what the farm connected and leaves every device running.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mgfarm.adb import server as adbserver
from mgfarm.adb.binary import adb_args
from mgfarm.adb.console import DEFAULT_TOKEN_FILE, read_token
from mgfarm.adb.errors import AdbError, ConsoleError
from mgfarm.errors import MgfarmError
from mgfarm.farm.backends.base import Backend, UpFlags
from mgfarm.farm.state import BOOTING, FarmState, Replica

# backend_id: `connected:SERIAL` for a device this farm `adb connect`ed (and disconnects at the end),
# `adopted:SERIAL` for one that was on the adb server already.
CONNECTED = "connected:"
ADOPTED = "adopted:"
DEFAULT_ADB_SERVER_PORT = 5037
_EMULATOR = re.compile(r"^emulator-(\d+)$")
_ADDRESS = re.compile(r"^[A-Za-z0-9.\-\[\]:]+:(\d{1,5})$")
_SERIAL = re.compile(r"^[A-Za-z0-9._:\-\[\]]+$")


@dataclass(frozen=True)
class DeviceSpec:
    """One `--device`: a serial or HOST:PORT, and its console port (0: it has none)."""

    serial: str
    console_port: int = 0

    @property
    def network(self) -> bool:
        """True for a HOST:PORT the farm reaches with `adb connect`."""
        return _ADDRESS.match(self.serial) is not None

    @property
    def adb_port(self) -> int:
        """The device's adb port where its address says it (0 for a USB serial)."""
        emulator = _EMULATOR.match(self.serial)
        if emulator:
            return int(emulator.group(1)) + 1
        address = _ADDRESS.match(self.serial)
        return int(address.group(1)) if address else 0


def parse_device(text: str) -> DeviceSpec:
    """`emulator-5554`, `R58M12345`, `10.0.0.5:5555` or any of these with `,console=PORT`."""
    serial, _, rest = text.strip().partition(",")
    console = 0
    if rest:
        key, _, value = rest.partition("=")
        if key.strip() != "console" or not value.strip().isdigit() or not 0 < int(value) < 65536:
            raise MgfarmError(
                f"--device {text!r} is not valid; use SERIAL, HOST:PORT or either with ,console=PORT "
                "(e.g. --device 127.0.0.1:5555,console=5554)."
            )
        console = int(value)
    if not _SERIAL.match(serial):
        raise MgfarmError(f"--device {text!r} is not valid; name a serial from `adb devices` or a HOST:PORT.")
    emulator = _EMULATOR.match(serial)
    return DeviceSpec(serial, console or (int(emulator.group(1)) if emulator else 0))


class ExistingBackend(Backend):
    """Adopts devices that run already; attach is `adb connect` (HOST:PORT) or a look at the server."""

    name = "existing"
    snapshot_store = "device"  # a device keeps its own snapshots; nothing is built or placed
    owns_devices = False

    def __init__(self, devices: list[str] | None = None) -> None:
        self.specs = [parse_device(d) for d in devices or []]

    @classmethod
    def options(cls, flags: UpFlags) -> dict[str, object]:
        if not flags.devices:
            raise MgfarmError(
                "--backend existing needs the devices to adopt; name each with --device SERIAL or "
                "--device HOST:PORT (see `adb devices`)."
            )
        serials = [parse_device(d).serial for d in flags.devices]
        twice = sorted({s for s in serials if serials.count(s) > 1})
        if twice:
            raise MgfarmError(f"--device {twice[0]} is named twice; name each device once.")
        return {"devices": list(flags.devices)}

    def default_adb_port(self) -> int:
        """The user's adb server (where their phones and emulators are listed), as adb itself picks it."""
        return int(os.environ.get("ANDROID_ADB_SERVER_PORT") or DEFAULT_ADB_SERVER_PORT)

    def plan(
        self, count: int, first_port: int, reserved: set[int], token: str, snapshot: str
    ) -> list[Replica]:
        """One replica per --device, in order; a reset needs each one's console."""
        if count != len(self.specs):
            raise MgfarmError(
                f"--replicas {count} does not match the {len(self.specs)} --device given; "
                "leave --replicas out with --backend existing."
            )
        if snapshot:
            for spec in self.specs:
                if not spec.console_port:
                    raise MgfarmError(
                        f"Device {spec.serial} has no emulator console, so it cannot be reset to snapshot "
                        f"{snapshot!r}; name its console (--device {spec.serial},console=PORT) or pass "
                        "--snapshot none to run episodes from its current state."
                    )
        console_token = ""
        if snapshot and any(spec.console_port for spec in self.specs):
            try:
                console_token = read_token()
            except ConsoleError:
                raise MgfarmError(
                    f"Resetting adopted devices needs their console token in {DEFAULT_TOKEN_FILE}, which "
                    "cannot be read; write the token the devices use there, or pass --snapshot none."
                ) from None
        # Without a snapshot the farm never opens a console (no reset, no frozen-console probe).
        return [
            Replica(
                i, spec.serial, spec.adb_port, spec.console_port if snapshot else 0, console_token, BOOTING
            )
            for i, spec in enumerate(self.specs)
        ]

    def _spec(self, rep: Replica) -> DeviceSpec:
        return next((s for s in self.specs if s.serial == rep.serial), DeviceSpec(rep.serial))

    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        """Attach each device now; one that cannot be reached stops `up` with one sentence."""
        for rep in replicas:
            listed = adbserver.devices(farm.adb_server_port)
            spec = self._spec(rep)
            if spec.network and rep.serial not in listed:
                self._connect(farm, spec)
                rep.backend_id = CONNECTED + rep.serial
            elif rep.serial in listed:
                rep.backend_id = rep.backend_id or ADOPTED + rep.serial
            else:
                shown = ", ".join(sorted(listed)) or "no device"
                raise MgfarmError(
                    f"Device {rep.serial} is not on the adb server at port {farm.adb_server_port} (it "
                    f"lists {shown}); plug it in or start it, or name it as HOST:PORT to `adb connect` it."
                )
            rep.started_at = time.time()

    def _connect(self, farm: FarmState, spec: DeviceSpec) -> None:
        try:
            reply = adbserver.connect(farm.adb_server_port, spec.serial)
        except AdbError as exc:
            reply = str(exc)
        if not reply.startswith(("connected to", "already connected to")):
            raise MgfarmError(
                f"Device {spec.serial} is not reachable (adb connect: {reply.strip() or 'no reply'}); "
                "start it or check the address."
            )

    def attach(
        self, farm: FarmState, rep: Replica, deadline: float, alive: Callable[[], bool] | None = None
    ) -> None:
        """Until the adb server lists the device as `device`; a network device is connected again."""
        spec = self._spec(rep)
        last_connect = time.monotonic()
        state: str | None = None
        while time.monotonic() < deadline:
            state = adbserver.devices(farm.adb_server_port).get(rep.serial)
            if state == "device":
                return
            if spec.network and state is None and time.monotonic() - last_connect > 1.0:
                last_connect = time.monotonic()
                adbserver.connect(farm.adb_server_port, spec.serial)
            time.sleep(0.25)
        raise MgfarmError(
            f"Device {rep.serial} is {state or 'not listed'} on the adb server at port "
            f"{farm.adb_server_port}; authorise it on the phone or check that it runs."
        )

    def alive(self, farm: FarmState, rep: Replica) -> bool:
        return adbserver.devices(farm.adb_server_port).get(rep.serial) == "device"

    def kill(self, farm: FarmState, rep: Replica, force: bool = False) -> None:
        """Detach only: disconnect a device this farm connected; the device itself keeps running."""
        if rep.backend_id.startswith(CONNECTED):
            adbserver.disconnect(farm.adb_server_port, rep.serial)

    def stop(self, farm: FarmState, rep: Replica, frozen: bool = False) -> None:
        self.kill(farm, rep)  # never the console `kill`: the device is the user's

    def stop_all(self, farm: FarmState) -> list[str]:
        for rep in farm.replicas:
            self.kill(farm, rep)
        return []

    def relocate(self, farm: FarmState, rep: Replica) -> bool:
        return False  # the device's ports are its own, and in use by it

    def logs(self, farm: FarmState, rep: Replica, farm_dir: Path, tail: int) -> str:
        """The device's logcat (its own log; the farm started no process for it)."""
        argv = [*adb_args(farm.adb_server_port, rep.serial), "logcat", "-d", "-t", str(tail)]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        except subprocess.TimeoutExpired:
            return ""
        return proc.stdout.rstrip("\n")

    def memory_kib(self, farm: FarmState) -> int:
        return 0  # not the farm's processes: their memory is not the farm's cost
