"""The adversary matrix is derived from every template: who plays, what verdict each must get."""

from __future__ import annotations

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.tasks import answers
from mgfarm.tasks.adversaries import adversaries, goal_parameters, other_value, rephrase
from mgfarm.tasks.checker import check_jobs, verdict
from mgfarm.tasks.jobs import EpisodeResult

CATALOG = load_catalog()


@pytest.mark.parametrize("task_id", sorted(CATALOG.templates))
def test_every_template_has_the_derived_adversaries(task_id: str) -> None:
    template = CATALOG.get(task_id)
    advs = {a.name: a for a in adversaries(template, 0, CATALOG)}
    assert advs["oracle"].expect == "accept" and advs["nothing"].expect == "reject"
    assert "damage_setting" in advs
    assert all(
        a.expect == ("accept" if a.group in ("oracle", "alternative") else "reject") for a in advs.values()
    )
    if not template.feasible:  # another name is just as impossible: no parameter misses
        assert "claims_done" in advs and not any(a.group == "param_miss" for a in advs.values())
        return
    if template.answer:
        assert {"constant_0", "goal_text", "all_candidates", "other_words"} <= set(advs)
    else:
        assert any(a.group == "param_miss" for a in advs.values()) or not goal_parameters(template)
    for name in goal_parameters(template):
        assert other_value(template, 0, name, template.instantiate(0).params[name]) is not None


def test_the_issue_examples_are_adversaries() -> None:
    wanted = {
        "contacts.star_contact": "over_broad",
        "phone.call_contact": "wrong_then_right",
        "messages.send_sms": "wrong_then_right",
        "clock.enable_alarm": "over_broad",
        "expense.delete_expense": "over_broad",
        "expense.fix_amount": "add_new_keep_wrong",
        "calendar.move_event": "add_a_copy",
        "calendar.add_event_with_location": "miss_end",
        "calendar.add_event": "wrong_then_right",
        "settings.wifi_off": "airplane_mode",
    }
    for task_id, name in wanted.items():
        assert name in {a.name for a in adversaries(CATALOG.get(task_id), 0, CATALOG)}, task_id


def test_zone_per_seed_plays_each_seed_in_one_zone() -> None:
    template = CATALOG.get("settings.wifi_off")
    zones = ["UTC", "America/Los_Angeles", "Asia/Kolkata"]
    full = check_jobs(CATALOG, [template], 3, zones)
    diagonal = check_jobs(CATALOG, [template], 3, zones, zone_per_seed=True)
    assert len(full) == 3 * len(diagonal)
    assert {(j.seed, j.timezone) for j in diagonal} == {
        (0, "UTC"),
        (1, "America/Los_Angeles"),
        (2, "Asia/Kolkata"),
    }


def result(success: bool, status: str = "complete", error: str = "") -> EpisodeResult:
    return EpisodeResult("t.x", "t", "L1", 0, "a", "k", "goal", success=success, status=status, error=error)


def test_verdicts() -> None:
    assert verdict(result(True), "accept") == "ok"
    assert verdict(result(False), "accept") == "false-reject"
    assert verdict(result(False, "infeasible"), "accept") == "false-reject"
    assert verdict(result(True), "reject") == "false-accept"
    assert verdict(result(True, "infeasible"), "reject") == "n/a"  # could not be played as designed
    assert verdict(result(True, "budget"), "reject") == "n/a"
    assert verdict(result(False, error="boom"), "reject") == "error"


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("integer", "3"),
        ("time", "09:30"),
        ("time", "17:45"),
        ("money", "45.25"),
        ("phone", "5551234567"),
        ("text", "On my way"),
    ],
)
def test_rephrased_answers_still_mean_the_answer(kind: str, value: str) -> None:
    said = rephrase(kind, value)
    assert said != value and answers.matches(kind, said, value)


def test_a_phrasing_choice_names_the_goal_parameters_of_its_options() -> None:
    from mgfarm.tasks.schema import TaskTemplate

    template = TaskTemplate.model_validate(
        {
            "id": "demo.phrased",
            "apps": ["files"],
            "goal": "{ask}",
            "difficulty": "L1",
            "params": {
                "name": {"sample": "words"},
                "ask": {"choice": ["Create folder {name}.", "Make a folder called {name}."]},
            },
            "outcome": [{"file": {"path": "/sdcard/{name}", "exists": True}}],
            "oracle": [{"open_app": "Files"}],
        }
    )
    assert goal_parameters(template) == ["name"]


def test_a_query_miss_that_still_says_the_right_answer_is_not_played() -> None:
    # Another kind of code opens another note, but the scripted answer is the hidden right code:
    # it would pass without reading the wrong note, so it says nothing about the judge.
    template = CATALOG.get("joplin.find_code")
    for seed in range(5):
        miss = next(a for a in adversaries(template, seed, CATALOG) if a.name == "miss_kind")
        first = miss.agent(template.instantiate(seed)).act({"ui_elements": []})
        assert first["goal_status"] == "infeasible"
    # A miss that changes the answer is played (another n: the count it says changes with it).
    template = CATALOG.get("phone.count_missed_calls")
    miss = next(a for a in adversaries(template, 0, CATALOG) if a.name == "miss_n")
    assert miss.agent(template.instantiate(0)).act({"ui_elements": []})["action_type"] == "open_app"


def test_an_app_with_its_own_preferences_is_damaged_there_too() -> None:
    """Pro Expense's currency and OpenTracks' units live in their SharedPreferences: the matrix
    proves a change there is rejected for every template that opens the app, and no other template
    gets the adversary."""
    for task_id in CATALOG.templates:
        template = CATALOG.get(task_id)
        names = {a.name for a in adversaries(template, 0, CATALOG)}
        for app in ("expense", "opentracks"):
            assert (f"damage_pref_{app}" in names) == (app in template.apps), task_id
