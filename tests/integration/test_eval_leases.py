"""eval runs on leased replicas (never one an EnvPool drives) and gives agents that ask the screenshot."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from mgfarm.catalog import load_catalog
from mgfarm.env.evaluate import run_eval
from mgfarm.env.lease import LeaseError
from mgfarm.env.pool import EnvPool
from mgfarm.env.runner import lease_envs, run_jobs
from mgfarm.farm.state import FarmState
from mgfarm.tasks.agents import DONE
from mgfarm.tasks.jobs import Job
from tests.support import private_farm


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FarmState]:
    with private_farm(tmp_path_factory.mktemp("home"), 2) as state:
        yield state


def _serial(pool: EnvPool) -> str:
    return str(pool.envs[0].unwrapped.device.serial)  # type: ignore[attr-defined]


@pytest.mark.timeout(600)
def test_eval_and_env_pool_never_drive_the_same_replica(farm: FarmState) -> None:
    pool = EnvPool(farm.name, size=1, tasks=["settings.wifi_off"], screenshot=False)
    try:
        held = _serial(pool)
        stop = threading.Event()
        pool_steps = 0

        def train() -> None:  # the pool keeps stepping its replica while the eval runs
            nonlocal pool_steps
            pool.reset_all()
            while not stop.is_set():
                pool.step_all([{"action_type": "wait"}])
                pool_steps += 1

        trainer = threading.Thread(target=train, daemon=True)
        trainer.start()
        jobs = [Job(load_catalog().get("settings.wifi_off"), seed, "oracle", "oracle") for seed in range(3)]
        results = run_jobs(jobs, farm)  # asks for every ready replica, gets the free one
        stop.set()
        trainer.join(timeout=120)
        assert pool_steps > 0
        assert all(r.success for r in results), [r.error for r in results]
        assert {r.serial for r in results} and held not in {r.serial for r in results}
        # With both replicas taken, an eval waits for one and then says that all are leased.
        other = EnvPool(farm.name, size=1, tasks=["settings.wifi_off"], screenshot=False)
        try:
            with pytest.raises(LeaseError, match="all leased"):
                lease_envs(farm, 1, wait=0.5)
        finally:
            other.close()
    finally:
        pool.close()


class ScreenAgent:
    """Looks at the screen once, then stops; remembers what it was given."""

    wants_screenshot = True
    seen: list[Any] = []  # class-level: `--agent module:Class` builds a new instance per episode

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        ScreenAgent.seen.append(observation.get("screenshot"))
        return DONE


class BlindAgent(ScreenAgent):
    wants_screenshot = False


def test_an_agent_that_asks_for_screenshots_gets_them_in_eval(farm: FarmState) -> None:
    spec = f"{__name__}:ScreenAgent"
    run_eval(
        load_catalog(),
        ["settings.wifi_off"],
        "all",
        spec,
        [0, 1],
        farm.name,
        None,
        None,
        record=False,
        show=False,
    )
    assert len(ScreenAgent.seen) == 2
    for shot in ScreenAgent.seen:
        assert isinstance(shot, Image.Image) and shot.width > 100 and shot.height > 100
    ScreenAgent.seen.clear()
    run_eval(
        load_catalog(),
        ["settings.wifi_off"],
        "all",
        f"{__name__}:BlindAgent",
        [0],
        farm.name,
        None,
        None,
        False,
        False,
    )
    assert ScreenAgent.seen == [None]  # not recording and not asked: no screenshot taken
