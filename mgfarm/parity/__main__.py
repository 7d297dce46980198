"""`python -m mgfarm.parity --serial S` (`make parity SERIAL=S`): run the parity checks on a device
and write what it printed to tests/parity/recordings/<name>.json."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from mgfarm.adb.console import read_token
from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.parity.record import console_port_of, differences, load, record, write

RECORDINGS = Path("tests/parity/recordings")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mgfarm.parity", description=__doc__)
    parser.add_argument("--serial", required=True, help="the device, as `adb devices` lists it")
    parser.add_argument("--adb-port", type=int, default=5037, help="port of the adb server that sees it")
    parser.add_argument("--console-port", type=int, default=None, help="default: from emulator-NNNN")
    parser.add_argument(
        "--token-file", type=Path, default=None, help="default: ~/.emulator_console_auth_token"
    )
    parser.add_argument("--name", default="", help="recording name (default: model and SDK level)")
    parser.add_argument("--out", type=Path, default=RECORDINGS, help="folder of the recordings")
    args = parser.parse_args(argv)
    try:
        device = Device(args.serial, adb_port=args.adb_port)
        console = args.console_port or console_port_of(args.serial)
        token = read_token(args.token_file) if console is not None else ""
        recording = record(device, console, token)
        model = recording["device"].get("ro.product.model") or "device"
        sdk = recording["checks"]["sdk"]["shape"]
        name = args.name or re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{model}-api{sdk}")
        path = args.out / f"{name}.json"
        if path.exists():
            for line in differences(load(path), recording):
                print(f"changed: {line}")
        write(recording, path)
    except MgfarmError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"recorded {len(recording['checks'])} checks of {args.serial} into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
