"""Replica leases: exclusive per replica, freed on release or holder exit, aware of dead replicas."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from mgfarm.env.lease import LeaseError, acquire, lease_dir
from mgfarm.farm.state import FAILED, READY, FarmState, Replica, save_farm, update_replica


@pytest.fixture
def farm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FarmState:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    replicas = [
        Replica(
            i, f"emulator-{5554 + 2 * i}", 5555 + 2 * i, 5554 + 2 * i, "t", f"pid:{i}", READY, time.time()
        )
        for i in range(2)
    ]
    state = FarmState(
        name="leases", backend="process", adb_server_port=1, snapshot="golden", replicas=replicas
    )
    save_farm(state)
    return state


def test_each_replica_is_leased_once_until_released(farm: FarmState) -> None:
    first, _ = acquire("leases")
    second, _ = acquire("leases")
    assert {first.replica.index, second.replica.index} == {0, 1}
    with pytest.raises(LeaseError, match="all leased"):
        acquire("leases", timeout=0.0)
    second.release()
    third, _ = acquire("leases")
    assert third.replica.index == second.replica.index
    with pytest.raises(LeaseError, match="no replica 7"):
        acquire("leases", replica=7)
    first.release()
    third.release()


def test_a_holder_that_exits_frees_its_replica(farm: FarmState) -> None:
    code = (
        "from mgfarm.env.lease import acquire; lease, _ = acquire('leases', replica=0); "
        "print('held', flush=True)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code + "; import time; time.sleep(60)"], stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        with pytest.raises(LeaseError):
            acquire("leases", replica=0, timeout=0.0)
    finally:
        holder.kill()
        holder.wait()
    lease, _ = acquire("leases", replica=0, timeout=2.0)
    assert "pid=" in (lease_dir("leases") / "0.lock").read_text()
    lease.release()


def test_a_lease_reports_why_its_replica_is_unusable(farm: FarmState) -> None:
    lease, _ = acquire("leases", replica=1)
    assert lease.problem() is None
    update_replica("leases", 1, state=FAILED, reason="boot timed out")
    assert lease.problem() == "replica 1 (emulator-5556) is failed (boot timed out)"
    update_replica("leases", 1, state=READY, reason="", backend_id="pid:99")
    assert "restarted" in (lease.problem() or "")
    lease.release()
    update_replica("leases", 0, state=FAILED, reason="crashed")
    with pytest.raises(LeaseError, match="no ready replica"):
        acquire("leases", exclude={1}, timeout=0.0)
