"""`MobileEnv` logic on an in-process simulated device: exact resets, the judge's reward, the budget.

The same device serves every test of the module (each reset loads the golden snapshot), so a test
costs what its episodes cost; tests/integration/test_env.py covers the farm, leases and wrappers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mgfarm.device import Device
from mgfarm.env.env import MobileEnv
from tests.integration.envfarm import PROBE_DB, TASK_ID, install_tasks


@pytest.fixture
def env(golden_device: Device, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MobileEnv]:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "home"))  # no farm of the user's is looked at
    install_tasks(tmp_path, monkeypatch)
    env = MobileEnv(TASK_ID, seed=3, device=golden_device, wait_seconds=0.0)
    yield env
    env.close()


def test_reset_restores_the_snapshot_exactly_and_a_done_task_earns_the_reward(env: MobileEnv) -> None:
    _, info = env.reset(seed=1)
    dev = env.device
    assert dev.settings_get("global", "wifi_on") == "1"  # the task's setup ran
    dev.settings_put("system", "screen_brightness", 200)
    dev.sqlite(PROBE_DB, "UPDATE t SET v = 'changed' WHERE k = 'row'")
    dev.sqlite(PROBE_DB, "INSERT INTO t VALUES ('extra', 'x')")
    _, info = env.reset(seed=2)
    assert dev.settings_get("system", "screen_brightness") == "77"
    assert dev.sqlite(PROBE_DB, "SELECT k, v FROM t ORDER BY k") == [["row", "orig"]]
    dev.settings_put("global", "wifi_on", 0)  # the task's work, as an agent's actions would do it
    dev.shell(f"echo done > /sdcard/Download/{info['params']['name']}.txt")
    complete = {"action_type": "status", "goal_status": "complete"}
    _, reward, terminated, truncated, step_info = env.step(complete)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert step_info["judge"]["success"] is True


def test_the_step_budget_truncates_an_unfinished_task_with_no_reward(env: MobileEnv) -> None:
    env.reset(seed=6)
    truncated, steps = False, 0
    while not truncated:
        _, reward, terminated, truncated, info = env.step({"action_type": "navigate_back"})
        steps += 1
        assert not terminated
    assert steps == 6 and reward == 0.0 and info["judge"]["success"] is False


def test_screenshots_are_read_only_and_a_new_screen_gives_new_pixels(env: MobileEnv) -> None:
    """Observations hand out the decoded frame without a copy: writing to it fails loudly (other envs
    may show the same frame), and a copy is the caller's own. Two calls in a row never share data
    (gymnasium's env checker requires it): the same screen again comes as a copy."""
    obs, _ = env.reset(seed=1)
    shot = obs["screenshot"]
    assert shot.shape == (2400, 1080, 3) and not shot.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        shot[0, 0] = 0
    mine = np.array(shot)
    mine[0, 0] = 0  # a copy is writable
    same, *_ = env.step({"action_type": "wait"})  # nothing moved: still no data shared with the last call
    assert not np.shares_memory(same["screenshot"], shot) and not same["screenshot"].flags.writeable
    assert same["ui_elements"] is not obs["ui_elements"]
    env.device.shell("am start -a android.settings.SETTINGS")
    moved, *_ = env.step({"action_type": "wait"})
    assert not np.array_equal(moved["screenshot"], shot) and not moved["screenshot"].flags.writeable
