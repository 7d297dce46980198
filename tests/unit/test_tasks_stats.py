"""`mgfarm tasks stats`: counts per app, kind, level and split, as a table, JSON and Markdown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from mgfarm.catalog import load_catalog
from mgfarm.cli import app
from mgfarm.tasks.commands import catalog_stats, stats_markdown, stats_summary

TEMPLATES = """\
- id: settings.wifi_off
  apps: [settings]
  goal: "{ask}"
  difficulty: L1
  split: train
  params:
    ask: {choice: ["Turn Wi-Fi off.", "Switch off Wi-Fi.", "Disable Wi-Fi."]}
  setup: [{settings: {global: {wifi_on: 1}}}]
  outcome: [{setting: {key: global.wifi_on, value: 0}}]
  oracle: [{open_app: Settings}]
- id: settings.count_x
  apps: [settings, contacts]
  goal: "How many contacts?"
  difficulty: L3
  split: heldout
  answer: {count: integer}
  judge: {answer.equals: {field: count, value: 2}}
  oracle: [{answer: {count: 2}}]
- id: contacts.star
  apps: [contacts]
  goal: "Star Ada."
  difficulty: L2
  setup: [{settings: {global: {wifi_on: 1}}}]
  outcome: [{setting: {key: global.wifi_on, value: 0}}]
  oracle: [{open_app: Contacts}]
"""


def test_counts_per_app_and_in_all(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATES)
    templates = list(load_catalog([tmp_path]).templates.values())
    rows = catalog_stats(templates)
    assert rows["settings"]["templates"] == 2 and rows["settings"]["cross-app"] == 1
    assert rows["settings"]["query"] == 1 and rows["settings"]["heldout"] == 1
    assert rows["contacts"] == {**rows["contacts"], "templates": 1, "operate": 1, "L2": 1, "test": 1}
    total = rows["all"]
    assert (total["templates"], total["L1"], total["L3"], total["train"], total["test"]) == (3, 1, 1, 1, 1)
    summary = stats_summary(templates)
    assert "3 templates over 2 apps" in summary and "1 cross-app" in summary
    assert "2 with fewer than 3 phrasings" in summary  # only wifi_off has a 3-way {ask}
    assert stats_markdown(templates).splitlines()[-1].startswith("| **all** | 3 | 2 | 1 | 0 | 1 |")


def test_cli_prints_the_bundled_catalogs_counts_as_json_and_refuses_unknown_suites() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["tasks", "stats", "--json"])
    assert result.exit_code == 0, result.output
    counts = json.loads(result.output)
    assert counts["all"]["templates"] == len(load_catalog().templates)
    assert (
        sum(row["templates"] for name, row in counts.items() if name != "all") == counts["all"]["templates"]
    )
    bad = subprocess.run(
        [str(Path(sys.executable).with_name("mgfarm")), "tasks", "stats", "--suite", "nonsense"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "Suite 'nonsense' has no tasks" in bad.stderr + bad.stdout
    assert "Traceback" not in bad.stderr


def test_the_readme_shows_the_catalogs_counts() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    shown = readme.split("<!-- tasks stats -->\n", 1)[1].split("\n<!-- /tasks stats -->", 1)[0]
    templates = list(load_catalog().templates.values())
    assert shown == stats_markdown(templates), "paste `mgfarm tasks stats --markdown` into README.md"
