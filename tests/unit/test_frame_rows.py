"""`mgfarm-frame` writes only the rows that changed, and the file always holds exactly the screen.

When a frame is drawn over the one the frame file holds (redraw's bands), only the changed rows
are written; a client reading the file after that partial write must see, byte for byte, a full
render of the current screen: never a stale band, whatever came between (another device of the
worker drawing, a screenshot drawn and not written, a half-size frame, a screen from the raw
frames kept).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mgfarm.device import framebuffer
from mgfarm.device.framebuffer import FrameFile, parse_reply
from mgfarm.sim import framebuffer as sim_framebuffer
from mgfarm.sim.framebuffer import RAW, FrameBuffer
from mgfarm.sim.system.windows import KEY_BACK, KEY_HOME
from mgfarm.sim.ui import redraw
from mgfarm.sim.ui.render import render
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import nodes

W, H = 1080, 2400


class Replica:
    """A device with its frame file, and a client that reads the file as the env does."""

    def __init__(self, tmp_path: Path, scale: int = 1) -> None:
        self.scale = scale  # the size the client asks for, as MobileEnv(screen_scale=...)
        self.shell = ShellDevice(tmp_path)
        self.shell.device.services.clock.freeze(True)  # the status bar's minute must not turn meanwhile
        path = tmp_path / "frames" / "emulator-5554.frame"
        framebuffer.create(path)
        self.shell.device.framebuffer = FrameBuffer.open(path, W, H)
        self.client = FrameFile(path)
        self.since = ""

    def observe(self) -> np.ndarray | None:
        """What the client holds after `mgfarm-frame --since`: the file's frame, or None for `same`."""
        result = self.shell.run(f"mgfarm-frame --ui --scale {self.scale} --since {self.since}".strip())
        assert result.status == 0, result.error
        reply = parse_reply(result.out)
        self.since = reply.signature.hex()
        if reply.header is None:
            return None
        return self.client.read(reply.header, (W // self.scale, H // self.scale))

    def full_render(self) -> np.ndarray:
        """The screen drawn whole, made smaller as the client asked (Pillow's `reduce`)."""
        frame = self.shell.device.services.window.frame()
        image = render(frame.draw_roots(), frame.lctx, frame.palette)
        if self.scale > 1:
            image = image.reduce(self.scale)
        return np.asarray(image).reshape(H // self.scale, W // self.scale, 3)

    def act(self, rng: random.Random) -> None:
        """A random user action (taps on clickable views mostly), or a read that draws a frame
        the file does not get: a screenshot, or the screen at another size."""
        wm = self.shell.device.services.window
        roll = rng.random()
        if roll < 0.06:
            wm.key(KEY_BACK)
        elif roll < 0.1:
            self.shell.run("screencap -p")
        elif roll < 0.13:
            assert self.shell.run(f"mgfarm-frame --scale {4 // self.scale}").status == 0
            self.since = ""  # the client now holds no frame of its size
        elif roll < 0.18 and wm.keyboard_shown():
            wm.text(rng.choice(("a", "7", "Hi")))
        else:
            targets = [n for n in nodes(wm.dump_xml()) if n.attrs.get("clickable") == "true"]
            if targets:
                wm.tap(*rng.choice(targets).center)
        if self.shell.device.services.activities.resumed_record() is None:
            wm.key(KEY_HOME)

    def close(self) -> None:
        self.shell.close()


@pytest.fixture
def row_writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The number of rows each partial write wrote, from a worker with nothing drawn or kept."""
    written: list[int] = []
    real = sim_framebuffer.FrameBuffer.write_rows

    def counted(self: FrameBuffer, image: object, rows: list[tuple[int, int]], signature: bytes) -> int:
        written.append(sum(y1 - y0 for y0, y1 in rows))
        return real(self, image, rows, signature)

    monkeypatch.setattr(sim_framebuffer.FrameBuffer, "write_rows", counted)
    redraw.forget()
    RAW.clear()
    yield written
    RAW.clear()


@pytest.mark.parametrize(
    ("package", "scale"),
    [
        ("com.google.android.dialer", 1),
        ("com.simplemobiletools.calendar.pro", 1),
        ("com.google.android.dialer", 2),
    ],
)
def test_the_file_holds_a_full_render_after_every_partial_write(
    tmp_path: Path, package: str, scale: int, row_writes: list[int]
) -> None:
    """Two devices of one worker take turns (they share the worker's last drawn frame)."""
    replicas = [Replica(tmp_path / "a", scale), Replica(tmp_path / "b", scale)]
    rng = random.Random(package)
    for r in replicas:
        r.shell.run(f"monkey -p {package} -c android.intent.category.LAUNCHER 1")
    held: list[np.ndarray | None] = [None, None]
    for step in range(60):
        index = 0 if step % 5 else 1  # mostly one device: bands; now and then the other draws
        r = replicas[index]
        r.act(rng)
        got = r.observe()
        if got is not None:
            held[index] = got
        elif r.since:
            assert held[index] is not None
        have = held[index]
        assert have is not None and np.array_equal(have, r.full_render()), f"step {step}"
    for r in replicas:
        r.close()
    assert row_writes, "no frame was written as changed rows only"
    assert min(row_writes) < H // scale // 2


@pytest.mark.parametrize("scale", [1, 2])
def test_typing_a_number_writes_only_its_rows(tmp_path: Path, scale: int, row_writes: list[int]) -> None:
    replica = Replica(tmp_path, scale)
    replica.shell.run("monkey -p com.google.android.dialer -c android.intent.category.LAUNCHER 1")
    wm = replica.shell.device.services.window
    fab = next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith("dialpad_fab"))
    wm.tap(*fab.center)
    replica.observe()
    for digit in "5551234":
        key = next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith(f"dialpad_key_{digit}"))
        wm.tap(*key.center)
        got = replica.observe()
        assert got is not None and np.array_equal(got, replica.full_render())
    replica.close()
    assert len(row_writes) >= 6 and max(row_writes) < H // scale // 4  # the number's band, not the screen
