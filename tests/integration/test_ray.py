"""Ray: a local two-node cluster with 4 replicas per node, farms on both, episodes across both.

One cluster serves the whole module to keep the cost low (two raylets, 80 MB object stores).
"""

from __future__ import annotations

import json
import logging
import os
import random
import socket
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from typer.testing import CliRunner

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'mgfarm[ray]')")

from ray.cluster_utils import Cluster  # noqa: E402

from mgfarm.adb import server as adbserver  # noqa: E402
from mgfarm.cli import app  # noqa: E402
from mgfarm.errors import MgfarmError  # noqa: E402
from mgfarm.farm import api  # noqa: E402
from mgfarm.farm.state import list_farms  # noqa: E402
from mgfarm.ray import RayEnvPool, cluster  # noqa: E402
from mgfarm.ray.resources import NAMESPACE, REPLICA_RESOURCE, farm_actor_name, farm_name  # noqa: E402

PER_NODE = 4
OBJECT_STORE = 80 * 1024 * 1024
TASK = """\
- id: ray.wifi_off
  apps: [settings]
  goal: "Turn Wi-Fi off."
  difficulty: L1
  setup:
    - settings: {global: {wifi_on: 1}}
  judge:
    all:
      - settings.equals: {namespace: global, key: wifi_on, value: 0}
  outcome: [{setting: {key: global.wifi_on, value: 0}}]
  oracle:
    - open_app: Settings
"""
HOME: dict[str, Any] = {"action_type": "navigate_home"}
DONE: dict[str, Any] = {"action_type": "status", "goal_status": "complete"}


@dataclass
class RayCluster:
    address: str
    node_ids: list[str]
    local: Cluster
    worker_node: Any  # the node added after the head: the one a test may take away


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayCluster]:
    """Two Ray nodes on this machine, each offering 4 mgfarm replicas; farms share one tmp home."""
    root = tmp_path_factory.mktemp("ray")
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / "ray.yaml").write_text(textwrap.dedent(TASK))
    saved = {k: os.environ.get(k) for k in ("MGFARM_HOME", "MGFARM_TASKS")}
    # Raylets, and so every actor, inherit the environment of the process that starts them.
    os.environ["MGFARM_HOME"] = str(root / "home")
    os.environ["MGFARM_TASKS"] = str(tasks)
    node_args: dict[str, Any] = {
        # Keep every Ray service on loopback: the tests must not bind the host's network address.
        "node_ip_address": "127.0.0.1",
        "num_cpus": 1,
        "resources": {REPLICA_RESOURCE: PER_NODE},
        "object_store_memory": OBJECT_STORE,
    }
    local = Cluster(initialize_head=True, head_node_args={**node_args, "include_dashboard": False})
    worker_node = local.add_node(**node_args)
    local.wait_for_nodes()
    try:
        ray.init(
            address=local.address, namespace="mgfarm", log_to_driver=False, logging_level=logging.WARNING
        )
        nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
        yield RayCluster(address=local.address, node_ids=nodes, local=local, worker_node=worker_node)
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


@pytest.fixture
def adb_port() -> int:
    """A fresh port for the farms' shared adb server (Ray's own processes take ports all the time)."""
    return free_port()


@pytest.fixture
def farms(ray_cluster: RayCluster, adb_port: int) -> Iterator[list[dict[str, Any]]]:
    # Ports away from 5554.. where other farms on this machine start.
    first_port = random.randrange(30000, 50000, 2)
    options = {"adb_port": adb_port, "first_port": first_port}
    statuses = cluster.up(ray_cluster.address, PER_NODE, "process", options)
    try:
        yield statuses
    finally:
        if cluster.farm_actors():
            cluster.down(ray_cluster.address)


def test_up_refuses_more_replicas_than_a_node_offers(ray_cluster: RayCluster) -> None:
    with pytest.raises(MgfarmError, match=REPLICA_RESOURCE):
        cluster.up(ray_cluster.address, PER_NODE + 1)
    # Emulator farms go only to nodes that say they have KVM; these two do not.
    with pytest.raises(MgfarmError, match="mgfarm_kvm"):
        cluster.up(ray_cluster.address, 1, kvm=True)
    assert cluster.farm_actors() == []
    with pytest.raises(MgfarmError, match="mgfarm up --ray"):
        RayEnvPool(size=1, tasks=["ray.wifi_off"], address=ray_cluster.address)


def _action(steps_done: int) -> dict[str, Any]:
    # Four actions an episode: long enough to stop a farm while every episode is mid-way.
    return HOME if steps_done < 3 else DONE


def _farm_actor_of(node_id: str) -> Any:
    return next(a for a in cluster.farm_actors() if ray.get(a.status.remote())["node_id"] == node_id)


def _run_episodes(pool: RayEnvPool, total: int, mid_way: Callable[[], None]) -> list[dict[str, Any]]:
    """Step until `total` episodes ended; `mid_way()` runs once, when every env has taken one step."""
    ended: list[dict[str, Any]] = []
    _, infos = pool.reset_all()
    assert not any(i.get("failed") for i in infos)
    steps = [0] * len(pool)
    called = False
    for _ in range(40):
        if steps == [1] * len(pool) and not called:
            mid_way()
            called = True
        _, _, terminated, truncated, infos = pool.step_all([_action(n) for n in steps])
        for i, info in enumerate(infos):
            if info.get("autoreset"):  # the env was reset (or found no replica): nothing stepped
                steps[i] = 0
                continue
            steps[i] += 1
            if terminated[i] or truncated[i]:
                ended.append({**info, "steps": steps[i]})
        if len(ended) >= total:
            return ended[:total]
    raise AssertionError(f"only {len(ended)} of {total} episodes ended")


