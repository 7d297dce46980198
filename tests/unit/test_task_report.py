"""results.json, the HTML report and the task CLI commands that need no device."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from mgfarm.catalog import load_catalog
from mgfarm.cli import app
from mgfarm.tasks import report
from mgfarm.tasks.jobs import EpisodeResult


def episode(task: str, level: str, ok: bool, goal: str = "Do it.") -> EpisodeResult:
    return EpisodeResult(
        task_id=task,
        app=task.split(".")[0],
        difficulty=level,
        seed=0,
        agent="oracle",
        key="oracle",
        goal=goal,
        success=ok,
        clean=ok,
        progress=1.0 if ok else 0.5,
        checks=[{"name": "x.y", "ok": ok, "detail": "saw <b>", "args": {}, "weight": 1.0, "seconds": 0.01}],
        side_effects=[] if ok else ["settings.global.wifi_on: 1 -> 0"],
    )


RESULTS = [
    episode("settings.a", "L1", True),
    episode("settings.b", "L2", False, goal="<script>alert(1)</script>"),
    episode("contacts.c", "L1", True),
]


def test_rates_per_app_and_difficulty() -> None:
    by_app = {row[0]: row for row in report.rates(RESULTS, "app")}
    assert by_app["settings"][1:4] == (2, 0.5, 0.5) and by_app["contacts"][2] == 1.0
    by_level = {row[0]: row for row in report.rates(RESULTS, "difficulty")}
    assert by_level["L1"][2] == 1.0 and by_level["L2"][2] == 0.0


def test_results_json_and_html_are_written_and_escaped(tmp_path: Path) -> None:
    meta = {"suite": "smoke", "agent": "oracle"}
    data = json.loads(report.write_results(RESULTS, tmp_path, meta).read_text())
    assert data["summary"]["episodes"] == 3 and round(data["summary"]["success_rate"], 3) == 0.667
    assert data["episodes"][1]["side_effects"] == ["settings.global.wifi_on: 1 -> 0"]
    page = report.write_html(RESULTS, tmp_path, meta).read_text()
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "saw &lt;b&gt;" in page and page.count('class="episode') == 3


def test_tasks_list_show_and_checks_commands() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["tasks", "list", "--suite", "smoke", "--json"])
    assert listed.exit_code == 0
    assert "settings.wifi_off" in {t["id"] for t in json.loads(listed.stdout)}
    shown = runner.invoke(app, ["tasks", "show", "contacts.add_contact", "--seed", "3"])
    drawn = yaml.safe_load(shown.stdout)
    assert shown.exit_code == 0 and drawn["seed"] == 3
    params = drawn["params_drawn"]
    assert f"{params['first']} {params['last']}" in drawn["goal_filled"]  # whichever phrasing seed 3 drew
    assert drawn["goal_filled"] == load_catalog().get("contacts.add_contact").instantiate(3).goal
    checks = runner.invoke(app, ["tasks", "checks"])
    assert checks.exit_code == 0 and "contacts.has_contact" in checks.stdout
