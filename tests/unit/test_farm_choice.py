"""Which farm a command or `mgfarm.make` uses when none is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import resolve_farm


def farm(home: Path, name: str) -> None:
    folder = home / "farms" / name
    folder.mkdir(parents=True)
    (folder / "state.json").write_text("{}")


def test_the_only_farm_up_is_used_else_default_and_a_choice_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    assert resolve_farm(None) == "default"
    farm(tmp_path, "rl")
    assert resolve_farm(None) == "rl"
    assert resolve_farm("other") == "other"
    farm(tmp_path, "eval")
    with pytest.raises(MgfarmError, match=r"Several farms are up \(eval, rl\); pick one"):
        resolve_farm(None)
    farm(tmp_path, "default")
    assert resolve_farm(None) == "default"
