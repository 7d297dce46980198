"""`MobileVectorEnv` over an `EnvPool` of small in-process envs: batching, next-step autoreset, infos.

The envs here are tiny gymnasium envs with the mobile env's spaces (a 4x3 screen), so the pool's
threads, seeds and autoreset and the vector env's batching run for real without a device.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.env.pool import EnvPool
from mgfarm.env.spaces import action_space, observation_space
from mgfarm.errors import MgfarmError
from mgfarm.vector import MobileVectorEnv

WIDTH, HEIGHT = 4, 3
HOME = {"action_type": "navigate_home"}


class ToyEnv(gymnasium.Env[dict[str, Any], Any]):
    """Episodes of `length` steps on a 4x3 screen; the first `fail_resets` resets find no replica."""

    def __init__(self, length: int = 2, fail_resets: int = 0) -> None:
        self.observation_space = observation_space(WIDTH, HEIGHT)
        self.action_space = action_space()
        self.length = length
        self.fail_resets = fail_resets
        self.seed_used: int | None = None
        self.t = 0
        self.actions: list[Any] = []
        self.closed = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if self.fail_resets:
            self.fail_resets -= 1
            raise MgfarmError("no replica is ready")
        self.seed_used, self.t = seed, 0
        return self._obs(), {"seed": seed, "params": {"n": (seed or 0) % 7}, "goal": self._goal()}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        self.actions.append(action)
        self.t += 1
        done = self.t >= self.length
        return self._obs(), float(done), done, False, {"step": self.t, "error": None}

    def close(self) -> None:
        self.closed = True

    def _goal(self) -> str:
        return f"episode seeded {self.seed_used}"

    def _obs(self) -> dict[str, Any]:
        shade = ((self.seed_used or 0) + self.t) % 256
        element = {
            "index": 0,
            **{name: "" for name in ("text", "content_desc", "resource_id", "class_name", "package")},
            "text": f"t={self.t}",
            "bounds": np.array([0, 0, WIDTH, HEIGHT], dtype=np.int32),
            **{name: 0 for name in ("clickable", "long_clickable", "editable", "scrollable", "checkable")},
            **{name: 0 for name in ("checked", "focused", "enabled", "selected")},
        }
        return {
            "screenshot": np.full((HEIGHT, WIDTH, 3), shade, dtype=np.uint8),
            "ui_elements": (element,),
            "goal": self._goal(),
        }


@pytest.fixture
def toys() -> list[ToyEnv]:
    return [ToyEnv(length=2), ToyEnv(length=3), ToyEnv(length=2)]


@pytest.fixture
def venv(toys: list[ToyEnv]) -> Iterator[MobileVectorEnv]:
    env = MobileVectorEnv(EnvPool.of(toys, seed=7))
    yield env
    env.close()


def test_spaces_are_the_single_env_spaces_batched(venv: MobileVectorEnv) -> None:
    assert venv.num_envs == 3 and venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert venv.single_observation_space == observation_space(WIDTH, HEIGHT)
    assert venv.single_action_space == action_space()
    assert isinstance(venv.observation_space, gymnasium.spaces.Dict)
    assert venv.observation_space["screenshot"].shape == (3, HEIGHT, WIDTH, 3)
    assert len(venv.action_space.sample()) == 3


def test_reset_batches_observations_and_infos_with_masks(venv: MobileVectorEnv, toys: list[ToyEnv]) -> None:
    obs, infos = venv.reset(seed=11)
    assert venv.observation_space.contains(obs)
    assert [o.seed_used for o in toys] == list(infos["seed"]) and infos["_seed"].all()
    assert list(infos["params"]["n"]) == [s % 7 for s in infos["seed"]]
    assert list(obs["goal"]) == [f"episode seeded {s}" for s in infos["seed"]]
    assert [int(o.seed_used or 0) % 256 for o in toys] == list(obs["screenshot"][:, 0, 0, 0])
    assert len(set(infos["seed"])) == 3  # every env gets its own episode seed


def test_reset_with_a_seed_repeats_the_run(venv: MobileVectorEnv) -> None:
    first = venv.reset(seed=3)
    venv.step([HOME] * 3)
    again = venv.reset(seed=3)
    assert data_equivalence(first, again)
    assert not data_equivalence(first[1]["seed"], venv.reset(seed=4)[1]["seed"])


def test_next_step_autoreset_ignores_the_action_and_returns_the_reset_observation(
    venv: MobileVectorEnv, toys: list[ToyEnv]
) -> None:
    venv.reset(seed=0)
    venv.step([HOME] * 3)
    obs, rewards, terminated, truncated, infos = venv.step([HOME] * 3)
    assert list(terminated) == [True, False, True] and list(rewards) == [1.0, 0.0, 1.0]
    seeds_before = [t.seed_used for t in toys]
    obs, rewards, terminated, truncated, infos = venv.step([{"action_type": "wait"}] * 3)
    # envs 0 and 2 were reset (their action ignored); env 1 stepped to the end of its episode
    assert [len(t.actions) for t in toys] == [2, 3, 2]
    assert list(infos["_autoreset"]) == [True, False, True] and list(infos["_step"]) == [False, True, False]
    assert list(rewards) == [0.0, 1.0, 0.0] and list(terminated) == [False, True, False]
    assert not truncated.any()
    assert [t.seed_used != s for t, s in zip(toys, seeds_before, strict=True)] == [True, False, True]
    assert [obs["ui_elements"][i][0]["text"] for i in range(3)] == ["t=0", "t=3", "t=0"]


def test_an_episode_that_cannot_start_is_truncated_and_never_none(toys: list[ToyEnv]) -> None:
    toys[1].fail_resets = 2
    with MobileVectorEnv(EnvPool.of(toys, seed=1)) as venv:
        obs, infos = venv.reset()
        assert venv.observation_space.contains(obs)
        assert obs["goal"][1] == "" and not obs["screenshot"][1].any()  # a blank screen, not None
        assert list(infos["_failed"]) == [False, True, False]
        _, _, _, truncated, infos = venv.step([HOME] * 3)
        assert list(truncated) == [False, True, False] and "no replica" in infos["failed"][1]
        obs, _, _, truncated, infos = venv.step([HOME] * 3)  # third try starts the episode
        assert not truncated.any() and infos["_autoreset"][1] and "failed" not in infos
        assert obs["goal"][1].startswith("episode seeded")


def test_actions_must_be_one_per_env(venv: MobileVectorEnv) -> None:
    venv.reset(seed=0)
    with pytest.raises(MgfarmError, match="sequence of 3 actions"):
        venv.step([HOME])
    with pytest.raises(MgfarmError, match="sequence of 3 actions"):
        venv.step(HOME)
    with pytest.raises(MgfarmError, match="reset\\(options="):
        venv.reset(options={"task_id": "x"})


def test_close_closes_every_env(venv: MobileVectorEnv, toys: list[ToyEnv]) -> None:
    venv.close()
    assert all(t.closed for t in toys) and venv.closed


def test_gymnasium_vector_wrappers_see_whole_episodes(toys: list[ToyEnv]) -> None:
    venv = RecordEpisodeStatistics(MobileVectorEnv(EnvPool.of(toys, seed=2)))
    venv.reset(seed=2)
    lengths: list[int] = []
    for _ in range(7):  # lengths 2, 3, 2 plus a reset step after each: 2 + 1 + 2 + 1 + 1, 3 + 1 + 3
        _, _, _, _, infos = venv.step([HOME] * 3)
        if "episode" in infos:
            lengths += [
                int(n) for n, done in zip(infos["episode"]["l"], infos["_episode"], strict=True) if done
            ]
    assert sorted(lengths) == [2, 2, 2, 2, 3, 3]
    listed = DictInfoToList(venv)
    _, infos_list = listed.reset(seed=5)
    assert isinstance(infos_list, list) and len(infos_list) == 3 and "seed" in infos_list[0]
    venv.close()


@settings(max_examples=25, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    failing=st.lists(st.integers(0, 2), min_size=4, max_size=4),
    steps=st.integers(1, 12),
)
def test_matches_a_reference_next_step_autoreset(lengths: list[int], failing: list[int], steps: int) -> None:
    """Each env's rewards and flags equal those of a plain loop over one env with next-step autoreset."""
    envs = [ToyEnv(n, fail_resets=f) for n, f in zip(lengths, failing, strict=False)]
    with MobileVectorEnv(EnvPool.of(envs, seed=0)) as venv:
        obs, _ = venv.reset(seed=9)
        got = []
        for _ in range(steps):
            obs, rewards, terminated, truncated, _ = venv.step([HOME] * len(envs))
            assert venv.observation_space.contains(obs)
            got.append((list(rewards), list(terminated), list(truncated)))
    for i, (length, fails) in enumerate(zip(lengths, failing, strict=False)):
        # reference: the reset in reset() and each autoreset may fail (-> truncated), else step t
        t, pending_reset = 0, fails > 0
        fails_left = fails - 1 if fails else 0
        for k in range(steps):
            if pending_reset:
                failed = fails_left > 0
                fails_left -= 1 if failed else 0
                want = (0.0, False, failed)
                pending_reset, t = failed, 0
            else:
                t += 1
                want = (float(t >= length), t >= length, False)
                pending_reset = t >= length
            assert (got[k][0][i], got[k][1][i], got[k][2][i]) == want, (i, k)


@pytest.mark.parametrize("order", ["mgfarm first", "gymnasium first"])
def test_import_mgfarm_registers_every_task_id_in_either_import_order(order: str) -> None:
    first, second = ("mgfarm", "gymnasium") if order == "mgfarm first" else ("gymnasium", "mgfarm")
    script = (
        f"import sys, {first}\n"
        "lazy = 'gymnasium' not in sys.modules\n"
        f"import {second}, json\n"
        "from gymnasium.envs.registration import registry\n"
        "print(json.dumps([lazy, sorted(k for k in registry if k.startswith('mgfarm/'))]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MGFARM_TASKS"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    lazy, ids = json.loads(out.stdout)
    assert lazy == (order == "mgfarm first")  # `import mgfarm` alone does not load gymnasium
    from mgfarm.catalog import TASKS_DIR, load_catalog

    catalog = sorted(load_catalog([TASKS_DIR]).templates)
    assert ids == sorted(["mgfarm/Task-v0", *(f"mgfarm/{t}" for t in catalog)])
    spec = gymnasium.spec(f"mgfarm/{catalog[0]}")
    assert spec.kwargs == {"task_id": catalog[0]} and spec.vector_entry_point == "mgfarm.vector:make_vec"
