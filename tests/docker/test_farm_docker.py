"""The docker backend end to end: images, `up --replicas 4`, a shell command on each, watchdog, down."""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from mgfarm.adb import server as adbserver
from mgfarm.farm import api
from mgfarm.farm.backends.docker import FARM_LABEL, REPLICA_LABEL
from mgfarm.farm.state import farm_dir, load_farm
from tests.support import run_mgfarm, wait_until

mgfarm = partial(run_mgfarm, timeout=300)


def containers(engine: Any, name: str) -> list[Any]:
    return list(engine.containers.list(all=True, filters={"label": f"{FARM_LABEL}={name}"}))


def test_four_containers_shell_watchdog_down(
    engine: Any, sim_image: str, farm_home: Path, adb_port: int
) -> None:
    up = mgfarm("up", "--backend", "docker", "--replicas", "4", "--name", "dk4", "--adb-port", str(adb_port))
    try:
        assert up.returncode == 0, up.stderr
        running = containers(engine, "dk4")
        assert len(running) == 4
        for container in running:
            config = container.attrs["HostConfig"]
            assert config["Privileged"] is False
            assert config["NanoCpus"] > 0 and config["Memory"] > 0
            bindings = [b for spec in config["PortBindings"].values() for b in spec]
            assert {b["HostIp"] for b in bindings} == {"127.0.0.1"}
            assert container.labels[REPLICA_LABEL] in {"0", "1", "2", "3"}

        ps = json.loads(mgfarm("ps", "--name", "dk4", "--json").stdout)[0]["replicas"]
        assert [r["state"] for r in ps] == ["ready"] * 4
        for index in range(4):
            run = mgfarm("exec", "--name", "dk4", str(index), "--", "echo", f"hello-{index}")
            assert (run.returncode, run.stdout.strip()) == (0, f"hello-{index}")

        def back(index: int) -> bool:
            rep = load_farm("dk4").replica(index)
            attached = adbserver.devices(adb_port).get(rep.serial) == "device"
            return rep.state == "ready" and rep.restarts >= 1 and attached

        # A killed container, and one removed under the watchdog (`docker rm -f`: the engine answers
        # 404 for it from then on): both come back, and the watchdog lives through the errors.
        engine.containers.get(load_farm("dk4").replica(2).backend_id).kill()
        wait_until(lambda: back(2), 90, "the watchdog to restore the killed container", every=0.5)
        engine.containers.get(load_farm("dk4").replica(1).backend_id).remove(force=True)
        wait_until(lambda: back(1), 90, "the watchdog to replace the removed container", every=0.5)
        for index in (1, 2):
            again = mgfarm("exec", "--name", "dk4", str(index), "--", "getprop", "sys.boot_completed")
            assert again.stdout.strip() == "1"
    finally:
        down = mgfarm("down", "--name", "dk4")
    assert down.returncode == 0, down.stderr
    assert containers(engine, "dk4") == []
    assert not farm_dir("dk4").exists()


def test_missing_image_is_one_sentence(engine: Any, farm_home: Path, adb_port: int) -> None:
    proc = mgfarm("up", "--backend", "docker", "--image", "mgfarm/none:missing", "--name", "noimg")
    assert proc.returncode != 0
    assert "is not on this machine" in proc.stderr and "Traceback" not in proc.stderr
    assert containers(engine, "noimg") == []
    with pytest.raises(Exception, match="No farm named"):
        api.down("noimg")


def _can_connect(engine: Any, network: str, host: str, port: int) -> bool:
    """Whether a throwaway container on `network` opens a TCP connection to host:port."""
    probe = (
        "import socket,sys\n"
        "try:\n"
        f" socket.create_connection(({host!r}, {port}), timeout=3).close(); print('open')\n"
        "except OSError: print('closed')\n"
    )
    out = engine.containers.run(
        "mgfarm/base:bookworm", ["python3", "-c", probe], network=network, remove=True
    )
    return bytes(out).strip() == b"open"


