"""`mgfarm.EnvPool` on simulated devices: parallel episodes, autoreset, replica death and replacement."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest

import mgfarm
from mgfarm.adb.errors import ConsoleError
from mgfarm.device import Device
from mgfarm.env.lease import LeaseError
from mgfarm.errors import MgfarmError
from mgfarm.farm.state import FarmState, Replica
from tests.integration.conftest import AdbServer, SimHandle
from tests.integration.envfarm import POOL_TASK_ID, install_tasks, make_farm

SCRIPT = [
    {"action_type": "navigate_home"},
    {"action_type": "open_app", "app_name": "Settings"},
    {"action_type": "answer", "text": "Done."},
]


def kill_replica(farm: FarmState, index: int) -> Replica:
    """Stops replica `index` through its emulator console (`kill`), as a crashed emulator; returns it."""
    rep = farm.replica(index)
    device = Device(rep.serial, adb_port=farm.adb_server_port, console_token=rep.console_token)
    with contextlib.suppress(ConsoleError):  # the device may drop the console before it answers
        device.console.command("kill")
    return rep


def test_eight_replicas_run_eight_scripted_episodes_in_parallel(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_tasks(tmp_path, monkeypatch)
    make_farm("pooltest", adb_server, sim_devices(8), tmp_path, monkeypatch)
    with mgfarm.EnvPool(farm="pooltest", size=8, tasks=[POOL_TASK_ID], seed=0, wait_seconds=0.0) as pool:
        obs, infos = pool.reset_all()
        assert len(obs) == 8 and all(o is not None for o in obs)
        assert sorted(i["replica"] for i in infos) == list(range(8))
        for action in SCRIPT:
            obs, rewards, terminated, truncated, infos = pool.step_all([action] * 8)
        assert rewards == [1.0] * 8 and terminated == [True] * 8 and truncated == [False] * 8
        assert all(i["judge"]["success"] for i in infos)
        # next step_all starts new episodes (autoreset), whatever the actions say
        obs, rewards, terminated, _, infos = pool.step_all([{"action_type": "navigate_back"}] * 8)
        assert all(i.get("autoreset") for i in infos) and rewards == [0.0] * 8
        summary = pool.stats.summary()
        assert summary["steps"] == 24 and summary["episodes"] == 16 and summary["failed_episodes"] == 0
        assert summary["steps_per_s"] > 0 and summary["step_p50_ms"] > 0
        with pytest.raises(MgfarmError, match="8 actions"):
            pool.step_all([{"action_type": "wait"}])


def test_a_replica_dying_mid_episode_fails_it_and_is_replaced(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_tasks(tmp_path, monkeypatch)
    farm = make_farm("pooldeath", adb_server, sim_devices(3), tmp_path, monkeypatch)
    with mgfarm.EnvPool(farm="pooldeath", size=2, tasks=[POOL_TASK_ID], seed=1, wait_seconds=0.0) as pool:
        _, infos = pool.reset_all()
        victim = infos[0]["replica"]
        rep = kill_replica(farm, victim)
        _, rewards, terminated, truncated, infos = pool.step_all([{"action_type": "navigate_home"}] * 2)
        assert truncated[0] and not terminated[0] and rewards[0] == 0.0
        assert rep.serial in infos[0]["failed"]
        assert infos[1].get("failed") is None
        _, _, _, _, infos = pool.step_all([{"action_type": "navigate_home"}] * 2)
        assert infos[0]["autoreset"] and infos[0]["replica"] not in (victim, None)
        assert pool.stats.summary()["failed_episodes"] == 1


def test_reset_moves_off_a_replica_that_died_between_episodes(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_tasks(tmp_path, monkeypatch)
    farm = make_farm("resetdeath", adb_server, sim_devices(2), tmp_path, monkeypatch)
    env = mgfarm.make(POOL_TASK_ID, farm="resetdeath", replica=0, wait_seconds=0.0)
    try:
        assert env.reset(seed=0)[1]["replica"] == 0
        kill_replica(farm, 0)
        _, info = env.reset(seed=1)
        assert info["replica"] == 1 and env.device.serial == farm.replica(1).serial
    finally:
        env.close()


def test_make_skips_a_replica_that_does_not_answer(
    adb_server: AdbServer,
    sim_devices: Callable[[int], list[SimHandle]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_tasks(tmp_path, monkeypatch)
    farm = make_farm("makedeath", adb_server, sim_devices(2), tmp_path, monkeypatch)
    kill_replica(farm, 0)
    env = mgfarm.make(POOL_TASK_ID, farm="makedeath", wait_seconds=0.0, lease_timeout=0.0)
    try:
        assert env.replica_index == 1
        with pytest.raises(LeaseError):  # replica 0 is dead, replica 1 is taken
            mgfarm.make(POOL_TASK_ID, farm="makedeath", wait_seconds=0.0, lease_timeout=0.0)
    finally:
        env.close()
