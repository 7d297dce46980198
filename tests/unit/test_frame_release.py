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


def test_an_idle_worker_drops_its_raw_frames_and_drawn_pictures() -> None:
    """What else an idle worker gives back: the raw frames and the pictures apps drew, which the
    next use draws again."""
    from PIL import Image

    from mgfarm.sim.framebuffer import RAW
    from mgfarm.sim.server import release_frames
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
    release_frames({})()
    assert RAW.get((SIG, 1)) is None
    drawn_picture(picture, 4, 4)
    assert len(calls) == 2
