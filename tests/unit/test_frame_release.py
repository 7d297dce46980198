"""An idle worker frees its devices' frame files; the next request writes the screen again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mgfarm.device import framebuffer
from mgfarm.device.framebuffer import FrameError, FrameFile, Header
from mgfarm.sim.framebuffer import FrameBuffer

W, H = 1080, 2400
SIG = bytes(range(16))


def test_release_frees_the_pixels_and_names_no_frame(tmp_path: Path) -> None:
    path = tmp_path / "emulator-5554.frame"
    framebuffer.create(path)
    device = FrameBuffer.open(path, W, H)
    client = FrameFile(path)
    frame = np.full((H, W, 3), 7, dtype=np.uint8)
    seq = device.write(frame.tobytes(), W, H, SIG)
    written = path.stat().st_blocks * 512
    device.release()
    if device.signature:
        pytest.skip("this filesystem cannot punch holes in a mapped file")
    assert path.stat().st_blocks * 512 < written - W * H * 3 // 2  # the pixel pages went back
    with pytest.raises(FrameError):  # a reply naming the released frame is refused, not read as zeros
        client.read(Header(seq, W, H, SIG), (W, H))
    again = device.write(frame.tobytes(), W, H, SIG)  # what the next `mgfarm-frame` does
    assert again > seq
    assert np.array_equal(client.read(Header(again, W, H, SIG), (W, H)), frame)


def test_an_idle_worker_drops_its_raw_frames_drawn_pictures_and_screens() -> None:
    """What else an idle worker gives back: the raw frames, the pictures apps drew and the shared
    screens, which the next use makes again."""
    from PIL import Image

    from mgfarm.sim.framebuffer import RAW
    from mgfarm.sim.release import Release
    from mgfarm.sim.ui.framecache import SHARED
    from mgfarm.sim.ui.render import drawn_picture
    from mgfarm.sim.ui.views import Picture

    calls: list[int] = []

    def pixels() -> Image.Image:
        calls.append(1)
        return Image.new("RGB", (8, 8), (1, 2, 3))

    picture = Picture(stamp="test-idle-map", pixels=pixels)
    drawn_picture(picture, 4, 4)
    drawn_picture(picture, 4, 4)
    assert len(calls) == 1  # kept while the worker works
    RAW.put((SIG, 1), (1, 1, b"\0\0\0"))
    screen = SHARED.screen("test-idle-screen")
    SHARED.fill(screen, xml="<hierarchy/>")
    Release({}).idle()
    assert RAW.get((SIG, 1)) is None
    assert SHARED.total == 0 and SHARED.screen("test-idle-screen").xml is None  # composed again
    drawn_picture(picture, 4, 4)
    assert len(calls) == 2


def test_a_lightly_used_worker_frees_the_frames_no_client_is_reading(tmp_path: Path) -> None:
    """Agents stepping at their pace: a device asked lately keeps its frame, the others give theirs
    back, and their next request writes the screen whole again."""
    from mgfarm.sim.framebuffer import RAW
    from mgfarm.sim.release import READ_SECONDS, Release

    frame = np.full((H, W, 3), 9, dtype=np.uint8)
    buffers: dict[str, FrameBuffer] = {}
    for serial in ("emulator-5554", "emulator-5556"):
        path = tmp_path / f"{serial}.frame"
        framebuffer.create(path)
        buffers[serial] = FrameBuffer.open(path, W, H)
        buffers[serial].write(frame.tobytes(), W, H, SIG)
        buffers[serial].touch()
    buffers["emulator-5554"].used_at -= 2 * READ_SECONDS  # its client read it a while ago
    RAW.put((SIG, 1), (1, 1, b"\0\0\0"))
    release = Release(buffers)
    release.worked(light=False)  # a busy window keeps everything
    assert buffers["emulator-5554"].signature == SIG and RAW.get((SIG, 1)) is not None
    release.worked(light=True)
    quiet, reading = buffers["emulator-5554"], buffers["emulator-5556"]
    if quiet.signature:
        pytest.skip("this filesystem cannot punch holes in a mapped file")
    assert reading.signature == SIG  # the frame its client is reading stays whole
    blocks = {serial: (tmp_path / f"{serial}.frame").stat().st_blocks for serial in buffers}
    assert blocks["emulator-5554"] < blocks["emulator-5556"]
    assert RAW.get((SIG, 1)) is None
    seq = quiet.write(frame.tobytes(), W, H, SIG)
    client = FrameFile(tmp_path / "emulator-5554.frame")
    assert np.array_equal(client.read(Header(seq, W, H, SIG), (W, H)), frame)


def test_a_write_after_release_brings_back_only_the_pages_it_writes(tmp_path: Path) -> None:
    """The released pages come back in one call for the next frame, but a half-size frame
    (`--scale 2`) makes the file hold a quarter of a full frame, not all of it."""
    path = tmp_path / "emulator-5554.frame"
    framebuffer.create(path)
    device = FrameBuffer.open(path, W, H)
    device.write(np.zeros((H, W, 3), np.uint8).tobytes(), W, H, SIG)
    device.release()
    if device.signature:
        pytest.skip("this filesystem cannot punch holes in a mapped file")
    half = np.full((H // 2, W // 2, 3), 5, dtype=np.uint8)
    seq = device.write(half.tobytes(), W // 2, H // 2, SIG, scale=2)
    assert path.stat().st_blocks * 512 < W * H * 3 // 3
    assert np.array_equal(FrameFile(path).read(Header(seq, W // 2, H // 2, SIG), (W // 2, H // 2)), half)
