"""`MobileVectorEnv` over `RayEnvPool`: the same Gymnasium vector API with envs placed by Ray.

A one-node local cluster offering 2 replicas keeps this cheap; `test_ray.py` covers placement over
several nodes and lost nodes.
"""

from __future__ import annotations

import logging
import os
import random
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'mgfarm[ray]')")

from ray.cluster_utils import Cluster  # noqa: E402

from mgfarm.errors import MgfarmError  # noqa: E402
from mgfarm.ray import cluster  # noqa: E402
from mgfarm.ray.resources import REPLICA_RESOURCE  # noqa: E402
from mgfarm.vector import MobileVectorEnv, make_vec  # noqa: E402
from tests.integration.test_ray import free_port  # noqa: E402

REPLICAS = 2
TASK = """\
- id: rayvec.say_number
  apps: [settings]
  goal: "Answer with the number {n}."
  difficulty: L1
  params:
    n: {choice: ["3", "4", "5", "6"]}
  answer: {n: integer}
  judge:
    all:
      - answer.equals: {field: n, value: "{n}"}
  max_steps: 3
  oracle:
    - answer: {n: "{n}"}
"""


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Ray node offering 2 replicas, with a farm of 2 simulated devices on it."""
    root: Path = tmp_path_factory.mktemp("rayvec")
    (root / "tasks").mkdir()
    (root / "tasks" / "rayvec.yaml").write_text(textwrap.dedent(TASK))
    saved = {k: os.environ.get(k) for k in ("MGFARM_HOME", "MGFARM_TASKS")}
    # Raylets, and so every actor, inherit the environment of the process that starts them.
    os.environ["MGFARM_HOME"] = str(root / "home")
    os.environ["MGFARM_TASKS"] = str(root / "tasks")
    head = {
        "node_ip_address": "127.0.0.1",
        "num_cpus": 1,
        "resources": {REPLICA_RESOURCE: REPLICAS},
        "object_store_memory": 80 * 1024 * 1024,
        "include_dashboard": False,
    }
    local = Cluster(initialize_head=True, head_node_args=head)
    try:
        ray.init(
            address=local.address, namespace="mgfarm", log_to_driver=False, logging_level=logging.WARNING
        )
        options = {"adb_port": free_port(), "first_port": random.randrange(30000, 50000, 2)}
        cluster.up(local.address, REPLICAS, "process", options)
        yield local.address
    finally:
        try:
            if cluster.farm_actors():
                cluster.down(local.address)
        finally:
            ray.shutdown()
            local.shutdown()
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def test_vector_env_over_ray_runs_episodes_with_next_step_autoreset(address: str) -> None:
    venv = make_vec(REPLICAS, "rayvec.say_number", ray_address=address, wait_seconds=0.0)
    try:
        assert isinstance(venv, MobileVectorEnv) and venv.num_envs == REPLICAS
        obs, infos = venv.reset(seed=3)
        assert venv.observation_space.contains(obs) and obs["screenshot"].shape[0] == REPLICAS
        assert infos["_node_id"].all() and infos["_params"].all()
        wanted = [str(n) for n in infos["params"]["n"]]
        obs, rewards, terminated, truncated, infos = venv.step(
            [{"action_type": "answer", "text": f"It is {n}."} for n in wanted]
        )
        assert list(rewards) == [1.0] * REPLICAS and terminated.all() and not truncated.any()
        obs, rewards, terminated, truncated, infos = venv.step([{"action_type": "navigate_home"}] * REPLICAS)
        assert infos["_autoreset"].all() and not rewards.any() and not (terminated | truncated).any()
        assert venv.observation_space.contains(obs)
        again = venv.reset(seed=3)[1]
        assert [str(n) for n in again["params"]["n"]] == wanted  # a seeded reset repeats the episodes
        assert isinstance(obs["screenshot"], np.ndarray)
    finally:
        venv.close()


def test_make_vec_refuses_both_a_farm_and_a_ray_address(address: str) -> None:
    with pytest.raises(MgfarmError, match="either farm="):
        make_vec(1, "rayvec.say_number", farm="default", ray_address=address)
