"""A vector env's batched observation space is Gymnasium's, without its N copies of a screen's bounds."""

from __future__ import annotations

import numpy as np
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
