"""`mgfarm eval --suite androidworld` on a farm of simulated devices, as a user runs it.

AndroidWorld's task classes run unchanged, each episode on a leased replica reset by snapshot load:
the scripted UI solutions of test_aw_<app>.py (tests/integration/aw_scripted.py) score 1.0 on every
task of a CI subset spread over three replicas, and the `nothing` agent scores 0.0. AndroidWorld
comes from $MGFARM_ANDROID_WORLD; without it (or without android-env) these tests skip, except the
one that checks the sentence a user gets then.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.suites import androidworld
from tests.support import latest_run, named_farm, run_mgfarm

FARM = "awsuite"
REPLICAS = 3
# One task or two per app: an information-retrieval one (its answer goes through the env's interaction
# cache), Markor and SMS over uiautomator2; a handful keeps the run near a minute on two shared cores.
CI_TASKS = [
    "ClockTimerEntry",
    "ContactsAddContact",
    "FilesDeleteFile",
    "MarkorCreateNote",
    "SimpleSmsReply",
    "ExpenseAddSingle",
    "RecipeDeleteSingleRecipe",
    "SimpleCalendarAddOneEvent",
    "SimpleCalendarEventsOnDate",
]
NOTHING_TASKS = ["ClockTimerEntry", "MarkorCreateNote", "SimpleCalendarAddOneEvent"]


def have_android_world() -> bool:
    import importlib.util

    return (
        androidworld.android_world_source() is not None
        and importlib.util.find_spec("android_env") is not None
    )


needs_aw = pytest.mark.skipif(
    not have_android_world(),
    reason=f"set {androidworld.ENV_VAR} to an AndroidWorld checkout and install '.[compat]'",
)


@pytest.fixture(scope="module")
def farm_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A three-replica process farm, stopped at the end; the env a user's shell would have."""
    if not have_android_world():
        pytest.skip(f"set {androidworld.ENV_VAR} to an AndroidWorld checkout and install '.[compat]'")
    with named_farm(tmp_path_factory.mktemp("home"), FARM, REPLICAS, columns=200) as env:
        yield env


def eval_nothing(
    tasks: str, *more: str, timeout: float, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`mgfarm eval --suite androidworld --agent nothing --farm FARM --tasks TASKS MORE...`."""
    args = ["eval", "--suite", "androidworld", "--agent", "nothing", "--farm", FARM, "--tasks", tasks]
    return run_mgfarm(*args, *more, timeout=timeout, env=env)


@needs_aw
def test_scripted_solutions_score_one_on_every_task(farm_env: dict[str, str], tmp_path: Path) -> None:
    from mgfarm.suites.aw_eval import run_suite
    from tests.integration.aw_scripted import ScriptedSolutions

    run = run_suite(FARM, ScriptedSolutions, 30, CI_TASKS, REPLICAS, tmp_path, show=False)
    assert [(r.task, r.success, r.error) for r in run.rows] == [(t, "yes", "") for t in CI_TASKS]
    assert run.devices == REPLICAS
    assert len({r.serial for r in run.results}) > 1, "the episodes ran on several replicas"
    assert run.folder is not None and run.report is not None
    data = json.loads((run.folder / "results.json").read_text())
    assert data["summary"]["success_rate"] == 1.0 and data["meta"]["suite"] == "androidworld"
    assert [row["task"] for row in data["meta"]["table"]] == CI_TASKS
    first = data["episodes"][0]
    assert first["checks"][0]["name"] == "androidworld.is_successful"
    assert first["trajectory"] and (run.folder / first["trajectory"][0]["screen"]).is_file()
    assert (
        "<caption>By task</caption><tr><th>task</th>" in run.report.read_text()
        and "| ClockTimerEntry | 30 | yes |" in (run.folder / "tasks.md").read_text()
    )


@needs_aw
def test_an_androidworld_agent_runs_through_the_adapter(farm_env: dict[str, str]) -> None:
    """`--agent module:Class` naming an EnvironmentInteractingAgent: built on the replica's
    AsyncAndroidEnv, one `step(goal)` per turn, its own JSON actions; done ends the episode."""
    from mgfarm.suites.aw_eval import run_suite

    spec = "tests.integration.aw_agents:StopwatchAgent"
    run = run_suite(FARM, spec, 30, ["ClockStopWatchRunning"], 1, None, show=False)
    [result] = run.results
    assert (result.success, result.error, result.status, result.steps) == (True, "", "complete", 4)
    assert result.agent == spec


@needs_aw
def test_nothing_agent_scores_zero(farm_env: dict[str, str], tmp_path: Path) -> None:
    proc = eval_nothing(
        ",".join(NOTHING_TASKS), "--out", str(tmp_path), "--no-record", timeout=300, env=farm_env
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0/3 succeeded (0 skipped)" in proc.stdout and "MarkorCreateNote" in proc.stdout
    data = json.loads((latest_run(tmp_path) / "results.json").read_text())
    assert [(e["task_id"], e["success"], e["progress"], e["error"]) for e in data["episodes"]] == [
        (t, False, 0.0, "") for t in NOTHING_TASKS
    ]
    assert all(e["status"] == "complete" and e["steps"] == 1 for e in data["episodes"])


@needs_aw
def test_user_errors_are_one_sentence(farm_env: dict[str, str]) -> None:
    oracle = run_mgfarm("eval", "--suite", "androidworld", "--farm", FARM, timeout=120, env=farm_env)
    assert oracle.returncode != 0 and "have no oracle agent" in oracle.stderr
    unknown = eval_nothing("NoSuchTask", timeout=120, env=farm_env)
    assert unknown.returncode != 0 and "No AndroidWorld task is named 'NoSuchTask'" in unknown.stderr
    for proc in (oracle, unknown):
        assert "Traceback" not in proc.stderr


def test_missing_android_world_is_one_sentence(tmp_path: Path) -> None:
    """No checkout and no installed package: the sentence says what to pass or set."""
    env = {k: v for k, v in os.environ.items() if k != androidworld.ENV_VAR}
    env["MGFARM_HOME"] = str(tmp_path)
    proc = run_mgfarm(
        "eval", "--suite", "androidworld", "--agent", "nothing", timeout=60, env=env, cwd=tmp_path
    )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"pass --android-world PATH or set {androidworld.ENV_VAR}" in " ".join(proc.stderr.split())
    bad = run_mgfarm(
        "eval", "--suite", "androidworld", "--android-world", str(tmp_path), timeout=60, env=env, cwd=tmp_path
    )
    assert bad.returncode != 0 and "holds no android_world/registry.py" in " ".join(bad.stderr.split())
