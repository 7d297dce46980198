"""Ports, state file and config of the farm: the rules users rely on, without devices."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm import profiles as farm_profiles
from mgfarm.farm.backends.docker import needs_kvm, parse_memory
from mgfarm.farm.backends.process import ProcessBackend
from mgfarm.farm.config import load_config
from mgfarm.farm.ports import (
    FIRST_CONSOLE_PORT,
    allocate_pairs,
    consecutive_runs,
    free_port,
    grpc_port_for,
    quiet_range_start,
)
from mgfarm.farm.state import (
    FarmState,
    Replica,
    edit,
    list_farms,
    load_farm,
    ports_of_other_farms,
    save_farm,
    state_path,
)


def test_pairs_are_even_odd_and_skip_taken_ports() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        taken = holder.getsockname()[1]
        start = taken - 1 if taken % 2 else taken  # the pair that holds `taken`
        pairs = allocate_pairs(3, start=start)
    assert all(console % 2 == 0 and adb == console + 1 for console, adb in pairs)
    assert taken not in {p for pair in pairs for p in pair}
    assert pairs[0][0] > start


def test_reserved_ports_are_skipped_and_runs_split_at_gaps() -> None:
    start = free_port() & ~1
    pairs = allocate_pairs(3, start=start, reserved={start + 3})
    assert (start + 2, start + 3) not in pairs
    assert [len(run) for run in consecutive_runs([(10, 11), (12, 13), (16, 17)])] == [2, 1]


@pytest.mark.parametrize("count", [0, -3, 40000])
def test_impossible_replica_counts_are_refused(count: int) -> None:
    with pytest.raises(MgfarmError, match="replicas"):
        allocate_pairs(count)


def test_odd_first_port_is_refused() -> None:
    with pytest.raises(MgfarmError, match="even"):
        allocate_pairs(1, start=5555)


def _farm(name: str) -> FarmState:
    rep = Replica(0, "emulator-5554", 5555, 5554, "tok", backend_id="pid:1", state="ready")
    return FarmState(name=name, backend="process", adb_server_port=5137, snapshot="golden", replicas=[rep])


def test_state_round_trips_and_edits_under_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    save_farm(_farm("a"))
    with edit("a") as farm:
        farm.replica(0).state = "restoring"
    loaded = load_farm("a")
    assert loaded.replica(0).state == "restoring" and loaded.replica(0).console_token == "tok"
    assert list_farms() == ["a"]
    with pytest.raises(MgfarmError, match="no replica 3"):
        loaded.replica(3)


@pytest.mark.parametrize("tail", [-1, 0])
def test_logs_refuse_a_tail_below_one(tail: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    save_farm(_farm("a"))
    with pytest.raises(MgfarmError, match=rf"--tail must be at least 1 \(got {tail}\); pass --tail N"):
        api.logs("a", 0, tail)


def test_missing_broken_and_badly_named_farms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    with pytest.raises(MgfarmError, match="No farm named 'nope'"):
        load_farm("nope")
    (tmp_path / "farms" / "bad").mkdir(parents=True)
    (tmp_path / "farms" / "bad" / "state.json").write_text("{not json")
    with pytest.raises(MgfarmError, match="mgfarm down --farm bad"):
        load_farm("bad")
    with pytest.raises(MgfarmError, match="not valid"):
        load_farm("../etc")


def test_flags_win_over_yaml_and_bad_yaml_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "mgfarm.yaml"
    path.write_text("replicas: 8\nbackend: docker\nmemory: 512m\n")
    cfg = load_config({"replicas": 2, "backend": None}, path=path)
    assert (cfg.replicas, cfg.backend, cfg.memory, cfg.adb_port) == (2, "docker", "512m", 0)
    path.write_text("memory: 1g\nreplicas: [1")
    with pytest.raises(MgfarmError) as bad:
        load_config({}, path=path)
    assert "not valid YAML at line 2, column 13:" in str(bad.value)
    assert "\n" not in str(bad.value) and "flow sequence" not in str(bad.value)
    path.write_text("replica: 3\n")
    with pytest.raises(MgfarmError, match="'replica'"):
        load_config({}, path=path)


def test_a_flag_out_of_range_says_what_to_pass() -> None:
    with pytest.raises(MgfarmError) as bad:
        load_config({"replicas": 0}, path=None)
    assert str(bad.value) == "--replicas must be at least 1 (got 0); pass --replicas N with N >= 1."
    with pytest.raises(MgfarmError, match="--adb-port must be at most 65535"):
        load_config({"adb_port": 70000}, path=None)


@pytest.mark.parametrize("value", ["256m", "1g", "524288k", "1000000"])
def test_docker_memory_limits_accept_docker_syntax(value: str) -> None:
    assert parse_memory(value) == value


@pytest.mark.parametrize("value", ["", "m", "lots", "12x", "1.5g"])
def test_docker_memory_limits_refuse_the_rest(value: str) -> None:
    with pytest.raises(MgfarmError, match="256m"):
        parse_memory(value)


def test_kvm_only_for_images_that_ask() -> None:
    assert needs_kvm({"org.mgfarm.needs_kvm": "true"})
    assert needs_kvm({"org.mgfarm.backend": "emulator"})
    assert not needs_kvm({"org.mgfarm.backend": "sim", "org.mgfarm.needs_kvm": "false"})
    assert not needs_kvm({})


def test_a_relocated_replica_stays_in_the_farms_port_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    first = quiet_range_start(3)
    rep = Replica(0, f"emulator-{first}", first + 1, first, "tok")
    farm = FarmState("ranged", "process", 5137, "golden", [rep], first_port=first)
    with socket.socket() as holder:  # something else took the replica's console port
        holder.bind(("127.0.0.1", first))
        holder.listen()
        assert ProcessBackend(workers=1).relocate(farm, rep)
    assert rep.console_port >= first and rep.console_port != 5554
    assert (rep.adb_port, rep.serial) == (rep.console_port + 1, f"emulator-{rep.console_port}")


def test_an_old_state_file_without_first_port_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    farm = FarmState("old", "process", 5137, "golden", [Replica(0, "emulator-5554", 5555, 5554, "tok")])
    save_farm(farm)
    data = json.loads(state_path("old").read_text())
    del data["first_port"]
    state_path("old").write_text(json.dumps(data))
    assert load_farm("old").first_port == 5554


def test_grpc_ports_follow_consoles_skip_taken_ones_and_are_reserved_for_other_farms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    start = quiet_range_start(4)
    # Consecutive consoles, consecutive gRPC ports: one `sim serve --grpc BASE` worker serves a run.
    assert [grpc_port_for(c) for c in (FIRST_CONSOLE_PORT, FIRST_CONSOLE_PORT + 2)] == [8586, 8587]
    with socket.socket() as holder:  # something holds the second pair's gRPC port
        holder.bind(("127.0.0.1", grpc_port_for(start + 2)))
        holder.listen()
        planned = ProcessBackend(workers=1, grpc=True).plan(2, start, set(), "tok", "golden")
    assert [r.console_port for r in planned] == [start, start + 4]
    assert [r.grpc_port for r in planned] == [grpc_port_for(start), grpc_port_for(start + 4)]
    assert [r.grpc_port for r in ProcessBackend(grpc=False).plan(1, start, set(), "t", "g")] == [0]
    # Another farm's gRPC ports are promised to it, as its console and adb ports are.
    save_farm(FarmState("one", "process", 5137, "golden", planned, first_port=start))
    assert {r.grpc_port for r in planned} <= ports_of_other_farms("two")
    again = ProcessBackend(grpc=True).plan(2, start, ports_of_other_farms("two"), "tok", "golden")
    assert not {p for r in again for p in r.ports()} & {p for r in planned for p in r.ports()}
    # A relocated replica keeps a gRPC port, moved with its console.
    rep = again[0]
    farm = FarmState("two", "process", 5137, "golden", again, first_port=start)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", rep.grpc_port))
        holder.listen()
        assert ProcessBackend(grpc=True).relocate(farm, rep)
    assert rep.grpc_port == grpc_port_for(rep.console_port) and rep.grpc_port not in ports_of_other_farms(
        "two"
    )


def test_an_old_state_file_has_no_grpc_ports_and_the_default_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    save_farm(_farm("old"))
    data = json.loads(state_path("old").read_text())
    del data["profile"], data["replicas"][0]["grpc_port"]
    state_path("old").write_text(json.dumps(data))
    farm = load_farm("old")
    assert (farm.profile, farm.replicas[0].grpc_port, farm.replicas[0].ports()) == (
        "android13",
        0,
        (5554, 5555),
    )


def test_the_farm_offers_the_profiles_the_simulator_has() -> None:
    from mgfarm.sim.system.profiles import DEFAULT, PROFILES

    assert (farm_profiles.PROFILES, farm_profiles.DEFAULT_PROFILE) == (PROFILES, DEFAULT)
    with pytest.raises(MgfarmError, match=r"^Unknown device profile 'pixel'; use one of: android13, "):
        api.up(1, profile="pixel")
