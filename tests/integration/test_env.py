"""`mgfarm.make` on simulated devices: exact resets, judge rewards, invalid actions, the checker."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mgfarm
from mgfarm.device.actions import ACTION_TYPES
from mgfarm.env.env import MobileEnv
from mgfarm.env.lease import LeaseError
from mgfarm.env.recorder import read_episode
from mgfarm.errors import MgfarmError
from mgfarm.wrappers import NormalizedCoords, ProgressReward, RecordEpisodes, wrap
from tests.integration.conftest import AdbServer, SimHandle
from tests.integration.envfarm import PROBE_DB, TASK_ID, install_tasks, make_farm


@pytest.fixture
def env(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[MobileEnv]:
    install_tasks(tmp_path, monkeypatch)
    make_farm("envtest", adb_server, sim_devices(1), tmp_path, monkeypatch)
    env = mgfarm.make(TASK_ID, seed=3, farm="envtest", wait_seconds=0.0)
    assert isinstance(env, MobileEnv)  # no flags: no wrappers
    yield env
    env.close()


def test_reset_restores_settings_and_database_rows_exactly(env: MobileEnv) -> None:
    obs, info = env.reset(seed=1)
    dev = env.device
    assert info["task_id"] == TASK_ID and info["params"]["name"] in info["goal"]
    assert obs["goal"] == info["goal"]
    assert dev.settings_get("global", "wifi_on") == "1"  # the task's setup ran
    dev.settings_put("system", "screen_brightness", 200)
    dev.sqlite(PROBE_DB, "UPDATE t SET v = 'changed' WHERE k = 'row'")
    dev.sqlite(PROBE_DB, "INSERT INTO t VALUES ('extra', 'x')")
    env.reset(seed=2)
    assert dev.settings_get("system", "screen_brightness") == "77"
    assert dev.sqlite(PROBE_DB, "SELECT k, v FROM t ORDER BY k") == [["row", "orig"]]


def test_observation_matches_declared_spaces(env: MobileEnv) -> None:
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert obs["screenshot"].shape == (2400, 1080, 3)
    assert len(obs["ui_elements"]) > 0


def test_judge_reward_on_status_and_recorded_trajectory(env: MobileEnv, tmp_path: Path) -> None:
    recorded = RecordEpisodes(env, tmp_path / "run")
    _, info = recorded.reset(seed=5)
    name = info["params"]["name"]
    _, reward, terminated, truncated, step_info = recorded.step({"action_type": "navigate_home"})
    assert (reward, terminated, truncated, step_info["error"]) == (0.0, False, False, None)
    assert "judge" not in step_info  # the final reward judges once, at the end
    # do the task's work as an agent's effects would, then declare completion
    env.device.settings_put("global", "wifi_on", 0)
    env.device.shell(f"echo done > /sdcard/Download/{name}.txt")
    _, reward, terminated, truncated, step_info = recorded.step(
        '{"action_type": "status", "goal_status": "complete"}'
    )
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert step_info["judge"]["success"] is True
    [episode] = [p for p in (tmp_path / "run").iterdir() if p.is_dir()]
    events = read_episode(episode)
    assert [e["event"] for e in events] == ["reset", "step", "step", "end"]
    assert events[-1]["success"] is True and events[-1]["steps"] == 2 and events[-1]["reward"] == 1.0
    assert (
        events[0]["task_id"] == TASK_ID and events[0]["replica"] == 0 and events[0]["timings"]["total_ms"] > 0
    )
    assert (episode / "step_0000.png").is_file() and (episode / "step_0001.png").is_file()
    assert not (episode / "step_0002.png").exists()  # the last step ended the episode: no new screen


def test_failed_goal_gets_zero_and_budget_truncates(env: MobileEnv) -> None:
    env.reset(seed=6)
    truncated = False
    steps = 0
    while not truncated:
        _, reward, terminated, truncated, info = env.step({"action_type": "navigate_back"})
        steps += 1
        assert not terminated
    assert steps == 6 and reward == 0.0 and info["judge"]["success"] is False
    with pytest.raises(mgfarm.errors.MgfarmError, match="reset"):
        env.step({"action_type": "navigate_home"})


def test_dense_reward_sums_to_progress(env: MobileEnv) -> None:
    dense = ProgressReward(env)
    dense.reset(seed=7)
    env.device.settings_put("global", "wifi_on", 0)  # one of the two checks
    _, r1, _, _, info1 = dense.step({"action_type": "navigate_home"})
    _, r2, terminated, _, info = dense.step({"action_type": "status", "goal_status": "complete"})
    assert info1["judge"]["success"] is False  # judged after every step
    assert terminated and r1 == pytest.approx(0.5) and r1 + r2 == pytest.approx(info["judge"]["progress"])
    dense.reset(seed=7)  # a new episode starts from zero progress
    _, r1, *_ = dense.step({"action_type": "navigate_home"})
    assert r1 == 0.0


def test_invalid_actions_cost_a_step_and_explain(env: MobileEnv) -> None:
    _obs, _ = env.reset(seed=8)
    bad = [
        {"action_type": "teleport"},
        {"action_type": "click", "index": 10_000},
        {"action_type": "click", "x": 5000, "y": 5},
        "{not json",
        {"action_type": "open_app", "app_name": "No Such App"},
        {"action_type": "unknown"},
    ]
    for step, action in enumerate(bad, start=1):
        _obs2, reward, terminated, truncated, info = env.step(action)
        assert info["error"] and "\n" not in info["error"], action
        assert info["step"] == step and reward == 0.0 and not terminated
    assert truncated is False or step == 6


def test_hostile_text_is_typed_not_run(env: MobileEnv) -> None:
    env.reset(seed=9)
    hostile = "'; touch /sdcard/pwned; echo '$(touch /sdcard/pwned2)`id`"
    _, _, _, _, info = env.step({"action_type": "input_text", "text": hostile})
    assert info["error"] is None
    assert env.device.shell2("ls /sdcard/pwned /sdcard/pwned2").exit_code != 0


def test_passes_gymnasium_env_checker(env: MobileEnv, tmp_path: Path) -> None:
    check_env(env, skip_render_check=True)
    assert isinstance(env, gymnasium.Env)
    stacked = wrap(env, reward="dense", coords="normalized", record=tmp_path / "checked")
    warnings.filterwarnings("ignore", message=".*different from the unwrapped version")  # wrapped on purpose
    assert [type(w).__name__ for w in _layers(stacked)] == [
        "RecordEpisodes",
        "ProgressReward",
        "NormalizedCoords",
    ]
    check_env(stacked, skip_render_check=True)


def _layers(env: gymnasium.Env[Any, Any]) -> list[gymnasium.Env[Any, Any]]:
    out: list[gymnasium.Env[Any, Any]] = []
    while isinstance(env, gymnasium.Wrapper):
        out.append(env)
        env = env.env
    return out


def test_make_flags_are_wrappers_and_a_bad_flag_leases_nothing(env: MobileEnv, tmp_path: Path) -> None:
    env.close()
    with pytest.raises(MgfarmError, match="reward='sparse' is unknown"):
        mgfarm.make(TASK_ID, farm="envtest", reward="sparse", lease_timeout=0.0)  # type: ignore[call-overload]
    made = mgfarm.make(TASK_ID, farm="envtest", reward="dense", record=tmp_path / "r", lease_timeout=0.0)
    try:
        assert isinstance(made, RecordEpisodes) and isinstance(made.env, ProgressReward)
        assert isinstance(made.unwrapped, MobileEnv) and made.unwrapped.replica_index == 0
    finally:
        made.close()
    with pytest.raises(MgfarmError, match="needs a MobileEnv underneath"):
        ProgressReward(gymnasium.make("CartPole-v1"))


def test_close_releases_the_replica_for_the_next_env(env: MobileEnv) -> None:
    with pytest.raises(LeaseError, match="all leased"):
        mgfarm.make(TASK_ID, farm="envtest", lease_timeout=0.0)
    env.close()
    again = mgfarm.make(TASK_ID, farm="envtest", lease_timeout=0.0)
    assert isinstance(again, MobileEnv) and again.replica_index == 0
    again.close()


def test_an_unknown_snapshot_names_the_existing_ones_and_frees_the_replica(env: MobileEnv) -> None:
    env.close()
    with pytest.raises(MgfarmError) as bad:
        mgfarm.make(TASK_ID, farm="envtest", snapshot="nosuch", lease_timeout=0.0)
    message = str(bad.value)
    assert "Snapshot 'nosuch' does not exist" in message and "they have: golden" in message
    assert "`mgfarm snapshot build nosuch`" in message and "`mgfarm snapshot list`" in message
    again = mgfarm.make(TASK_ID, farm="envtest", snapshot="golden", lease_timeout=0.0)
    assert isinstance(again, MobileEnv) and again.replica_index == 0  # the failed make() gave it back
    again.close()


ACTIONS = st.fixed_dictionaries(
    {"action_type": st.sampled_from([*ACTION_TYPES, "bogus"])},
    optional={
        "x": st.one_of(st.integers(-50, 1200), st.floats(allow_nan=True), st.text(max_size=3)),
        "y": st.one_of(st.integers(-50, 2500), st.floats(allow_nan=True)),
        "index": st.one_of(st.integers(-2, 60), st.none()),
        "direction": st.sampled_from(["up", "down", "left", "right", "diagonal"]),
        "text": st.text(max_size=30),
        "app_name": st.text(max_size=12),
        "clear_text": st.booleans(),
        "goal_status": st.sampled_from(["complete", "infeasible", "maybe"]),
        "coords": st.sampled_from(["pixel", "normalized", "polar"]),
        "keycode": st.sampled_from(["KEYCODE_TAB", "KEYCODE_DEL", "3; reboot"]),
    },
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=st.one_of(ACTIONS, st.text(max_size=40), st.integers(), st.none()))
def test_fuzzed_actions_never_crash_the_env(env: MobileEnv, action: object) -> None:
    if env._done:
        env.reset(seed=11)
    obs, reward, _terminated, _truncated, info = env.step(action)
    assert env.observation_space.contains(obs)
    assert isinstance(reward, float) and isinstance(info["step"], int)
    assert env.device.shell("echo alive") == "alive"


def _index(info: dict[str, object], **want: str) -> int:
    elements = info["ui_elements"]
    assert isinstance(elements, list)
    for element in elements:
        if all(element[key] == value for key, value in want.items()):
            return int(element["index"])
    raise AssertionError(f"no element with {want}")


@pytest.mark.parametrize("how", ["per action", "wrapper"])
def test_open_app_normalized_click_and_input_text_with_clear(env: MobileEnv, how: str) -> None:
    agent = NormalizedCoords(env) if how == "wrapper" else env
    agent.reset(seed=10)
    _, _, _, _, info = agent.step({"action_type": "open_app", "app_name": "Contacts"})
    assert info["error"] is None and env.device.current_app()[0] == "com.google.android.contacts"
    fab = info["ui_elements"][_index(info, content_desc="Create contact")]
    (left, top, right, bottom), (width, height) = fab["bounds"], env.device.window_size()
    x, y = (left + right) / 2 * 1000 / (width - 1), (top + bottom) / 2 * 1000 / (height - 1)
    action = {"action_type": "click", "x": x, "y": y}
    if how == "per action":
        action["coords"] = "normalized"
    # (as pixels, the FAB's 0..1000 position would be mid-screen: the editor opening proves the scale)
    _, _, _, _, info = agent.step(json.dumps(action) if how == "wrapper" else action)
    assert info["error"] is None
    first = _index(info, resource_id="com.google.android.contacts:id/first_name")
    _, _, _, _, info = env.step({"action_type": "input_text", "index": first, "text": "Ada Lovelace"})
    assert info["ui_elements"][first]["text"] == "Ada Lovelace"
    _, _, _, _, info = env.step(
        {"action_type": "input_text", "index": first, "text": "Bo", "clear_text": True}
    )
    assert info["ui_elements"][first]["text"] == "Bo"
    _, _, _, _, info = env.step({"action_type": "navigate_home"})
    assert env.device.current_app()[0] != "com.google.android.contacts"


def test_text_only_env_leaves_out_screenshots(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_tasks(tmp_path, monkeypatch)
    make_farm("textonly", adb_server, sim_devices(1), tmp_path, monkeypatch)
    env = mgfarm.make(TASK_ID, farm="textonly", screenshot=False, wait_seconds=0.0)
    try:
        space = env.observation_space
        assert isinstance(space, gymnasium.spaces.Dict) and set(space.spaces) == {"ui_elements", "goal"}
        obs, _ = env.reset(seed=1)
        assert set(obs) == {"ui_elements", "goal"} and env.observation_space.contains(obs)
        obs, _, _, _, _ = env.step({"action_type": "teleport"})
        assert env.observation_space.contains(obs)
        check_env(env, skip_render_check=True)
    finally:
        env.close()
