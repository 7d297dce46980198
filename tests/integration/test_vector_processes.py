"""`MobileVectorEnv` over worker processes (`processes=2`): the same Gymnasium surface as in one
process, observations through shared memory, and no process left behind by close, a killed worker
or a killed trainer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from PIL import Image

import mgfarm
from mgfarm.env.process_pool import ProcessEnvPool, WorkerFailed
from mgfarm.env.recorder import read_episode
from mgfarm.errors import MgfarmError
from mgfarm.vector import MobileVectorEnv
from tests.integration import test_vector
from tests.integration.test_vector import HOME, TASK_ID, FarmMaker, answer

vector_farm = test_vector.farm  # its `farm` fixture (a farm of sims with the vectest tasks), used here too

ROOT = Path(__file__).resolve().parents[2]
# Fields of a recorded event that differ from run to run, or with the replica an episode ran on.
VARYING = {"time", "timings", "seconds", "replica", "serial"}


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, exited but not yet reaped by its parent, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids: list[int], seconds: float = 15.0) -> list[int]:
    """The pids still running after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def pool_of(venv: MobileVectorEnv) -> ProcessEnvPool:
    assert isinstance(venv.pool, ProcessEnvPool)
    return venv.pool


def test_worker_processes_run_episodes_with_next_step_autoreset(vector_farm: FarmMaker) -> None:
    vector_farm("procrun", 2)
    venv = gymnasium.make_vec(f"mgfarm/{TASK_ID}", num_envs=2, farm="procrun", wait_seconds=0.0, processes=2)
    assert isinstance(venv, MobileVectorEnv)
    workers = pool_of(venv).pids()
    try:
        assert len(workers) == 2 and os.getpid() not in workers
        assert venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        obs, infos = venv.reset(seed=1)
        assert venv.observation_space.contains(obs)
        assert obs["screenshot"].shape == (2, 2400, 1080, 3) and obs["screenshot"].any()
        assert sorted(infos["replica"]) == [0, 1] and infos["_replica"].all()
        wanted = list(infos["params"]["n"])
        obs, rewards, terminated, truncated, infos = venv.step(
            [answer(wanted[0]), answer(int(wanted[1]) + 1)]
        )
        assert list(rewards) == [1.0, 0.0] and terminated.all() and not truncated.any()
        assert list(infos["judge"]["success"]) == [True, False]
        obs, rewards, terminated, truncated, infos = venv.step([HOME, HOME])
        assert infos["_autoreset"].all() and not rewards.any() and not (terminated | truncated).any()
        wanted = list(infos["params"]["n"])
        obs, rewards, terminated, _, _ = venv.step([answer(n) for n in wanted])
        assert list(rewards) == [1.0, 1.0] and terminated.all()
        frames = venv.render()
        assert frames is not None and data_equivalence(np.stack(frames), obs["screenshot"])
    finally:
        venv.close()
    assert wait_gone(workers) == []


def test_worker_processes_give_the_seeds_and_screens_of_one_process(vector_farm: FarmMaker) -> None:
    vector_farm("procseed", 2)
    local = mgfarm.make_vec(2, TASK_ID, farm="procseed", wait_seconds=0.0)
    try:
        expected_obs, expected = local.reset(seed=5)
    finally:
        local.close()
    venv = mgfarm.make_vec(2, TASK_ID, farm="procseed", wait_seconds=0.0, processes=2)
    try:
        first_obs, first = venv.reset(seed=5)
        assert list(first["seed"]) == list(expected["seed"])
        assert list(first["params"]["n"]) == list(expected["params"]["n"])
        assert data_equivalence(first_obs["screenshot"], expected_obs["screenshot"])
        assert data_equivalence(first_obs["ui_elements"], expected_obs["ui_elements"])
        # copy=True (the default): a batch the trainer holds stays as it was after later steps
        kept = first_obs["screenshot"]
        before = kept.copy()
        venv.step([{"action_type": "open_app", "app_name": "Contacts"}] * 2)
        assert data_equivalence(kept, before)
    finally:
        venv.close()


def test_worker_processes_pass_gymnasiums_statistics_wrapper(vector_farm: FarmMaker) -> None:
    vector_farm("procsample", 2)
    base = mgfarm.make_vec(2, TASK_ID, farm="procsample", wait_seconds=0.0, processes=2, copy=False)
    venv = RecordEpisodeStatistics(base)
    try:
        venv.action_space.seed(0)
        venv.reset(seed=0)
        ended: list[int] = []
        for step in range(1, 7):  # random text is no valid action: the 4-step budget truncates
            obs, rewards, terminated, truncated, infos = venv.step(venv.action_space.sample())
            assert venv.observation_space.contains(obs) and rewards.dtype == np.float64
            assert not obs["screenshot"].flags.writeable  # copy=False: a view of the shared batch
            assert not rewards.any() and not terminated.any()
            assert list(truncated) == [step == 4] * 2
            assert infos["_autoreset"].all() if step == 5 else ("autoreset" not in infos)
            if "episode" in infos:
                ended += [int(n) for n in infos["episode"]["l"][infos["_episode"]]]
        assert ended == [4, 4]
    finally:
        venv.close()