def _check_only_lost_episodes_failed(ended: list[dict[str, Any]], kept: str, lost: str, why: str) -> None:
    failed = [e for e in ended if e.get("failed")]
    completed = [e for e in ended if not e.get("failed")]
    # Exactly the 4 episodes running on the lost node failed, mid-way and with a reason.
    assert len(failed) == PER_NODE, [e["failed"] for e in failed]
    assert {e["node_id"] for e in failed} == {lost}
    assert all(e["steps"] == 2 and why in e["failed"] for e in failed), [e["failed"] for e in failed]
    # The rest completed: the kept node's first 4, then 8 more that could only run there.
    assert len(completed) == len(ended) - PER_NODE
    assert all(e["steps"] == 4 and e.get("goal_status") == "complete" for e in completed)
    assert Counter(e["node_id"] for e in completed) == {kept: len(completed)}


def _pool(ray_cluster: RayCluster) -> RayEnvPool:
    return RayEnvPool(
        size=2 * PER_NODE, tasks=["ray.wifi_off"], seed=0, address=ray_cluster.address, wait_seconds=0.0
    )


def test_episodes_spread_over_both_nodes_and_a_stopped_farm_fails_only_its_episodes(
    ray_cluster: RayCluster, farms: list[dict[str, Any]]
) -> None:
    node_a, node_b = ray_cluster.node_ids
    with pytest.raises(MgfarmError, match="8 ready replicas but the pool wants 9"):
        RayEnvPool(size=2 * PER_NODE + 1, tasks=["ray.wifi_off"], address=ray_cluster.address)
    with _pool(ray_cluster) as pool:
        # Placement by the replica resource alone: 4 envs on each node.
        assert Counter(pool.nodes()) == {node_a: PER_NODE, node_b: PER_NODE}
        ended = _run_episodes(pool, 16, lambda: ray.get(_farm_actor_of(node_b).down.remote()))
    _check_only_lost_episodes_failed(ended, kept=node_a, lost=node_b, why="replica")


def test_cli_refuses_an_address_where_no_ray_cluster_answers() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["up", "--ray", f"127.0.0.1:{free_port()}", "--replicas-per-node", "2"])
    assert result.exit_code != 0
    assert isinstance(result.exception, MgfarmError)
    assert "ray start --head" in str(result.exception)


def test_up_ps_down_on_ray_run_one_farm_per_node_and_leave_nothing(
    ray_cluster: RayCluster, adb_port: int
) -> None:
    runner = CliRunner()
    # --adb-port reaches every node's farm: both farms share this adb server, as on one host.
    args = ["up", "--ray", ray_cluster.address, "--replicas-per-node", "2", "--adb-port", str(adb_port)]
    up = runner.invoke(app, args)
    assert up.exit_code == 0, up.output
    ps = runner.invoke(app, ["ps", "--ray", ray_cluster.address, "--json"])
    assert ps.exit_code == 0, ps.output
    statuses = sorted(json.loads(ps.output), key=lambda s: s["node_id"])
    assert [s["node_id"] for s in statuses] == ray_cluster.node_ids
    assert [s["farm"] for s in statuses] == [farm_name(n) for n in ray_cluster.node_ids]
    assert [s["ready"] for s in statuses] == [2, 2]
    serials = {r["serial"] for s in statuses for r in s["replicas"]}
    assert len(serials) == 4 and serials <= set(adbserver.devices(adb_port))
    again = runner.invoke(app, args)
    assert again.exit_code != 0 and "already up" in str(again.exception)
    down = runner.invoke(app, ["down", "--ray", ray_cluster.address])
    assert down.exit_code == 0, down.output
    assert down.output.count("stopped") == 2
    assert cluster.farm_actors() == []
    assert list_farms() == []
    assert not serials & set(adbserver.devices(adb_port))


def test_ps_and_down_pass_over_a_farm_whose_node_dies_while_they_look(
    ray_cluster: RayCluster, farms: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ray lists a dying node's actor by name and then finds no actor of that name: the listing is
    # made to hold such a name, as it does in that window when a node is lost.
    listed = ray.util.list_named_actors
    dead = {"name": farm_actor_name("f" * 56), "namespace": NAMESPACE}
    monkeypatch.setattr(
        ray.util, "list_named_actors", lambda all_namespaces=False: [*listed(all_namespaces), dead]
    )
    assert sorted(s["node_id"] for s in cluster.ps(ray_cluster.address)) == ray_cluster.node_ids
    assert sum("stopped" in line for line in cluster.down(ray_cluster.address)) == 2
    assert cluster.farm_actors() == []


def test_a_node_lost_mid_episode_fails_its_episodes_and_the_pool_carries_on(
    ray_cluster: RayCluster, farms: list[dict[str, Any]]
) -> None:
    """Runs last: it takes the second node away for good."""
    lost = ray_cluster.worker_node.node_id
    (kept,) = [n for n in ray_cluster.node_ids if n != lost]
    try:
        with _pool(ray_cluster) as pool:
            assert Counter(pool.nodes()) == {kept: PER_NODE, lost: PER_NODE}
            ended = _run_episodes(pool, 16, lambda: ray_cluster.local.remove_node(ray_cluster.worker_node))
        _check_only_lost_episodes_failed(ended, kept=kept, lost=lost, why="node lost")
    finally:
        # The lost node's devices are daemons on this same machine: stop them through its state file.
        if farm_name(lost) in list_farms():
            api.down(farm_name(lost))
