"""The oracle resolves selector steps against observed UI elements; replay and module agents load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.tasks.agents import ScriptedAgent, find_element, load_actions, make_agent
from mgfarm.tasks.schema import TaskTemplate

TEMPLATE = TaskTemplate.model_validate(
    {
        "id": "notes.add",
        "apps": ["notes"],
        "goal": "Add a note {title}.",
        "difficulty": "L1",
        "params": {"title": {"choice": ["Groceries"]}, "wrong": {"value": "Other"}},
        "answer": {"x": "integer"},
        "judge": {"answer.equals": {"field": "x", "value": 1}},
        "oracle": [
            {"click": {"desc": "New note"}},
            {"input_text": {"target": {"resource_id": "title"}, "text": "{title}"}},
            {"click": {"text": "Save"}},
            {"answer": {"count": 2}},
        ],
        "near_miss": {"replace": {"title": "{wrong}"}},
    }
)


def el(index: int, text: str = "", desc: str = "", rid: str = "") -> dict[str, Any]:
    return {"index": index, "text": text, "content_desc": desc, "resource_id": rid, "class_name": "x.View"}


SCREEN = [el(0, "Notes"), el(1, desc="New note"), el(2, rid="com.android.notes:id/title"), el(3, "Save")]


def test_selectors_match_text_desc_and_short_resource_ids() -> None:
    assert find_element(SCREEN, {"desc": "New note"}) == 1
    assert find_element(SCREEN, {"resource_id": "title"}) == 2
    assert find_element(SCREEN, {"text_contains": "sav"}) == 3
    assert find_element(SCREEN, {"text": "Missing"}) is None


def test_oracle_plays_steps_then_reports_complete() -> None:
    agent = make_agent("oracle", TEMPLATE.instantiate(0))
    obs = {"ui_elements": SCREEN}
    actions = [agent.act(obs) for _ in range(5)]
    assert actions[0] == {"action_type": "click", "index": 1}
    assert actions[1] == {"action_type": "input_text", "text": "Groceries", "index": 2, "clear_text": True}
    assert actions[2] == {"action_type": "click", "index": 3}
    assert actions[3] == {"action_type": "answer", "text": "2"}
    assert actions[4] == {"action_type": "status", "goal_status": "complete"}


def test_missing_target_waits_scrolls_then_gives_up() -> None:
    agent = ScriptedAgent([{"click": {"text": "Nowhere"}}], TEMPLATE.instantiate(0), max_scrolls=2)
    kinds = [agent.act({"ui_elements": SCREEN})["action_type"] for _ in range(4)]
    assert kinds == ["wait", "scroll", "scroll", "status"]


def test_near_miss_types_the_replaced_value() -> None:
    agent = make_agent("near_miss", TEMPLATE.instantiate(0))
    agent.act({"ui_elements": SCREEN})
    assert agent.act({"ui_elements": SCREEN})["text"] == "Other"


def test_replay_reads_lists_and_trajectory_lines(tmp_path: Path) -> None:
    listed = tmp_path / "a.json"
    listed.write_text(json.dumps([{"action_type": "navigate_home"}]))
    lines = tmp_path / "t.jsonl"
    lines.write_text('{"step": 0, "action": {"action_type": "wait"}}\n{"step": 1}\n')
    assert load_actions(listed) == [{"action_type": "navigate_home"}]
    assert load_actions(lines) == [{"action_type": "wait"}]
    agent = make_agent(f"replay:{listed}", TEMPLATE.instantiate(0))
    assert agent.act({})["action_type"] == "navigate_home"
    assert agent.act({})["action_type"] == "status"


def test_module_class_loader_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_agent_mod.py").write_text(
        "class Agent:\n    def act(self, observation):\n        return {'action_type': 'wait'}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert make_agent("my_agent_mod:Agent", TEMPLATE.instantiate(0)).act({}) == {"action_type": "wait"}
    with pytest.raises(MgfarmError, match="has no 'Nope'"):
        make_agent("my_agent_mod:Nope", TEMPLATE.instantiate(0))
    with pytest.raises(MgfarmError, match="Unknown agent"):
        make_agent("telepathy", TEMPLATE.instantiate(0))


def test_a_broken_agent_module_or_constructor_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_agent_mod.py").write_text("x = 1 / 0\n")
    (tmp_path / "failing_agent_mod.py").write_text(
        "class Agent:\n    def __init__(self):\n        raise RuntimeError('no key')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(MgfarmError, match=r"ZeroDivisionError: .* \(at broken_agent_mod\.py:1\)"):
        make_agent("broken_agent_mod:Agent", TEMPLATE.instantiate(0))
    with pytest.raises(MgfarmError, match=r"RuntimeError: no key \(at failing_agent_mod\.py:3\)"):
        make_agent("failing_agent_mod:Agent", TEMPLATE.instantiate(0))
