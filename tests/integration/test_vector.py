"""Gymnasium's surface on simulated devices: `gymnasium.make("mgfarm/...")`, the env checker, and
`MobileVectorEnv` through `gymnasium.make_vec` with next-step autoreset, batched infos and lost replicas."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import mgfarm
from mgfarm.env.env import MobileEnv
from mgfarm.env.recorder import read_episode
from mgfarm.farm.state import FarmState
from mgfarm.vector import MobileVectorEnv
from tests.integration.conftest import AdbServer, SimHandle
from tests.integration.envfarm import make_farm
from tests.integration.test_pool import kill_replica

FarmMaker = Callable[[str, int], FarmState]
# Query tasks: the verdict is the typed answer, so they need no outcome declaration.
TASK_ID = "vectest.say_number"
OTHER_ID = "vectest.say_word"
TASKS_YAML = """\
- id: vectest.say_number
  apps: [settings]
  goal: "Answer with the number {n}."
  difficulty: L1
  params:
    n: {choice: ["3", "4", "5", "6"]}
  answer: {n: integer}
  judge:
    all:
      - answer.equals: {field: n, value: "{n}"}
  max_steps: 4
  oracle:
    - answer: {n: "{n}"}
- id: vectest.say_word
  apps: [settings]
  goal: "Answer with the word yes."
  difficulty: L1
  answer: {word: text}
  judge:
    all:
      - answer.equals: {field: word, value: "yes"}
  max_steps: 3
  oracle:
    - answer: {word: "yes"}
"""
HOME = {"action_type": "navigate_home"}


def answer(n: object) -> dict[str, str]:
    return {"action_type": "answer", "text": str(n)}


@pytest.fixture
def farm(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[FarmMaker]:
    """Starts a farm of N simulated replicas with the env test tasks, registered as Gymnasium ids."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "vectest.yaml").write_text(TASKS_YAML)
    monkeypatch.setenv("MGFARM_TASKS", str(folder))
    mgfarm.register_envs()  # the test tasks live in $MGFARM_TASKS, set after `import mgfarm`

    def start(name: str, replicas: int) -> FarmState:
        return make_farm(name, adb_server, sim_devices(replicas), tmp_path, monkeypatch)

    yield start


def test_gym_make_builds_a_checked_env_for_a_task_id(farm: FarmMaker) -> None:
    farm("gymmake", 2)  # check_env makes a second env from the spec to check close()
    env = gymnasium.make(f"mgfarm/{TASK_ID}", farm="gymmake", wait_seconds=0.0)
    try:
        assert isinstance(env.unwrapped, MobileEnv) and env.spec is not None
        assert env.spec.id == f"mgfarm/{TASK_ID}"
        check_env(env.unwrapped, skip_render_check=True)
        obs, info = env.reset(seed=4)  # through gymnasium's own wrappers (order, passive checker)
        assert info["task_id"] == TASK_ID and env.observation_space.contains(obs)
    finally:
        env.close()
    generic = gymnasium.make("mgfarm/Task-v0", task_id=OTHER_ID, farm="gymmake", wait_seconds=0.0)
    try:
        assert generic.reset(seed=0)[1]["task_id"] == OTHER_ID
        _, reward, terminated, _, info = generic.step(answer("Yes."))
        assert (reward, terminated, info["judge"]["success"]) == (1.0, True, True)
    finally:
        generic.close()


def test_make_vec_runs_episodes_with_next_step_autoreset(farm: FarmMaker) -> None:
    farm("vecrun", 2)
    venv = gymnasium.make_vec(f"mgfarm/{TASK_ID}", num_envs=2, farm="vecrun", wait_seconds=0.0)
    try:
        assert isinstance(venv, MobileVectorEnv) and venv.num_envs == 2
        assert venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        obs, infos = venv.reset(seed=1)
        assert venv.observation_space.contains(obs) and venv.single_observation_space.contains(
            {k: v[0] for k, v in obs.items()}
        )
        assert obs["screenshot"].shape == (2, 2400, 1080, 3) and obs["screenshot"].dtype == np.uint8
        assert sorted(infos["replica"]) == [0, 1] and infos["_replica"].all()
        venv.step([HOME, HOME])
        wanted = list(infos["params"]["n"])
        obs, rewards, terminated, truncated, infos = venv.step(
            [answer(wanted[0]), answer(int(wanted[1]) + 1)]
        )
        assert list(rewards) == [1.0, 0.0] and terminated.all() and not truncated.any()
        assert list(infos["judge"]["success"]) == [True, False] and infos["judge"]["_success"].all()
        obs, rewards, terminated, truncated, infos = venv.step([HOME, HOME])
        assert infos["_autoreset"].all() and not rewards.any() and not (terminated | truncated).any()
        wanted = list(infos["params"]["n"])
        obs, rewards, terminated, truncated, infos = venv.step([answer(f"the number is {n}") for n in wanted])
        assert list(rewards) == [1.0, 1.0] and terminated.all() and not truncated.any()
        assert list(infos["judge"]["success"]) == [True, True] and infos["judge"]["_success"].all()
        obs, rewards, terminated, truncated, infos = venv.step([{"action_type": "navigate_back"}] * 2)
        assert infos["_autoreset"].all() and not rewards.any() and not (terminated | truncated).any()
        assert venv.observation_space.contains(obs)
    finally:
        venv.close()


