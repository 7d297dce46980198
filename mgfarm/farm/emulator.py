"""The real AOSP emulator: AVD config.ini and the headless command line, from one set of settings.

The emulator image's entrypoint runs this module (`python3 -m mgfarm.farm.emulator ...`), so the
command line and AVD config that tests check are the ones containers launch. It uses only the
standard library and mgfarm.errors because the image copies those two files, not the package.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

from mgfarm.errors import MgfarmError

GPU_MODE = "swiftshader_indirect"


@dataclass(frozen=True)
class EmulatorSettings:
    """Everything that shapes one emulator replica; a snapshot is only valid for the same values."""

    avd_name: str = "mgfarm"
    api_level: int = 33  # Android 13, the project's reference
    tag: str = "google_apis"
    abi: str = "x86_64"
    ram_mb: int = 2048
    cores: int = 2
    data_partition_mb: int = 6144
    heap_mb: int = 256
    width: int = 1080
    height: int = 2400
    density: int = 420
    console_port: int = 5554
    adb_port: int = 5555
    grpc_port: int = 8554
    snapshot: str = "golden"
    grpc_token: bool = True
    accel: str = "on"  # on: KVM required; off only for the stand-in, which emulates nothing
    save_snapshot_on_exit: bool = False
    keep_snapshot_clock: bool = True

    def validate(self) -> EmulatorSettings:
        """Raise MgfarmError naming the first setting outside what the emulator accepts."""
        if self.ram_mb < 1024:
            raise MgfarmError(f"ram_mb={self.ram_mb} is too small for Android 13; use at least 1024.")
        if not 1 <= self.cores <= 16:
            raise MgfarmError(f"cores={self.cores} is out of range; use 1 to 16.")
        if self.data_partition_mb < 2048:
            raise MgfarmError(f"data_partition_mb={self.data_partition_mb} is too small; use at least 2048.")
        if min(self.width, self.height) < 320 or self.density < 120:
            raise MgfarmError(
                f"screen {self.width}x{self.height}@{self.density}dpi is too small; "
                "use at least 320 px and 120 dpi."
            )
        if self.console_port % 2 or self.adb_port != self.console_port + 1:
            raise MgfarmError(
                f"ports {self.console_port},{self.adb_port} are invalid; the console port must be even "
                "and the adb port the next one."
            )
        if self.accel not in ("on", "off", "auto"):
            raise MgfarmError(f"accel={self.accel!r} is invalid; use on, off or auto.")
        if not self.avd_name.replace("_", "").replace("-", "").isalnum():
            raise MgfarmError(f"AVD name {self.avd_name!r} is invalid; use letters, digits, '-' and '_'.")
        return self

    @property
    def system_image(self) -> str:
        """The sdkmanager package path of the system image."""
        return f"system-images;android-{self.api_level};{self.tag};{self.abi}"

    @property
    def system_image_dir(self) -> str:
        """The system image folder relative to the SDK root, with the trailing slash AVDs use."""
        return f"system-images/android-{self.api_level}/{self.tag}/{self.abi}/"


# Environment variables the entrypoint passes through; names match the dataclass fields.
ENV_PREFIX = "MGFARM_EMU_"


def settings_from_env(environ: Mapping[str, str]) -> EmulatorSettings:
    """Settings from MGFARM_EMU_<FIELD> variables (e.g. MGFARM_EMU_RAM_MB=3072), defaults elsewhere."""
    values: dict[str, object] = {}
    for field in fields(EmulatorSettings):
        raw = environ.get(ENV_PREFIX + field.name.upper())
        if raw is None or raw == "":
            continue
        default = getattr(EmulatorSettings(), field.name)
        values[field.name] = _parse_value(field.name, raw, default)
    return replace(EmulatorSettings(), **values).validate()  # type: ignore[arg-type]


def _parse_value(name: str, raw: str, default: object) -> object:
    if isinstance(default, bool):
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise MgfarmError(f"{ENV_PREFIX}{name.upper()}={raw!r} is not a boolean; use 1 or 0.")
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            msg = f"{ENV_PREFIX}{name.upper()}={raw!r} is not a number; use an integer."
            raise MgfarmError(msg) from None
    return raw


def avd_config(settings: EmulatorSettings) -> dict[str, str]:
    """The AVD's config.ini keys (what avdmanager would write, plus the headless choices)."""
    s = settings
    return {
        "AvdId": s.avd_name,
        "avd.ini.displayname": s.avd_name,
        "avd.ini.encoding": "UTF-8",
        "PlayStore.enabled": "false",
        "abi.type": s.abi,
        "hw.cpu.arch": s.abi,
        "hw.cpu.ncore": str(s.cores),
        "hw.ramSize": str(s.ram_mb),
        "vm.heapSize": str(s.heap_mb),
        "disk.dataPartition.size": f"{s.data_partition_mb}M",
        "hw.lcd.width": str(s.width),
        "hw.lcd.height": str(s.height),
        "hw.lcd.density": str(s.density),
        "hw.gpu.enabled": "yes",
        "hw.gpu.mode": GPU_MODE,
        # A hardware keyboard makes `input text` reach fields without the IME covering the screen.
        "hw.keyboard": "yes",
        "hw.mainKeys": "no",
        "hw.audioInput": "no",
        "hw.audioOutput": "no",
        "hw.camera.back": "none",
        "hw.camera.front": "none",
        # /sdcard is emulated storage on the data partition; a separate SD image is not needed.
        "hw.sdCard": "no",
        "showDeviceFrame": "no",
        "fastboot.forceColdBoot": "no",
        "fastboot.forceFastBoot": "yes",
        "image.sysdir.1": s.system_image_dir,
        "tag.id": s.tag,
        "tag.display": "Google APIs" if s.tag == "google_apis" else s.tag,
        "target": f"android-{s.api_level}",
        "runtime.network.latency": "none",
        "runtime.network.speed": "full",
    }


