"""Farm and pool logic on in-process simulated devices: `up --backend existing` adopts them, an
EnvPool leases each replica once and resets it exactly, and `down` leaves the devices running.

tests/integration/test_farm_existing.py covers the same seam through the CLI and served devices.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.device import Device
from mgfarm.env.lease import LeaseError, acquire
from mgfarm.env.pool import EnvPool
from mgfarm.farm import api
from mgfarm.farm.state import farm_exists
from tests.integration.conftest import AdbServer
from tests.integration.envfarm import PROBE_DB, TASK_ID, install_tasks, prepare_golden
from tests.simhost import InProcessSim, SimThread


@pytest.fixture(scope="module")
def sims(adb_server: AdbServer, sim_thread: SimThread) -> list[InProcessSim]:
    started = [sim_thread.start(), sim_thread.start()]
    for sim in started:
        prepare_golden(Device(sim.serial, adb_port=adb_server.port, console_token=sim.token))
    return started


@pytest.fixture
def farm(
    adb_server: AdbServer,
    sim_thread: SimThread,
    sims: list[InProcessSim],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[str]:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "home"))
    # The token the devices use; an `mgfarm` process finds it through HOME, read when it starts.
    monkeypatch.setattr("mgfarm.adb.console.DEFAULT_TOKEN_FILE", sim_thread.token_file)
    install_tasks(tmp_path, monkeypatch)
    api.up(2, backend="existing", name="fast", adb_port=adb_server.port, devices=[s.serial for s in sims])
    yield "fast"
    if farm_exists("fast"):
        api.down("fast")


def test_a_pool_leases_each_replica_once_and_resets_it_exactly(farm: str) -> None:
    pool = EnvPool(farm=farm, size=2, tasks=[TASK_ID], wait_seconds=0.0)
    try:
        with pytest.raises(LeaseError, match="all leased"):
            acquire(farm, timeout=0.0)
        observations, infos = pool.reset_all(seed=1)
        assert len(observations) == 2 and all(info["task_id"] == TASK_ID for info in infos)
        devices = pool.map(lambda env: env.device)
        assert sorted(d.serial for d in devices) == sorted(rep.serial for rep in api.status(farm).replicas)
        for dev in devices:
            dev.sqlite(PROBE_DB, "UPDATE t SET v = 'changed' WHERE k = 'row'")
        pool.reset_all(seed=2)
        assert [dev.sqlite(PROBE_DB, "SELECT v FROM t") for dev in devices] == [[["orig"]], [["orig"]]]
        home = {"action_type": "navigate_home"}
        _, rewards, terminated, truncated, _ = pool.step_all([home, home])
        assert list(rewards) == [0.0, 0.0] and not any(terminated) and not any(truncated)
    finally:
        pool.close()
    lease, _ = acquire(farm, timeout=0.0)  # closing the pool gave the replicas back
    lease.release()


def test_down_leaves_adopted_devices_running(
    farm: str, adb_server: AdbServer, sims: list[InProcessSim]
) -> None:
    api.down(farm)
    for sim in sims:
        assert Device(sim.serial, adb_port=adb_server.port).shell("echo up") == "up"
