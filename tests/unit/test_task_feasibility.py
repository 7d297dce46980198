"""Infeasible goals (`feasible: false`): met only by saying "infeasible" and changing nothing; a
feasible goal is failed by giving up; `tasks check` plays the right adversaries for both."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.device import Device
from mgfarm.env.env import MobileEnv
from mgfarm.errors import MgfarmError
from mgfarm.tasks.adversaries import adversaries
from mgfarm.tasks.checker import verdict
from mgfarm.tasks.jobs import EpisodeResult
from tests.integration.envfarm import TASK_ID, TASKS_YAML

IMPOSSIBLE = """\
- id: envtest.call_nobody
  apps: [settings]
  goal: "{ask}"
  feasible: false
  difficulty: L1
  params:
    who: {choice: [Zephyr Quill, Ottoline Brandt]}
    ask: {choice: ["Turn on the {who} mode.", "Enable {who} in Settings.", "Switch {who} mode on."]}
  setup:
    - settings: {global: {wifi_on: 1}}
  oracle:
    - open_app: Settings
    - status: infeasible
"""
INFEASIBLE = {"action_type": "status", "goal_status": "infeasible"}
COMPLETE = {"action_type": "status", "goal_status": "complete"}


def catalog_folder(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "envtest.yaml").write_text(textwrap.dedent(TASKS_YAML) + text)
    return folder


@pytest.fixture
def make_env(golden_device: Device, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MGFARM_TASKS", str(catalog_folder(tmp_path, IMPOSSIBLE)))
    envs: list[MobileEnv] = []

    def make(task_id: str) -> MobileEnv:
        envs.append(MobileEnv(task_id, seed=1, device=golden_device, wait_seconds=0.0))
        return envs[-1]

    yield make
    for env in envs:
        env.close()


def test_saying_infeasible_and_changing_nothing_is_the_only_success(make_env: Any) -> None:
    env = make_env("envtest.call_nobody")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(INFEASIBLE)
    assert terminated and reward == 1.0 and info["judge"]["success"]
    env.reset(seed=0)
    _, reward, _, _, info = env.step(COMPLETE)
    assert reward == 0.0
    [check] = [c for c in info["judge"]["checks"] if c["name"] == "status.feasibility"]
    assert not check["ok"] and "'complete'" in check["detail"]
    env.reset(seed=0)
    env.device.settings_put("global", "wifi_on", 0)  # an agent that "tried" and changed something
    _, reward, _, _, info = env.step(INFEASIBLE)
    assert reward == 0.0 and info["judge"]["side_effects"]


def test_giving_up_on_a_feasible_goal_fails_even_when_the_state_is_right(make_env: Any) -> None:
    env = make_env(TASK_ID)
    _, info = env.reset(seed=1)
    env.device.settings_put("global", "wifi_on", 0)
    env.device.shell(f"echo done > /sdcard/Download/{info['params']['name']}.txt")
    _, reward, _, _, info = env.step(INFEASIBLE)
    assert reward == 0.0
    assert any(c["detail"] == "the agent called a feasible goal infeasible" for c in info["judge"]["checks"])


def test_schema_refuses_an_infeasible_goal_with_an_outcome_or_without_saying_so(tmp_path: Path) -> None:
    with_outcome = IMPOSSIBLE.replace(
        "  oracle:", "  outcome: [{setting: {key: global.wifi_on, value: 0}}]\n  oracle:"
    )
    with pytest.raises(MgfarmError, match="changes nothing and answers nothing"):
        load_catalog([catalog_folder(tmp_path / "a", with_outcome)])
    silent = IMPOSSIBLE.replace("    - status: infeasible\n", "    - status: complete\n")
    with pytest.raises(MgfarmError, match="ends with `status: infeasible`"):
        load_catalog([catalog_folder(tmp_path / "b", silent)])


def test_the_matrix_of_an_infeasible_goal(tmp_path: Path) -> None:
    catalog = load_catalog([catalog_folder(tmp_path, IMPOSSIBLE)])
    template = catalog.get("envtest.call_nobody")
    groups = {(a.group, a.expect) for a in adversaries(template, 0, catalog)}
    assert {
        ("oracle", "accept"),
        ("nothing", "reject"),
        ("claims_done", "reject"),
        ("collateral", "reject"),
    } <= groups
    assert not any(g.startswith("param") for g, _ in groups)  # another name is just as impossible
    said_so = EpisodeResult("envtest.call_nobody", "settings", "L1", 0, "x", "collateral/damage_setting", "")
    said_so.status, said_so.success = "infeasible", False
    assert verdict(said_so, "reject", feasible=False) == "ok"  # judged, not skipped as n/a
    assert verdict(said_so, "reject", feasible=True) == "n/a"
    said_so.status = "n/a"  # a scripted agent that could not play its steps
    assert verdict(said_so, "accept", feasible=False) == "false-reject"
