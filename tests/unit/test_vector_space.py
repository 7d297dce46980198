"""A vector env's batched observation space is Gymnasium's, without its N copies of a screen's bounds."""

from __future__ import annotations

import pickle

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from mgfarm.env.spaces import observation_space
from mgfarm.vector import batched_space


def test_the_batched_space_equals_gymnasiums_batch_space() -> None:
    single = observation_space(108, 240)
    batched = batched_space(single, 3)
    assert batched == batch_space(single, 3) and repr(batched) == repr(batch_space(single, 3))
    screens = batched["screenshot"]
    assert screens.shape == (3, 240, 108, 3) and screens.dtype == np.uint8 and screens.is_bounded()
    assert batched.contains(batched.sample())
    assert not batched.contains({**batched.sample(), "screenshot": np.zeros((2, 240, 108, 3), np.uint8)})


def test_the_screenshot_box_equals_a_plain_box_without_its_full_size_bounds() -> None:
    plain = spaces.Box(low=0, high=255, shape=(240, 108, 3), dtype=np.uint8)
    box = observation_space(108, 240)["screenshot"]
    assert box == plain and repr(box) == repr(plain) and box.shape == plain.shape
    assert box.low.base is not None and not box.low.flags.writeable  # a view, not 78k bytes of its own
    assert box.contains(plain.sample()) and plain.contains(box.sample())
    assert not box.contains(np.zeros((240, 108, 4), np.uint8))
    assert pickle.loads(pickle.dumps(box)) == plain
