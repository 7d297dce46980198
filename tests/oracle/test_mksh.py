"""Scripts as Android 13's shell runs them: every script in tests/oracle/scripts/ gives the same
status, output and errors in the sim as in mksh R59c with toybox 0.8.6 on its PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.differential import differences, in_sim, in_toybox
from tests.unit.shellkit import ShellDevice

SCRIPTS = sorted((Path(__file__).parent / "scripts").glob("*.txt"))


def scripts(path: Path) -> list[str]:
    return [s.strip("\n") for s in path.read_text().split("\n----\n") if s.strip()]


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_scripts_behave_as_mksh_runs_them(
    oracles: Path, sim: ShellDevice, tmp_path: Path, path: Path
) -> None:
    differ = []
    for script in scripts(path):
        want, got = in_toybox(oracles, tmp_path, script, {}), in_sim(sim, script, {})
        if want != got:
            differ.append((script, want, got))
    assert not differ, differences(differ)
