"""Devices of one worker taking turns: the sim's CPU for a new frame when every device's step
follows another device's (as on a farm), against one device alone. In-process, no adb.

    PYTHONPATH=<tree> .venv/bin/python benchmarks/bench_interleave.py [STEPS] [DEVICES]

Each device (a SimDevice with its frame file, tests/unit/shellkit) is on the dialer's dial pad,
and they tap in turn (A, B, C, D, A ...): each step is a tap that puts a new number on screen
(ten digits typed, then deleted, other digits on each device) and `mgfarm-frame --ui`, which
writes the screen into the device's frame file and replies with the UI tree. Prints the CPU
(`process_time`) per step; run it with PYTHONPATH set to each tree to compare commits.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import mgfarm
from mgfarm.device import framebuffer
from mgfarm.sim.framebuffer import FrameBuffer
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import nodes


def dial_pad(folder: Path) -> tuple[ShellDevice, dict[str, tuple[int, int]]]:
    """A device on the dial pad with its frame file written once, and where its keys are."""
    shell = ShellDevice(folder)
    shell.device.services.clock.freeze(True)  # the status bar's minute must not turn meanwhile
    path = folder / "frames" / "emulator-5554.frame"
    framebuffer.create(path)
    shell.device.framebuffer = FrameBuffer.open(path, 1080, 2400)
    shell.run("monkey -p com.google.android.dialer -c android.intent.category.LAUNCHER 1")
    wm = shell.device.services.window
    fab = next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith("dialpad_fab"))
    wm.tap(*fab.center)
    keys: dict[str, tuple[int, int]] = {}
    for n in nodes(wm.dump_xml()):
        rid = n.attrs["resource-id"]
        if rid.endswith("deleteButton"):
            keys["<"] = n.center
        elif "dialpad_key_" in rid:
            keys[rid[-1]] = n.center
    shell.run("mgfarm-frame --ui")
    return shell, keys


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    tmp = Path(tempfile.mkdtemp())
    devices = [dial_pad(tmp / str(i)) for i in range(count)]
    plans = [[str((i * 3 + k * 7) % 10) for k in range(10)] + ["<"] * 10 for i in range(count)]
    cpu = 0.0
    for step in range(steps):
        shell, keys = devices[step % count]
        what = plans[step % count][(step // count) % 20]
        start = time.process_time()
        shell.device.services.window.tap(*keys[what])
        result = shell.run("mgfarm-frame --ui")
        cpu += time.process_time() - start
        assert result.status == 0, result.error
    for shell, _ in devices:
        shell.close()
    tree = mgfarm.__file__.rsplit("/mgfarm/", 1)[0]
    print(f"{tree}: {1000 * cpu / steps:.2f} ms CPU/step ({steps} steps, {count} devices in turn)")


if __name__ == "__main__":
    main()