def test_a_seeded_reset_repeats_observations_and_infos(farm: FarmMaker) -> None:
    farm("vecseed", 2)
    venv = mgfarm.make_vec(2, TASK_ID, farm="vecseed", wait_seconds=0.0)
    try:
        first = venv.reset(seed=5)
        venv.step([{"action_type": "open_app", "app_name": "Contacts"}] * 2)
        again = venv.reset(seed=5)
        assert data_equivalence(first[0], again[0])
        assert list(first[1]["params"]["n"]) == list(again[1]["params"]["n"])
        assert list(first[1]["seed"]) == list(again[1]["seed"])
    finally:
        venv.close()


def test_sampled_actions_keep_observations_in_the_space(farm: FarmMaker) -> None:
    farm("vecsample", 2)
    venv = RecordEpisodeStatistics(mgfarm.make_vec(2, TASK_ID, farm="vecsample", wait_seconds=0.0))
    try:
        venv.action_space.seed(0)
        venv.reset(seed=0)
        ended: list[int] = []
        for step in range(1, 7):  # random text is no valid action: the 4-step budget truncates
            obs, rewards, terminated, truncated, infos = venv.step(venv.action_space.sample())
            assert venv.observation_space.contains(obs) and rewards.dtype == np.float64
            assert not rewards.any() and not terminated.any()
            assert list(truncated) == [step == 4] * 2
            assert infos["_autoreset"].all() if step == 5 else ("autoreset" not in infos)
            if step <= 4:
                assert infos["_error"].all()
            if "episode" in infos:
                ended += [int(n) for n in infos["episode"]["l"][infos["_episode"]]]
        assert ended == [4, 4]  # Gymnasium's statistics wrapper saw each whole episode once
    finally:
        venv.close()


def test_a_lost_replica_truncates_and_no_observation_is_none(
    farm: FarmMaker,
) -> None:
    state = farm("veclost", 2)
    venv = mgfarm.make_vec(2, TASK_ID, farm="veclost", wait_seconds=0.0, lease_timeout=0.0)
    try:
        obs, infos = venv.reset(seed=2)
        victim = int(np.flatnonzero(infos["replica"] == 0)[0])
        kill_replica(state, 0)
        obs, _, terminated, truncated, infos = venv.step([HOME, HOME])
        assert truncated[victim] and not terminated[victim] and infos["_failed"][victim]
        # no replica is free for a new episode: the env reports it truncated again, with its last screen
        obs, _, _, truncated, infos = venv.step([HOME, HOME])
        assert truncated[victim] and infos["_failed"][victim] and infos["_autoreset"][victim]
        assert venv.observation_space.contains(obs) and obs["screenshot"][victim].any()
        assert not truncated[1 - victim]
    finally:
        venv.close()


def test_pool_flags_become_wrappers_on_every_env(farm: FarmMaker, tmp_path: Path) -> None:
    farm("vecflags", 2)
    runs = tmp_path / "runs"
    venv = mgfarm.make_vec(2, TASK_ID, farm="vecflags", wait_seconds=0.0, reward="dense", record=runs)
    try:
        _, infos = venv.reset(seed=8)
        wanted = list(infos["params"]["n"])
        _, rewards, _, _, infos = venv.step([HOME, HOME])
        assert infos["judge"]["_success"].all()  # dense: judged after every step
        _, rewards, terminated, _, _ = venv.step([answer(n) for n in wanted])
        assert terminated.all() and list(rewards) == [1.0, 1.0]
        frames = venv.render()
        assert frames is not None and len(frames) == 2 and frames[0].shape == (2400, 1080, 3)
    finally:
        venv.close()
    episodes = sorted(p for p in runs.iterdir() if p.is_dir())
    assert (
        len(episodes) == 2 and episodes[0].name.startswith("00001-") and episodes[1].name.startswith("00002-")
    )
    for folder in episodes:
        events = read_episode(folder)
        assert [e["event"] for e in events] == ["reset", "step", "step", "end"]
        assert events[-1]["success"] is True and sum(e.get("reward", 0) for e in events[1:3]) == 1.0
