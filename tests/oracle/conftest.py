"""The oracle tests hold the sim's shell against the real programs, built from source by
tests/oracle/build.sh: toybox 0.8.6 (Android 13's config) and mksh R59c. Without them they skip."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.shellkit import ShellDevice

ORACLES = Path(os.environ.get("MGFARM_ORACLES", Path.home() / ".cache" / "mgfarm" / "oracles"))


@pytest.fixture(scope="session")
def oracles() -> Path:
    if not (ORACLES / "toybox").is_file() or not (ORACLES / "mksh").is_file():
        pytest.skip(
            f"no toybox and mksh in {ORACLES}: build them with tests/oracle/build.sh (needs internet)"
        )
    return ORACLES


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("oracle"), boot=False)
    yield dev
    dev.close()
