"""Templates of apps whose package differs by device profile are judged where the device keeps their data.

On `aosp` the Clock is com.android.deskclock, so its alarms.db is under that package: setup steps, the
judge's start and end state, its checks and the damage adversaries must all read it there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.env.runner import farm_for, run_jobs
from mgfarm.farm.state import FarmState
from mgfarm.tasks import checker
from tests.support import home_env, run_mgfarm

CATALOG = load_catalog()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def aosp_farm(home: Path) -> Iterator[FarmState]:
    with home_env(home), farm_for(None, 1, "aosp") as state:
        yield state


@pytest.mark.parametrize("task_id", ["clock.add_alarm", "clock.delete_alarm"])
def test_a_clock_template_on_aosp_accepts_its_oracle_and_rejects_every_adversary(
    aosp_farm: FarmState, task_id: str
) -> None:
    assert aosp_farm.profile == "aosp"
    jobs = checker.check_jobs(CATALOG, [CATALOG.get(task_id)], 1, ["UTC"])
    results = run_jobs(jobs, aosp_farm, catalog=CATALOG)
    by_key = {r.key: r for r in results}
    # The oracle's alarm is seen in the aosp clock's database; doing nothing changes nothing there.
    assert by_key["oracle/oracle"].success, by_key["oracle/oracle"].checks
    assert not by_key["nothing/nothing"].success
    # The damage adversaries write the same database and are caught, not skipped.
    damage = [r for r in results if r.key.startswith("collateral/damage_") and "alarms" in r.key]
    assert damage and all(r.status != "n/a" and not r.success for r in damage), damage
    result = checker.matrix(results, jobs)
    assert (result.false_accepts, result.false_rejects, result.errors) == (0, 0, 0), result.rows[0].problems


def test_tasks_check_takes_the_profile_of_its_farm(aosp_farm: FarmState, home: Path) -> None:
    env = {**os.environ, "MGFARM_HOME": str(home), "COLUMNS": "160"}
    args = ["tasks", "check", "clock.enable_alarm", "--seeds", "1", "--timezones", "UTC"]
    proc = run_mgfarm(*args, "--farm", aosp_farm.name, "--profile", "aosp", env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "false accepts 0, false rejects 0"
    wrong = run_mgfarm(*args, "--farm", aosp_farm.name, "--profile", "android13", env=env, timeout=60)
    assert wrong.returncode != 0
    assert "runs device profile aosp, not android13" in wrong.stdout + wrong.stderr
    unknown = run_mgfarm(*args, "--profile", "pixel", env=env, timeout=60)
    assert unknown.returncode != 0 and "Unknown device profile 'pixel'" in unknown.stdout + unknown.stderr
    farms = [p.name for p in (home / "farms").iterdir() if p.is_dir()]
    assert farms == [aosp_farm.name]  # the bad profile started no farm
