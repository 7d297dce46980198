"""The sim's CPU for a step paced the way a farm paces it, in process, no adb.

    PYTHONPATH=<tree> .venv/bin/python benchmarks/bench_paced.py [ROUNDS] [DEVICES]

On a farm of 64 replicas an env's steps are a few hundred ms apart and the watchdog asks every
device's console for `ping` each second. Here DEVICES devices (each with its frame file and its
console, tests/unit/shellkit) take turns; before each step the device's clock moves on 1.5 s and
its console answers `auth`, `ping`, `quit` on a real TCP session, as in a watchdog pass. A step is
the bench's mixed traffic (a click, a scroll, back, in turn) and `mgfarm-frame --ui` in one shell
line, as the client sends it. Prints the CPU (`process_time`) and the compositions (the window
manager building the screen's view tree) per step after 10 warm-up rounds; run it with PYTHONPATH
set to each tree to compare commits.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import mgfarm
from mgfarm.device import framebuffer
from mgfarm.sim.console import Console
from mgfarm.sim.framebuffer import FrameBuffer
from mgfarm.sim.system.windows import Frame, WindowManager
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import nodes

START_MS = 1772641800000
PACE_MS = 1500  # device time between two steps of one device
WARMUP = 10
TOKEN = "bench"


def device(folder: Path) -> tuple[ShellDevice, Console, int]:
    """A device on Simple Calendar with its frame file written once, its console and its port."""
    shell = ShellDevice(folder)
    clock = shell.device.services.clock
    clock.set_ms(START_MS)
    clock.freeze(True)  # the bench moves it, PACE_MS a step
    path = folder / "frames" / "emulator-5554.frame"
    framebuffer.create(path)
    shell.device.framebuffer = FrameBuffer.open(path, 1080, 2400)
    shell.run("monkey -p com.simplemobiletools.calendar.pro -c android.intent.category.LAUNCHER 1")
    shell.run("mgfarm-frame --ui")
    console = Console(shell.device, "127.0.0.1", 0, token=TOKEN)
    shell.loop.run_until_complete(console.start())
    return shell, console, console.port


async def watchdog_probe(port: int) -> None:
    """What a watchdog pass asks each device (mgfarm/farm/health.py)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"auth {TOKEN}\nping\nquit\n".encode())
    await writer.drain()
    await reader.read()
    writer.close()


def step_line(step: int, shell: ShellDevice, index: int) -> str:
    """The client's shell line for the mixed workload's step `step` on device `index`."""
    if step % 3 == 0:
        found = nodes(shell.device.services.window.dump_xml())
        clickable = [n for n in found if n.attrs.get("clickable") == "true"] or found
        x, y = clickable[(step + index) % len(clickable)].center
        action = f"input tap {x} {y}"
    elif step % 3 == 1:
        action = "input swipe 540 1600 540 800 300"
    else:
        action = "input keyevent 4"
    return f"{{ {action}; }} >&2; echo $?; mgfarm-frame --ui"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    tmp = Path(tempfile.mkdtemp())
    devices = [device(tmp / str(i)) for i in range(count)]
    builds = [0]
    build = WindowManager.build

    def counted(self: WindowManager) -> Frame:
        builds[0] += 1
        return build(self)

    WindowManager.build = counted  # type: ignore[method-assign]
    cpu, steps, built = 0.0, 0, 0
    for step in range(rounds):
        for index, (shell, _, port) in enumerate(devices):
            shell.loop.run_until_complete(watchdog_probe(port))
            shell.device.services.clock.set_ms(START_MS + PACE_MS * (step + 1))
            line = step_line(step, shell, index)  # reads the tree as the client does: not counted
            before, start = builds[0], time.process_time()
            result = shell.run(line)
            if step >= WARMUP:
                cpu += time.process_time() - start
                built += builds[0] - before
                steps += 1
            assert result.status == 0, result.error
    for shell, console, _ in devices:
        shell.loop.run_until_complete(console.stop())
        shell.close()
    tree = mgfarm.__file__.rsplit("/mgfarm/", 1)[0]
    print(
        f"{tree}: {1000 * cpu / steps:.2f} ms CPU a step, {built / steps:.2f} compositions a step "
        f"({steps} steps, {count} devices in turn)"
    )


if __name__ == "__main__":
    main()
