"""Decoded screenshots shared by the devices of a process: one read-only array per PNG, within a budget."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from mgfarm.device.frames import DecodedFrames


def png(value: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 4), (value, 0, 0)).save(out, "PNG")
    return out.getvalue()


def decode(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).copy()


def test_same_bytes_decode_once_to_one_read_only_array() -> None:
    frames = DecodedFrames()
    decoded: list[bytes] = []

    def counting(data: bytes) -> np.ndarray:
        decoded.append(data)
        return decode(data)

    first = frames.get(png(1), counting)
    assert frames.get(png(1), counting) is first
    assert len(decoded) == 1
    assert first[0, 0].tolist() == [1, 0, 0]
    with pytest.raises(ValueError, match="read-only"):
        first[0, 0] = 0


def test_least_recently_used_frames_go_once_over_budget() -> None:
    one_frame = 8 * 4 * 3
    frames = DecodedFrames(budget=2 * one_frame)
    a = frames.get(png(1), decode)
    frames.get(png(2), decode)
    assert frames.get(png(1), decode) is a  # used again: now the most recent
    frames.get(png(3), decode)  # over budget: 2 goes
    assert frames.get(png(1), decode) is a
    assert frames.get(png(2), decode)[0, 0].tolist() == [2, 0, 0]  # decoded again, still right
