"""eval and run-task as a user runs them: a farm, the oracle on the smoke suite, results.json, HTML report."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.support import latest_run, named_farm, run_mgfarm

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def run(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it, from the farm's home folder (default ./runs outputs land there)."""
    return run_mgfarm(*args, timeout=timeout, env=env, cwd=Path(env["MGFARM_HOME"]))


@pytest.fixture(scope="module")
def farm_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A two-replica process farm named `evaltest`, stopped at the end."""
    with named_farm(tmp_path_factory.mktemp("home"), "evaltest", 2, columns=160) as env:
        yield env


def test_eval_smoke_with_oracle_writes_results_and_report(farm_env: dict[str, str], tmp_path: Path) -> None:
    proc = run(
        "eval",
        "--suite",
        "smoke",
        "--agent",
        "oracle",
        "--farm",
        "evaltest",
        "--out",
        str(tmp_path),
        env=farm_env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "by app" in proc.stdout and "by difficulty" in proc.stdout
    folder = latest_run(tmp_path)
    data = json.loads((folder / "results.json").read_text())
    episodes = data["episodes"]
    assert episodes and all(e["success"] and e["clean"] for e in episodes)
    assert data["summary"]["success_rate"] == 1.0
    assert {e["task_id"] for e in episodes} >= {"settings.wifi_off"}
    first = episodes[0]
    assert first["trajectory"] and (folder / first["trajectory"][0]["screen"]).is_file()
    report = (folder / "report.html").read_text()
    assert "settings.wifi_off" in report and "data:image/jpeg;base64," in report


def test_eval_with_do_nothing_agent_succeeds_nowhere(farm_env: dict[str, str], tmp_path: Path) -> None:
    proc = run(
        "eval",
        "--suite",
        "smoke",
        "--agent",
        "nothing",
        "--farm",
        "evaltest",
        "--out",
        str(tmp_path),
        "--no-record",
        env=farm_env,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads((latest_run(tmp_path) / "results.json").read_text())
    assert data["summary"]["success_rate"] == 0.0
    assert all(e["status"] == "complete" and e["steps"] == 1 for e in data["episodes"])


def test_run_task_prints_verdict_and_fails_on_failure(farm_env: dict[str, str], tmp_path: Path) -> None:
    ok = run(
        "run-task",
        "settings.dark_theme_on",
        "--seed",
        "2",
        "--farm",
        "evaltest",
        "--record",
        str(tmp_path),
        env=farm_env,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "settings.dark_theme_on seed 2: success" in ok.stdout
    recorded = latest_run(tmp_path)
    assert (recorded / "report.html").is_file() and list(recorded.glob("*/step_0000.png"))
    bad = run("run-task", "settings.dark_theme_on", "--agent", "nothing", "--farm", "evaltest", env=farm_env)
    assert bad.returncode == 1 and "fail" in bad.stdout
    assert "report:" not in bad.stdout  # without --record nothing is written


def test_user_errors_are_one_sentence(farm_env: dict[str, str]) -> None:
    unknown = run("run-task", "settings.wifi_offf", "--farm", "evaltest", env=farm_env)
    assert unknown.returncode != 0 and "Unknown task 'settings.wifi_offf'" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    no_farm = run("eval", "--farm", "nosuchfarm", env=farm_env)
    assert no_farm.returncode != 0 and "mgfarm up" in no_farm.stderr and "Traceback" not in no_farm.stderr
    bad_agent = run("eval", "--farm", "evaltest", "--agent", "nomodule_xyz:Agent", env=farm_env)
    assert bad_agent.returncode != 0 and "Cannot import 'nomodule_xyz'" in bad_agent.stderr


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")
def test_report_renders_in_headless_chromium(farm_env: dict[str, str], tmp_path: Path) -> None:
    proc = run("eval", "--suite", "smoke", "--farm", "evaltest", "--out", str(tmp_path), env=farm_env)
    assert proc.returncode == 0, proc.stderr
    report = latest_run(tmp_path) / "report.html"
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "eval_report.png"
    shot.unlink(missing_ok=True)
    browser = subprocess.run(
        [
            str(chromium()),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            "--window-size=1280,1400",
            report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shot.is_file(), browser.stderr[-2000:]
    with Image.open(shot) as image:
        assert image.size == (1280, 1400)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, badges and thumbnails, not a blank page