def render_ini(values: Mapping[str, str]) -> str:
    """key=value lines, sorted like avdmanager writes them."""
    return "".join(f"{key}={values[key]}\n" for key in sorted(values))


def avd_pointer_ini(settings: EmulatorSettings, avd_home: Path) -> str:
    """The `<name>.ini` file next to the AVD folder that tells the emulator where the AVD lives."""
    return render_ini(
        {
            "avd.ini.encoding": "UTF-8",
            "path": str(avd_home / f"{settings.avd_name}.avd"),
            "path.rel": f"avd/{settings.avd_name}.avd",
            "target": f"android-{settings.api_level}",
        }
    )


def write_avd(settings: EmulatorSettings, avd_home: Path) -> Path:
    """Write the AVD folder and its pointer file under avd_home; returns the AVD folder."""
    avd_dir = avd_home / f"{settings.avd_name}.avd"
    avd_dir.mkdir(parents=True, exist_ok=True)
    (avd_dir / "config.ini").write_text(render_ini(avd_config(settings)))
    (avd_home / f"{settings.avd_name}.ini").write_text(avd_pointer_ini(settings, avd_home))
    return avd_dir


def emulator_command(settings: EmulatorSettings, emulator: str = "emulator") -> list[str]:
    """The headless launch command line.

    Never `-read-only`: a read-only AVD refuses in-place snapshot loads, and resets are snapshot
    loads. Each container keeps its own AVD copy instead.
    """
    s = settings
    argv = [
        emulator,
        "-avd",
        s.avd_name,
        "-no-window",
        "-no-audio",
        "-no-boot-anim",
        "-no-metrics",
        "-gpu",
        GPU_MODE,
        "-accel",
        s.accel,
        "-skip-adb-auth",
        "-memory",
        str(s.ram_mb),
        "-cores",
        str(s.cores),
        "-ports",
        f"{s.console_port},{s.adb_port}",
        "-grpc",
        str(s.grpc_port),
    ]
    if s.grpc_token:
        # Every gRPC call then needs the token the emulator writes into its discovery file
        # (readable by the container's user only); the port itself is never published.
        argv.append("-grpc-use-token")
    argv += ["-snapshot", s.snapshot]
    if not s.save_snapshot_on_exit:
        argv.append("-no-snapshot-save")
    if s.keep_snapshot_clock:
        # The recipe sets the device time; do not jump it to the host clock on every load.
        argv.append("-no-snapshot-update-time")
    return argv


