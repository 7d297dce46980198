"""`python -m mgfarm.sim serve ...`: the same as `mgfarm sim serve`, without the rest of the CLI."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mgfarm.errors import MgfarmError
from mgfarm.sim.server import DEFAULT_MEMORY_LIMIT, ServeOptions, run
from mgfarm.sim.system.props import PROFILES
from mgfarm.sim.system.space import DEFAULT_STORAGE


def parse(argv: list[str], prog: str = "python -m mgfarm.sim") -> ServeOptions:
    parser = argparse.ArgumentParser(prog=prog, description="Run simulated Android devices.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser(
        "serve",
        help="Serve N devices on consecutive port pairs (adb P, console P-1).",
        epilog=f"Example: {prog} serve --adb-port 5555 --count 4 --announce 5037",
    )
    serve.add_argument(
        "--adb-port", type=int, default=5555, help="adb port of device 1; console is one below"
    )
    serve.add_argument("--count", type=int, default=1, help="devices to host on consecutive port pairs")
    serve.add_argument("--data", type=Path, default=None, help="folder for device files (default: temp)")
    serve.add_argument("--snapshots", type=Path, default=None, help="snapshot folder shared by the devices")
    serve.add_argument("--token-file", type=Path, default=None, help="console token file")
    serve.add_argument("--announce", type=int, default=None, metavar="PORT", help="adb server to announce to")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument(
        "--golden", type=Path, default=None, help="read-only snapshot folder searched after --snapshots"
    )
    serve.add_argument(
        "--user", default="nobody", help="unprivileged user to become when started as root ('root': stay)"
    )
    serve.add_argument(
        "--memory-limit",
        type=memory_size,
        default=DEFAULT_MEMORY_LIMIT,
        metavar="SIZE",
        help="data segment cap of the worker, e.g. 3g or 512m (0: none)",
    )
    serve.add_argument(
        "--storage",
        type=memory_size,
        default=DEFAULT_STORAGE,
        metavar="SIZE",
        help="data partition of each device, e.g. 2g or 512m: a write beyond it fails with"
        " 'No space left on device' (default 2g)",
    )
    serve.add_argument(
        "--profile",
        choices=PROFILES,
        default="android13",
        help="emulator image the devices mirror: properties, dumpsys formats and app packages"
        " (default android13, Google's Clock/Contacts/Phone/Files; aosp: the AOSP apps)",
    )
    serve.add_argument(
        "--grpc", type=int, default=None, metavar="PORT", help="serve the emulator gRPC API from PORT up"
    )
    serve.add_argument(
        "--frames", type=Path, default=None, help="folder of the frame files the farm made (SERIAL.frame)"
    )
    serve.add_argument(
        "--no-sandbox", action="store_true", help="do not confine the worker with Landlock (debugging only)"
    )
    args = parser.parse_args(argv)
    return ServeOptions(
        adb_port=args.adb_port,
        count=args.count,
        data_dir=args.data,
        snapshot_dir=args.snapshots,
        token_file=args.token_file,
        announce=args.announce,
        host=args.host,
        golden_dir=args.golden,
        sandbox=not args.no_sandbox,
        user=args.user,
        memory_limit=args.memory_limit,
        grpc_port=args.grpc,
        profile=args.profile,
        frames_dir=args.frames,
        storage=args.storage,
    )


def memory_size(text: str) -> int:
    """Bytes from `512m`, `3g`, `1048576`; argparse shows the ValueError's message."""
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    number, unit = (text[:-1], text[-1].lower()) if text[-1:].lower() in units else (text, "")
    try:
        value = int(float(number) * units.get(unit, 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; write e.g. 3g, 512m or 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative; write e.g. 3g, 512m or 0")
    return value


def main(argv: list[str] | None = None, prog: str = "python -m mgfarm.sim") -> int:
    """Parse `serve ...` and run it; the exit status (`mgfarm sim serve` forwards its arguments here)."""
    options = parse(sys.argv[1:] if argv is None else argv, prog)
    try:
        run(options)
    except MgfarmError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
