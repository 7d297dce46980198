"""`mgfarm-frame` writes only the rows that changed, and the file always holds exactly the screen.

When a frame is drawn over the one the frame file holds (redraw's bands), only the changed rows
are written; a client reading the file after that partial write must see, byte for byte, a full
render of the current screen: never a stale band, whatever came between (another device of the
worker drawing, a screenshot drawn and not written, a half-size frame, a screen from the raw
frames kept, a `same` for an older screen the client named, after which the file still holds the
frame written before it).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Iterator
from itertools import pairwise
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
KEPT = 3  # the frames a Device names with --since: its last and the 2 it keeps before it


class Replica:
    """A device with its frame file, and a client that reads the file as the env's Device does."""

    def __init__(self, tmp_path: Path, scale: int = 1) -> None:
        self.scale = scale  # the size the client asks for, as MobileEnv(screen_scale=...)
        self.shell = ShellDevice(tmp_path)
        self.shell.device.services.clock.freeze(True)  # the status bar's minute must not turn meanwhile
        self.path = tmp_path / "frames" / "emulator-5554.frame"
        framebuffer.create(self.path)
        self.shell.device.framebuffer = FrameBuffer.open(self.path, W, H)
        self.client = FrameFile(self.path)
        self.held: OrderedDict[str, np.ndarray] = OrderedDict()  # by digest, the last shown last
        self.replies: list[str] = []  # "frame", "same" (the last frame) or "earlier" (an older one)
        self.truth: dict[bytes, np.ndarray] = {}  # a full render of each screen shown, by digest
        self.digest = b""  # of the screen shown last

    def observe(self) -> np.ndarray:
        """What the client shows after `mgfarm-frame --since` naming the frames it holds, the last
        first: the file's frame, or the one it holds for the digest `same` names."""
        since = ",".join(reversed(self.held))
        result = self.shell.run(
            f"mgfarm-frame --ui --scale {self.scale}" + (f" --since {since}" if since else "")
        )
        assert result.status == 0, result.error
        reply = parse_reply(result.out)
        digest = reply.signature.hex()
        if reply.header is None:
            assert digest in self.held, "'same' for a frame the client did not name"
            self.replies.append("same" if digest == next(reversed(self.held)) else "earlier")
            pixels = self.held.pop(digest)
        else:
            self.replies.append("frame")
            pixels = self.client.read(reply.header, (W // self.scale, H // self.scale))
            self.held.pop(digest, None)
        self.held[digest] = pixels
        while len(self.held) > KEPT:
            self.held.popitem(last=False)
        self.digest = reply.signature
        self.truth[reply.signature] = self.full_render()
        return pixels

    def file_holds_its_frame(self) -> bool:
        """Whether the frame file holds, byte for byte, the screen its header names (when that is
        a screen of the client's size it showed)."""
        with open(self.path, "rb") as file:
            _, seq, width, height, _, signature = framebuffer.HEADER.unpack(
                file.read(framebuffer.HEADER_SIZE)
            )
        if (width, height) != (W // self.scale, H // self.scale) or signature not in self.truth:
            return True
        held = self.client.read(framebuffer.Header(seq, width, height, signature), (width, height))
        return np.array_equal(held, self.truth[signature])

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
            assert self.shell.run(f"mgfarm-frame --scale {4 // self.scale}").status == 0  # another client
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
    for step in range(60):
        index = 0 if step % 5 else 1  # mostly one device: bands; now and then the other draws
        r = replicas[index]
        r.act(rng)
        got = r.observe()
        assert np.array_equal(got, r.truth[r.digest]), f"step {step}"
        assert r.file_holds_its_frame(), f"step {step}"
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
        assert np.array_equal(got, replica.truth[replica.digest])
    replica.close()
    assert len(row_writes) >= 6 and max(row_writes) < H // scale // 4  # the number's band, not the screen


# Back and forth between recent screens: (how to open the screen, the taps in turn). Digits typed
# and deleted change one band; the date settings' three switches change bands apart, so a frame
# written against another older frame than the file's would leave a switch's rows stale.
BACK_AND_FORTH = {
    "digits": (
        "monkey -p com.google.android.dialer -c android.intent.category.LAUNCHER 1",
        ["dialpad_fab", "5", "5", "<", "7", "<", "5", "1", "<", "<", "<", "<", "9", "<", "9"],
    ),
    "switches": (
        "am start -a android.settings.DATE_SETTINGS",
        ["0", "2", "2", "1", "1", "0", "2", "0", "1", "2", "1"],
    ),
}


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.parametrize("scenario", sorted(BACK_AND_FORTH))
def test_back_to_a_recent_screen_is_same_and_the_next_write_matches_the_file(
    tmp_path: Path, scenario: str, scale: int, row_writes: list[int]
) -> None:
    """The sim answers `same D2` for an older screen the client named and writes nothing, so the
    file still holds the frame before it; the next new frame is written against what the file
    holds (only its rows when it was drawn over that frame, else whole), and the file always
    holds what its header names."""
    replica = Replica(tmp_path, scale)
    start, taps = BACK_AND_FORTH[scenario]
    replica.shell.run(start)
    wm = replica.shell.device.services.window

    def tap(what: str) -> None:
        xml = nodes(wm.dump_xml())
        if what.isdigit() and scenario == "switches":  # the n-th switch
            wm.tap(*[n for n in xml if n.attrs.get("checkable") == "true"][int(what)].center)
            return
        suffix = {"<": "deleteButton"}.get(what, what if len(what) > 1 else f"dialpad_key_{what}")
        wm.tap(*next(n for n in xml if n.attrs["resource-id"].endswith(suffix)).center)

    replica.observe()
    steps: list[tuple[str, bool]] = []  # each reply, and whether its frame was written as rows only
    for what in taps:
        tap(what)
        writes = len(row_writes)
        got = replica.observe()
        steps.append((replica.replies[-1], len(row_writes) > writes))
        assert np.array_equal(got, replica.truth[replica.digest]), f"after {what!r}: {steps}"
        assert replica.file_holds_its_frame(), f"after {what!r}: {steps}"
    replica.close()
    assert [reply for reply, _ in steps].count("earlier") >= 2, steps
    after_earlier = [rows for (before, _), (reply, rows) in pairwise(steps) if before == "earlier"]
    assert any(after_earlier), f"no rows-only write over the file's older frame: {steps}"


def dial(replica: Replica, what: str) -> None:
    """Tap the dial pad's key `what` (a digit, or "<" to delete one)."""
    wm = replica.shell.device.services.window
    suffix = "deleteButton" if what == "<" else f"dialpad_key_{what}"
    wm.tap(*next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith(suffix)).center)


@pytest.mark.parametrize("scale", [1, 2])
def test_interleaved_devices_each_write_only_their_changed_rows(
    tmp_path: Path, scale: int, row_writes: list[int]
) -> None:
    """Devices of one worker in strict turns (A, B, A, B ...), as a farm's devices step: the
    thread's last frame is always the other device's, yet each device's new frame is written as
    its changed rows alone, and every file holds a full render of its screen."""
    replicas = [Replica(tmp_path / "a", scale), Replica(tmp_path / "b", scale)]
    rows_only = [0, 0]
    rng = random.Random(scale)
    for r in replicas:
        r.shell.run("monkey -p com.google.android.dialer -c android.intent.category.LAUNCHER 1")
        wm = r.shell.device.services.window
        fab = next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith("dialpad_fab"))
        wm.tap(*fab.center)
        r.observe()
    # Other numbers on each (the other device's frame is never this one's), only new ones (a
    # client holds its recent frames: going back is `same`, no write).
    typed = ["555123498760", "867530912345"]
    for step in range(2 * len(typed[0])):  # the dial pad: one band a tap, on both devices in turn
        r = replicas[step % 2]
        dial(r, typed[step % 2][step // 2])
        writes = len(row_writes)
        got = r.observe()
        assert len(row_writes) == writes + 1, f"step {step}: not written as rows only"
        assert row_writes[-1] < H // scale // 4, f"step {step}: {row_writes[-1]} rows"
        assert np.array_equal(got, r.truth[r.digest]), f"step {step}"
        assert r.file_holds_its_frame(), f"step {step}"
    for step in range(60):  # random actions, screenshots and other sizes between, in turn
        index = step % 2
        r = replicas[index]
        r.act(rng)
        writes = len(row_writes)
        got = r.observe()
        rows_only[index] += len(row_writes) - writes
        assert np.array_equal(got, r.truth[r.digest]), f"step {step}"
        assert r.file_holds_its_frame(), f"step {step}"
    for r in replicas:
        r.close()
    assert min(rows_only) >= 3, rows_only
