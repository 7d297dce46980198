"""Text masks are shared by a worker's devices and bounded by bytes, whatever the texts' lengths."""

from __future__ import annotations

import pytest

from mgfarm.sim.ui import render
from mgfarm.sim.ui.kept import Kept


def _kept_bytes() -> int:
    return sum(mask.width * mask.height for mask, _, _ in render._masks.values())


def test_masks_stay_within_their_byte_budget_and_recent_ones_are_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(render, "_masks", Kept(200_000, render._masks.cost))
    label = render.text_mask("Save", 40, True, "ls")
    assert render.text_mask("Save", 40, True, "ls") is label  # drawn once
    for n in range(200):  # long lines, each mask tens of kilobytes
        render.text_mask(f"note {n}: " + "words of a long paragraph " * 4, 40, False, "ls")
        assert _kept_bytes() == render._masks.total <= 200_000
    assert render.text_mask("Save", 40, True, "ls") is not label  # pushed out, drawn again
    huge = render.text_mask("x" * 2000, 40, False, "ls")  # larger than the budget alone: kept alone
    assert list(render._masks.values()) == [huge]
