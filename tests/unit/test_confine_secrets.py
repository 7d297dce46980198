"""Secrets stay with their owner: farm state and console tokens 0600; a blank token never turns auth off."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import FarmState, Replica, save_farm, state_path
from mgfarm.sim.console import TokenError, read_token
from mgfarm.sim.device import DeviceConfig
from mgfarm.sim.server import prepare_files


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_farm_state_file_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    farm = FarmState("f", "process", 5137, "golden", [Replica(0, "emulator-5554", 5555, 5554, "tok")])
    save_farm(farm)
    assert mode(state_path("f")) == 0o600
    state_path("f").chmod(0o644)  # an older file is made private again on the next write
    save_farm(farm)
    assert mode(state_path("f")) == 0o600


def test_a_created_console_token_is_private(tmp_path: Path) -> None:
    token = read_token(tmp_path / "tok")
    assert len(token) >= 12 and mode(tmp_path / "tok") == 0o600


@pytest.mark.parametrize("content", ["", "\n", "  \t\r\n"])
def test_a_blank_token_file_is_refused_in_one_sentence(tmp_path: Path, content: str) -> None:
    path = tmp_path / "tok"
    path.write_text(content)
    with pytest.raises(TokenError):
        read_token(path)
    config = DeviceConfig(
        name="d", adb_port=5555, data_dir=tmp_path / "d", snapshot_dir=tmp_path / "s", token_file=path
    )
    with pytest.raises(MgfarmError, match=r"^the console token file .* is empty; write a token into it"):
        prepare_files([config])


def test_a_token_with_a_trailing_newline_is_the_token(tmp_path: Path) -> None:
    path = tmp_path / "tok"
    path.write_text("s3cret\n")
    assert read_token(path) == "s3cret"
