"""The shipped catalog: loads cleanly, covers enough apps and levels, and labels levels honestly."""

from __future__ import annotations

from pathlib import Path

import pytest

from mgfarm.catalog import load_catalog, task_dirs
from mgfarm.env.evaluate import run_eval
from mgfarm.errors import MgfarmError
from mgfarm.tasks import params as params_mod
from mgfarm.tasks.pickers import oracle_actions
from mgfarm.tasks.schema import TaskTemplate

CATALOG = load_catalog()
LEVEL_BOUNDS = {"L1": (1, 4), "L2": (5, 10), "L3": (11, 20), "L4": (21, 10_000)}


def test_catalog_size_and_coverage() -> None:
    tasks = list(CATALOG.templates.values())
    assert len(tasks) >= 40
    assert len({t.app for t in tasks}) >= 7
    assert {t.difficulty for t in tasks} >= {"L1", "L2", "L3"}
    assert any(t.answer for t in tasks) and any(not t.answer for t in tasks)
    assert {t.split for t in tasks} == {"train", "test", "heldout"}
    assert sum(t.split == "train" for t in tasks) >= 0.6 * len(tasks)  # what EnvPool trains on
    for app in {t.app for t in tasks if len([u for u in tasks if u.app == t.app]) >= 4}:
        assert any(t.split == "heldout" for t in tasks if t.app == app), f"{app} has no held-out template"
    assert CATALOG.suite("smoke") and all(t.in_suite("smoke") for t in CATALOG.suite("smoke"))


@pytest.mark.parametrize("task_id", sorted(CATALOG.templates))
def test_level_matches_reference_solution_length(task_id: str) -> None:
    template: TaskTemplate = CATALOG.get(task_id)
    low, high = LEVEL_BOUNDS[template.difficulty]
    actions = oracle_actions(template.oracle)
    assert low <= actions <= high, f"{task_id}: {actions} UI actions in its oracle"


@pytest.mark.parametrize("task_id", sorted(CATALOG.templates))
def test_every_seed_fills_every_placeholder(task_id: str) -> None:
    template = CATALOG.get(task_id)
    for seed in range(3):
        instance = template.instantiate(seed)
        assert "{" not in instance.goal
        for step in template.setup:
            if isinstance(step, dict) and "repeat" in step:  # inner steps also see {i}
                params_mod.render(step["repeat"]["steps"], {**instance.params, "i": 1})
            else:
                instance.render(step)
        if template.judge is not None:
            instance.render([leaf.args for leaf in template.judge.leaves()])
        instance.render(template.oracle)
        instance.render(template.outcome)
        instance.render(template.incidental)
        for variant in [*template.adversaries, *template.alternatives]:
            instance.render(variant.after)


def test_unknown_ids_and_suites_are_user_errors() -> None:
    with pytest.raises(MgfarmError, match=r"did you mean settings\.wifi_off"):
        CATALOG.get("settings.wifi_of")
    with pytest.raises(MgfarmError, match="no tasks"):
        CATALOG.suite("nonsense")
    assert {t.id for t in CATALOG.select(["contacts.*"])} == {
        t.id for t in CATALOG.templates.values() if t.app == "contacts"
    }


def test_missing_extra_catalog_folder_is_a_user_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MGFARM_TASKS", str(tmp_path / "nowhere"))
    with pytest.raises(MgfarmError, match=r"MGFARM_TASKS names .*nowhere, which is not a folder"):
        task_dirs()


@pytest.mark.parametrize(("seeds", "replicas"), [([], None), ([0], 0), ([0, 1], -1)])
def test_runs_without_episodes_or_devices_are_refused(seeds: list[int], replicas: int | None) -> None:
    with pytest.raises(MgfarmError, match=r"No seeds to run|not a device count"):
        run_eval(CATALOG, ["settings.wifi_off"], "all", "oracle", seeds, "no-such-farm", replicas, None)


def test_an_output_folder_that_cannot_be_made_is_a_user_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(MgfarmError, match="pick a writable output folder"):
        run_eval(CATALOG, ["settings.wifi_off"], "all", "oracle", [0], "no-such-farm", None, blocker)


def test_a_private_farm_too_large_for_its_port_range_is_refused() -> None:
    with pytest.raises(MgfarmError, match="A private farm takes 1 to 20000 replicas, not 100000"):
        run_eval(CATALOG, ["settings.wifi_off"], "all", "oracle", [0], None, 100000, None)


def test_tasks_list_shows_goals_as_an_agent_reads_them() -> None:
    """Phrasings are parameters (`goal: "{ask}"`), so the list shows a drawn goal, not placeholders."""
    from mgfarm.tasks.commands import listed_goal

    listed = {t.id: listed_goal(t) for t in load_catalog().suite("all")}
    assert not [i for i, goal in listed.items() if "{" in goal]
    assert listed["camera.take_photo"] == load_catalog().get("camera.take_photo").instantiate(0).goal
