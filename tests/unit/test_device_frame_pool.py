"""FramePool: new frames reuse the memory of frames no longer used, never of one still in use."""

from __future__ import annotations

import numpy as np

from mgfarm.device.frames import FramePool

SHAPE = (24, 10, 3)
NBYTES = 24 * 10 * 3


def test_a_frame_in_use_or_viewed_is_never_handed_out_again() -> None:
    pool = FramePool(spare_bytes=2 * NBYTES)
    held = [pool.empty(SHAPE)]
    views = [pool.empty(SHAPE)[3:, :, 1]]  # only a view of the second frame survives
    held.append(np.asarray(pool.empty(SHAPE)).reshape(-1))  # a reshaped one of the third
    for _ in range(20):
        new = pool.empty(SHAPE)
        assert not any(np.shares_memory(new, old) for old in held + views)
        new[:] = 7
    assert all(not (old == 7).all() for old in held + views)


def test_unused_frames_memory_is_reused_and_spares_are_bounded() -> None:
    pool = FramePool(spare_bytes=2 * NBYTES)
    first = pool.empty(SHAPE)
    address = first.__array_interface__["data"][0]
    del first
    assert pool.empty(SHAPE).__array_interface__["data"][0] == address
    many = [pool.empty(SHAPE) for _ in range(10)]
    del many
    pool.empty((2, 2, 3))  # another size: a new buffer; of the 10 unused ones 2 are kept
    assert len(pool._buffers) == 1 + 2
