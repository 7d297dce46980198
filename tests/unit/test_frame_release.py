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