def record_two_episodes(processes: int, run: Path) -> None:
    """Two envs, seed 3: one step home, then one right and one wrong answer; recorded into `run`."""
    venv = mgfarm.make_vec(2, TASK_ID, farm="procrec", wait_seconds=0.0, processes=processes, record=run)
    try:
        _, infos = venv.reset(seed=3)
        wanted = list(infos["params"]["n"])
        venv.step([HOME, HOME])
        venv.step([answer(wanted[0]), answer(int(wanted[1]) + 1)])
    finally:
        venv.close()


def recorded(run: Path) -> dict[tuple[str, int], tuple[str, list[dict[str, Any]], dict[str, np.ndarray]]]:
    """Each episode of `run` by (task id, seed): its folder name, events (without the times and the
    replica it ran on) and screenshots."""
    episodes = {}
    for folder in sorted(p for p in run.iterdir() if p.is_dir()):
        events = read_episode(folder)
        kept = [{k: v for k, v in e.items() if k not in VARYING} for e in events]
        screens = {
            e["screenshot"]: np.asarray(Image.open(folder / e["screenshot"]))
            for e in events
            if e.get("screenshot")
        }
        episodes[(events[0]["task_id"], events[0]["seed"])] = (folder.name, kept, screens)
    return episodes


def test_worker_processes_record_the_episodes_one_process_records(
    vector_farm: FarmMaker, tmp_path: Path
) -> None:
    vector_farm("procrec", 2)
    record_two_episodes(0, tmp_path / "one")
    record_two_episodes(2, tmp_path / "two")
    one, two = recorded(tmp_path / "one"), recorded(tmp_path / "two")
    assert sorted(name[:6] for name, _, _ in two.values()) == ["00001-", "00002-"]  # one sequence
    assert one.keys() == two.keys() and len(one) == 2
    for key, (_, events, screens) in one.items():
        _, other_events, other_screens = two[key]
        assert [e["event"] for e in events] == ["reset", "step", "step", "end"]
        assert other_events == events  # the same actions, rewards, verdicts and screenshot names
        assert screens.keys() == other_screens.keys() and len(screens) == 2
        for name, pixels in screens.items():
            assert data_equivalence(other_screens[name], pixels), name
    assert sorted(e[1][-1]["success"] for e in two.values()) == [False, True]


def test_a_killed_worker_is_one_clear_error_and_frees_its_replica(vector_farm: FarmMaker) -> None:
    vector_farm("prockill", 2)
    venv = mgfarm.make_vec(2, TASK_ID, farm="prockill", wait_seconds=0.0, processes=2)
    workers = pool_of(venv).pids()
    try:
        venv.reset(seed=3)
        os.kill(workers[1], signal.SIGKILL)
        with pytest.raises(
            WorkerFailed, match=r"env worker 1 \(pid \d+, envs 1-1\) died during a step \(signal 9\)"
        ):
            venv.step([HOME, HOME])
        with pytest.raises(WorkerFailed, match="env worker 1"):  # the same error until the env is closed
            venv.step([HOME, HOME])
    finally:
        venv.close()
    assert wait_gone(workers) == []
    again = mgfarm.make_vec(2, TASK_ID, farm="prockill", wait_seconds=0.0, lease_timeout=5.0)
    try:  # both replicas are free again: the killed worker's lease went with it
        assert sorted(again.reset(seed=0)[1]["replica"]) == [0, 1]
    finally:
        again.close()


def test_workers_exit_when_the_trainer_is_killed(vector_farm: FarmMaker, tmp_path: Path) -> None:
    vector_farm("proctrainer", 2)
    script = tmp_path / "trainer.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, os, signal, sys
            import mgfarm
            venv = mgfarm.make_vec(2, {TASK_ID!r}, farm="proctrainer", wait_seconds=0.0, processes=2)
            venv.reset(seed=0)
            print(json.dumps(venv.pool.pids()), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)  # no close(), no atexit: a crash
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    trainer = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert trainer.returncode == -signal.SIGKILL, trainer.stderr
    workers = json.loads(trainer.stdout.splitlines()[-1])
    assert len(workers) == 2
    assert wait_gone(workers) == []


def test_an_unknown_task_is_refused_and_leaves_no_worker_behind(vector_farm: FarmMaker) -> None:
    vector_farm("procbad", 2)
    before = set(children())
    with pytest.raises(MgfarmError, match=r"^Unknown task 'no\.such\.task'"):
        mgfarm.make_vec(2, "no.such.task", farm="procbad", wait_seconds=0.0, processes=2)
    assert set(children()) == before


def children() -> list[int]:
    """This process's child processes (the test's sim devices and adb server among them)."""
    found: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found