def test_farms_of_two_homes_never_touch_each_other(engine: Any, sim_image: str, tmp_path: Path) -> None:
    """Same farm name from two MGFARM_HOMEs: separate containers, servers and networks; `down` of one
    leaves the other; no container, of the farm or not, reaches a replica's adb."""
    homes = {key: tmp_path / key for key in ("a", "b")}
    env = {key: {**os.environ, "MGFARM_HOME": str(home)} for key, home in homes.items()}
    for key in homes:
        up = mgfarm("up", "--backend", "docker", "--replicas", "2", "--farm", "same", env=env[key])
        assert up.returncode == 0, up.stderr
    try:
        listed = {key: json.loads(mgfarm("ps", "--json", env=env[key]).stdout) for key in homes}
        ids = {key: {r["backend_id"] for f in farms for r in f["replicas"]} for key, farms in listed.items()}
        assert len(ids["a"]) == len(ids["b"]) == 2 and not ids["a"] & ids["b"]
        ports = {key: listed[key][0]["adb_server_port"] for key in homes}
        assert ports["a"] != ports["b"]
        for key in homes:
            serials = {r["serial"] for r in listed[key][0]["replicas"]}
            # The farm's own adb server lists exactly its replicas, nothing of the other home's.
            assert set(adbserver.devices(ports[key])) == serials

        first, second = (engine.containers.get(i) for i in sorted(ids["a"]))
        (network,) = first.attrs["NetworkSettings"]["Networks"]
        ip = first.attrs["NetworkSettings"]["Networks"][network]["IPAddress"]
        assert network != "bridge" and network == next(iter(second.attrs["NetworkSettings"]["Networks"]))
        assert not _can_connect(engine, "bridge", ip, 5555), "a sibling container reached a replica's adb"
        assert not _can_connect(engine, network, ip, 5555), "replicas of one farm reach each other"

        down = mgfarm("down", "--farm", "same", env=env["a"])
        assert down.returncode == 0, down.stderr
        assert all(engine.containers.get(i).status == "running" for i in ids["b"])
        ps_b = json.loads(mgfarm("ps", "--json", env=env["b"]).stdout)
        assert [r["state"] for r in ps_b[0]["replicas"]] == ["ready", "ready"]
    finally:
        for key in homes:
            mgfarm("down", "--farm", "same", env=env[key])
    assert not [c for c in engine.containers.list(all=True) if c.id in ids["a"] | ids["b"]]


def test_sim_containers_publish_grpc_and_run_the_farms_profile_and_storage(
    engine: Any, sim_image: str, farm_home: Path, adb_port: int
) -> None:
    grpc = pytest.importorskip("grpc")
    stubs = pytest.importorskip("android_env.proto.emulator_controller_pb2_grpc", reason="android-env")
    messages = pytest.importorskip("android_env.proto.emulator_controller_pb2")
    from google.protobuf import empty_pb2

    args = ["--replicas", "2", "--name", "dkg", "--profile", "aosp", "--adb-port", str(adb_port)]
    args += ["--storage", "100m"]
    up = mgfarm("up", "--backend", "docker", *args)
    try:
        assert up.returncode == 0, up.stderr
        farm = json.loads(mgfarm("ps", "--name", "dkg", "--json").stdout)[0]
        assert farm["profile"] == "aosp"
        for rep in farm["replicas"]:
            container = engine.containers.get(rep["backend_id"])
            published = container.attrs["HostConfig"]["PortBindings"]["8554/tcp"]
            assert published == [{"HostIp": "127.0.0.1", "HostPort": str(rep["grpc_port"])}]
            with grpc.secure_channel(f"localhost:{rep['grpc_port']}", grpc.local_channel_credentials()) as ch:
                stub = stubs.EmulatorControllerStub(ch)
                assert stub.getStatus(empty_pb2.Empty(), timeout=20).booted
                shot = stub.getScreenshot(messages.ImageFormat(format=messages.ImageFormat.PNG), timeout=20)
                assert shot.image.startswith(b"\x89PNG")
            packages = mgfarm("exec", "--name", "dkg", str(rep["index"]), "--", "pm", "list", "packages")
            assert "package:com.android.deskclock" in packages.stdout.split()
            df = mgfarm("exec", "--name", "dkg", str(rep["index"]), "--", "df").stdout.splitlines()
            assert any(line.split()[1:2] == ["102400"] and line.endswith(" /data") for line in df)
    finally:
        down = mgfarm("down", "--name", "dkg")
    assert down.returncode == 0, down.stderr