def forwarded_ports(settings: EmulatorSettings) -> tuple[int, int]:
    """The ports the emulator serves on 127.0.0.1 only and the forwarder exposes to the host."""
    return settings.console_port, settings.adb_port


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def _relay(bind_host: str, port: int) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()  # the emulator is not listening (yet): the client sees a closed socket
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    return await asyncio.start_server(handle, bind_host, port, reuse_address=True)


async def forward(settings: EmulatorSettings, bind_host: str, ready: Path | None = None) -> None:
    """Expose the loopback-only console and adb ports on bind_host (the container's address).

    The emulator listens on 127.0.0.1 alone; Docker publishes the container's address. A relay in
    Python keeps the image free of socat, which the stand-in image (built on the sim image) lacks.
    """
    servers = [await _relay(bind_host, port) for port in forwarded_ports(settings)]
    if ready is not None:
        ready.touch()  # listening on both: the replica may be announced now
    await asyncio.gather(*(server.serve_forever() for server in servers))


def hardware(settings: EmulatorSettings) -> dict[str, object]:
    """What a snapshot is bound to besides the image: RAM, cores, GPU mode (for the manifest)."""
    return {"ram_mb": settings.ram_mb, "cores": settings.cores, "gpu_mode": GPU_MODE}


def read_source_properties(path: Path) -> dict[str, str]:
    """Parse an SDK package's source.properties (Pkg.Revision and friends); {} when absent."""
    if not path.is_file():
        return {}
    result: dict[str, str] = {}
    for line in path.read_text(errors="replace").splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            result[key.strip()] = value.strip()
    return result


def installed_versions(settings: EmulatorSettings, sdk_root: Path) -> dict[str, str]:
    """Emulator build and system image revision installed under sdk_root (for snapshot manifests)."""
    emu = read_source_properties(sdk_root / "emulator" / "source.properties")
    img = read_source_properties(sdk_root / settings.system_image_dir / "source.properties")
    return {
        "emulator_build": emu.get("Pkg.Revision", "unknown"),
        "system_image": f"{settings.system_image} r{img.get('Pkg.Revision', 'unknown')}",
    }


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Entry point for the image: `write-avd DIR`, `command [EMULATOR]`, `forward HOST`, `hardware`."""
    parser = argparse.ArgumentParser(prog="python3 -m mgfarm.farm.emulator", description=__doc__)
    sub = parser.add_subparsers(dest="action", required=True)
    write = sub.add_parser("write-avd", help="write the AVD config under AVD_HOME")
    write.add_argument("avd_home", type=Path)
    cmd = sub.add_parser("command", help="print the launch command, one argument per line")
    cmd.add_argument("emulator", nargs="?", default="emulator")
    fwd = sub.add_parser("forward", help="relay the console and adb ports from HOST to 127.0.0.1")
    fwd.add_argument("bind_host")
    fwd.add_argument("--ready", type=Path, default=None, help="file to create once listening")
    sub.add_parser("hardware", help="print RAM, cores and GPU mode as JSON")
    ver = sub.add_parser("versions", help="print the installed emulator build and system image")
    ver.add_argument("sdk_root", type=Path)
    args = parser.parse_args(argv)
    try:
        settings = settings_from_env(os.environ if environ is None else environ)
    except MgfarmError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.action == "write-avd":
        print(write_avd(settings, args.avd_home))
    elif args.action == "command":
        print("\n".join(emulator_command(settings, args.emulator)))
    elif args.action == "forward":
        try:
            asyncio.run(forward(settings, args.bind_host, args.ready))
        except OSError as exc:
            print(f"error: cannot listen on {args.bind_host} ({exc.strerror}).", file=sys.stderr)
            return 1
    elif args.action == "hardware":
        print(json.dumps(hardware(settings), sort_keys=True))
    else:
        print("\n".join(f"{k}={v}" for k, v in installed_versions(settings, args.sdk_root).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
