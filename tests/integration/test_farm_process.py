"""The process backend end to end: `mgfarm up/ps/exec/logs/restart/down` against a real adb server."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from mgfarm.adb import server as adbserver
from mgfarm.adb.console import console_command
from mgfarm.errors import MgfarmError
from mgfarm.farm import api, frames, procs
from mgfarm.farm.ports import free_port, quiet_range_start
from mgfarm.farm.state import FarmState, farm_dir, load_farm
from tests.support import processes_matching, run_mgfarm, wait_until

from .conftest import AdbServer

mgfarm = partial(run_mgfarm, timeout=120)


@pytest.fixture
def farm_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "mgfarm-home"
    monkeypatch.setenv("MGFARM_HOME", str(home))
    return home


def farm_pids(home: Path) -> list[int]:
    """Every live process whose command line mentions this MGFARM_HOME (workers, watchdog)."""
    return [
        pid
        for pid in processes_matching(lambda cmdline: str(home).encode() in cmdline)
        if procs.pid_alive(pid)
    ]


def listed(server: AdbServer) -> dict[str, str]:
    lines = server.adb("devices").stdout.splitlines()[1:]
    return dict(line.split("\t", 1) for line in lines if "\t" in line)


def restored(name: str, index: int, server: AdbServer) -> bool:
    rep = load_farm(name).replica(index)
    return rep.state == "ready" and rep.restarts >= 1 and listed(server).get(rep.serial) == "device"


@pytest.fixture
def farm16(farm_home: Path, adb_server: AdbServer) -> Iterator[FarmState]:
    proc = mgfarm("up", "--replicas", "16", "--name", "f16", "--adb-port", str(adb_server.port))
    assert proc.returncode == 0, proc.stderr
    assert "16/16 replicas ready" in proc.stdout
    try:
        yield load_farm("f16")
    finally:
        if (farm_dir("f16") / "state.json").exists():
            api.down("f16")


def test_sixteen_replicas_up_ps_watchdog_down(
    farm16: FarmState, farm_home: Path, adb_server: AdbServer
) -> None:
    # `up` has returned; the devices live on in daemonised workers.
    ps = mgfarm("ps", "--name", "f16", "--json")
    assert ps.returncode == 0, ps.stderr
    replicas = json.loads(ps.stdout)[0]["replicas"]
    assert [r["state"] for r in replicas] == ["ready"] * 16
    serials = {r["serial"] for r in replicas}
    assert len(serials) == 16
    assert all(listed(adb_server).get(s) == "device" for s in serials)
    assert "console_token" not in replicas[0]

    # The golden one fresh device saved is the farm's, sealed read-only; every worker is sandboxed.
    golden = farm_dir("f16") / "snapshots" / "golden"
    assert (golden / "state.json").is_file()
    assert all(not os.lstat(p).st_mode & 0o222 for p in [golden, *golden.rglob("*")] if not p.is_symlink())
    for stat_mode in (os.stat(farm_dir("f16") / "state.json"), os.stat(farm_dir("f16") / "console_token")):
        assert stat_mode.st_mode & 0o777 == 0o600
    for worker in farm16.workers:
        status = Path(f"/proc/{worker.pid}/status").read_text()
        assert "NoNewPrivs:\t1" in status
        assert "sandbox:" in Path(worker.log).read_text()

    # A whole worker dies: the watchdog brings its replicas back from the snapshot.
    victim = farm16.replicas[0]
    worker = next(w for w in farm16.workers if victim.index in w.replicas)
    os.kill(worker.pid, signal.SIGKILL)
    wait_until(lambda: all(restored("f16", i, adb_server) for i in worker.replicas), 60, "worker restore")

    # One device of a shared worker is killed through its console: only that replica is restored.
    other = next(r for r in farm16.replicas if r.index not in worker.replicas)
    console_command(other.console_port, other.console_token, "kill")
    wait_until(lambda: restored("f16", other.index, adb_server), 60, "device restore")
    serial = load_farm("f16").replica(other.index).serial
    out = adb_server.adb("-s", serial, "shell", "getprop", "sys.boot_completed")
    assert out.stdout.strip() == "1"

    down = mgfarm("down", "--name", "f16")
    assert down.returncode == 0, down.stderr
    assert farm_pids(farm_home) == []
    wait_until(lambda: not serials & set(listed(adb_server)), 10, "adb transports to go")
    assert not farm_dir("f16").exists()


def test_exec_logs_restart(farm_home: Path, adb_server: AdbServer) -> None:
    farm = api.up(2, name="small", adb_port=adb_server.port, storage="100m")
    try:
        twice = mgfarm("up", "--replicas", "1", "--name", "small", "--adb-port", str(adb_server.port))
        assert twice.returncode != 0 and "already up" in twice.stderr
        run = mgfarm("exec", "--name", "small", "1", "--", "getprop", "sys.boot_completed")
        assert (run.returncode, run.stdout.strip()) == (0, "1")
        assert mgfarm("exec", "--name", "small", "1", "--", "false").returncode == 1
        log = mgfarm("logs", "--name", "small", "1").stdout
        assert farm.replicas[1].serial in log and farm.replicas[0].serial not in log

        before = farm.replicas[1].backend_id
        again = mgfarm("restart", "--name", "small", "1")
        assert again.returncode == 0, again.stderr
        rep = load_farm("small").replica(1)
        assert (rep.state, rep.restarts) == ("ready", 1) and rep.backend_id != before
        # Each device's data partition is the size `up --storage` gave, also after a restart.
        df = mgfarm("exec", "--name", "small", "1", "--", "df").stdout
        assert any(line.split()[1:2] == ["102400"] and line.endswith(" /data") for line in df.splitlines())
        assert listed(adb_server).get(rep.serial) == "device"
        assert load_farm("small").replica(0).restarts == 0
    finally:
        api.down("small")
    assert farm_pids(farm_home) == []


def test_bad_input_one_sentence_nothing_left(farm_home: Path, adb_server: AdbServer) -> None:
    for args, needle in [
        (["up", "--replicas", "0"], "replicas"),
        (["up", "--replicas", "40000"], "fewer replicas"),
        (["up", "--replicas", "1", "--backend", "vm"], "backend"),
        (["up", "--replicas", "1", "--profile", "pixel"], "use one of: android13, android14, aosp"),
        (["up", "--replicas", "1", "--storage", "10m"], "below the 64m a device needs"),
        (["down", "--name", "gone"], "No farm named 'gone'"),
        (["logs", "0", "--name", "gone"], "No farm named 'gone'"),
    ]:
        proc = mgfarm(*args)
        assert proc.returncode != 0, args
        assert needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr

    # The managed adb port is held by something that is not an adb server.
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        proc = mgfarm("up", "--replicas", "1", "--name", "blocked", "--adb-port", str(port))
    assert proc.returncode != 0 and "not an adb server" in proc.stderr
    assert not (farm_dir("blocked") / "state.json").exists()
    assert farm_pids(farm_home) == []


def test_stale_state_and_failed_boot(farm_home: Path, adb_server: AdbServer) -> None:
    farm = api.up(1, name="crash", adb_port=adb_server.port)
    # Simulate a crash of everything: the state file stays behind.
    for pid in [farm.watchdog_pid, *(w.pid for w in farm.workers)]:
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: farm_pids(farm_home) == [], 10, "processes to die")
    again = mgfarm("up", "--replicas", "1", "--name", "crash", "--adb-port", str(adb_server.port))
    assert again.returncode != 0 and "stale state file" in again.stderr
    assert mgfarm("down", "--name", "crash").returncode == 0
    assert not farm_dir("crash").exists()

    # A boot that cannot finish in time: up fails after its retries and stops what it started.
    with pytest.raises(Exception, match="failed to boot"):
        api.up(2, name="slow", adb_port=adb_server.port, boot_timeout=0.01, retries=1)
    assert not (farm_dir("slow") / "state.json").exists()
    assert farm_pids(farm_home) == []


def test_frame_files_live_in_a_private_tmpfs_folder_that_down_and_crashes_clear(
    farm_home: Path, adb_server: AdbServer
) -> None:
    leftover = frames.make_dir("shmfarm", farm_home / "unused")  # a crash before the state was saved
    farm = api.up(1, name="shmfarm", adb_port=adb_server.port)
    assert not leftover.exists(), "up clears the leftovers of a farm of that name"
    frame = Path(farm.replicas[0].frame_file)
    if frames.usable(Path("/dev/shm")):
        assert frame.parent.parent == Path("/dev/shm")
    assert frame.parent == Path(farm.frames_dir)
    assert stat.S_IMODE(frame.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(frame.stat().st_mode) == 0o600
    # kill -9 of everything: the frames stay until `down` clears the farm's leftovers.
    for pid in [farm.watchdog_pid, *(w.pid for w in farm.workers)]:
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: farm_pids(farm_home) == [], 10, "processes to die")
    assert frame.exists()
    assert mgfarm("down", "--name", "shmfarm").returncode == 0
    assert not frame.parent.exists()
    # A failed up removes the folder it made.
    with pytest.raises(MgfarmError, match="failed to boot"):
        api.up(1, name="shmfarm", adb_port=adb_server.port, boot_timeout=0.01, retries=0)
    assert not [p for p in Path("/dev/shm").glob("mgfarm-*") if "-shmfarm@" in p.name]


def test_down_stops_a_worker_its_state_lost_and_its_transport_goes(
    farm_home: Path, adb_server: AdbServer
) -> None:
    """A worker of the farm that no state lists (a restore raced an earlier stop) does not outlive
    `down`, nor does its transport on a shared adb server."""
    farm = api.up(1, name="strays", adb_port=adb_server.port)
    console = quiet_range_start(1)
    argv = [sys.executable, "-m", "mgfarm.sim", "serve", "--adb-port", str(console + 1)]
    argv += ["--data", str(farm_dir("strays") / "data" / "lost"), "--announce", str(adb_server.port)]
    argv += ["--token-file", str(farm_dir("strays") / "console_token")]
    lost = procs.spawn_daemon(argv, farm_home / "lost.log")
    serial = f"emulator-{console}"
    try:
        wait_until(lambda: listed(adb_server).get(serial) == "device", 30, "the lost worker to attach")
        api.down(farm.name)
        assert not procs.pid_alive(lost)
        wait_until(lambda: serial not in listed(adb_server), 10, "its transport to go")
    finally:
        procs.stop_pids([lost])


def test_a_watchdog_that_outlived_its_farm_leaves_the_next_one_of_that_name_alone(
    farm_home: Path, adb_server: AdbServer
) -> None:
    api.up(1, name="heir", adb_port=adb_server.port)
    log = farm_home / "stale-watchdog.log"
    stale = procs.spawn_daemon([sys.executable, "-m", "mgfarm.farm.health", "heir"], log)
    try:
        wait_until(lambda: log.exists() and procs.pid_alive(stale), 5, "the extra watchdog to start")
        time.sleep(1.5)  # it has read its farm
        api.down("heir")  # stops the watchdog the state names, not this one
        api.up(1, name="heir", adb_port=adb_server.port)
        wait_until(lambda: not procs.pid_alive(stale), 10, "the stale watchdog to exit")
    finally:
        procs.stop_pids([stale])
        api.down("heir")
    assert not farm_dir("heir").exists()


def test_mgfarm_yaml_gives_defaults_and_flags_win(
    farm_home: Path, adb_server: AdbServer, tmp_path: Path
) -> None:
    (tmp_path / "mgfarm.yaml").write_text(f"replicas: 3\nname: fromyaml\nadb_port: {adb_server.port}\n")
    proc = mgfarm("up", "--replicas", "2", cwd=tmp_path)
    try:
        assert proc.returncode == 0, proc.stderr
        farm = load_farm("fromyaml")
        assert (len(farm.replicas), farm.adb_server_port) == (2, adb_server.port)
    finally:
        api.down("fromyaml")


def test_keep_partial_keeps_what_started_and_says_why(
    farm_home: Path, adb_server: AdbServer, tmp_path: Path
) -> None:
    # A boot deadline nobody can meet makes every replica fail, deterministically.
    config = f"name: partial\nadb_port: {adb_server.port}\nboot_timeout: 0.01\nretries: 0\n"
    (tmp_path / "mgfarm.yaml").write_text(config)
    try:
        kept = mgfarm("up", "--replicas", "2", "--keep-partial", cwd=tmp_path)
        assert kept.returncode != 0
        replicas = json.loads(mgfarm("ps", "--name", "partial", "--json", cwd=tmp_path).stdout)[0]["replicas"]
        assert [r["state"] for r in replicas] == ["failed", "failed"]
        assert all("never attached" in r["reason"] for r in replicas)
        assert farm_pids(farm_home)  # the devices were kept, not stopped
    finally:
        api.down("partial")
    assert farm_pids(farm_home) == []


@pytest.mark.parametrize("first_down", ["owner", "guest"])
def test_farms_sharing_an_adb_server_stop_it_when_the_last_one_leaves(
    farm_home: Path, first_down: str
) -> None:
    port = free_port()
    owner = api.up(1, name="owner", adb_port=port, first_port=quiet_range_start(1))
    guest = api.up(1, name="guest", adb_port=port, first_port=quiet_range_start(1))
    try:
        assert owner.adb_server_pid and not guest.adb_server_pid  # the first farm started it
        order = ["owner", "guest"] if first_down == "owner" else ["guest", "owner"]
        api.down(order[0])
        assert adbserver.server_running(port), "the other farm still needs the adb server"
        api.down(order[1])
        assert not adbserver.server_running(port)
        assert not procs.pid_alive(owner.adb_server_pid)
    finally:
        for name in ("owner", "guest"):
            with contextlib.suppress(Exception):
                api.down(name)
        adbserver.kill_server(port)


def test_every_device_serves_grpc_on_the_port_ps_shows(
    farm_home: Path, adb_server: AdbServer, tmp_path: Path
) -> None:
    """android_env's own gRPC stubs, with its channel (local credentials to localhost:PORT), reach
    each replica on the port the farm recorded; one worker hosts both devices (consecutive ports)."""
    grpc = pytest.importorskip("grpc")
    stubs = pytest.importorskip(
        "android_env.proto.emulator_controller_pb2_grpc", reason="pip install -e '.[compat]'"
    )
    messages = pytest.importorskip("android_env.proto.emulator_controller_pb2")
    from google.protobuf import empty_pb2

    (tmp_path / "mgfarm.yaml").write_text("workers: 1\n")
    up = mgfarm("up", "--replicas", "2", "--name", "g2", "--adb-port", str(adb_server.port), cwd=tmp_path)
    assert up.returncode == 0, up.stderr
    try:
        replicas = json.loads(mgfarm("ps", "--name", "g2", "--json").stdout)[0]["replicas"]
        ports = [r["grpc_port"] for r in replicas]
        assert all(ports) and len(set(ports)) == 2
        assert len(load_farm("g2").workers) == 1
        table = mgfarm("ps", "--name", "g2").stdout
        assert "grpc" in table
        for rep in replicas:
            row = next(line for line in table.splitlines() if rep["serial"] in line)
            assert f" {rep['grpc_port']} " in row
            channel = grpc.secure_channel(f"localhost:{rep['grpc_port']}", grpc.local_channel_credentials())
            with channel:
                stub = stubs.EmulatorControllerStub(channel)
                status = stub.getStatus(empty_pb2.Empty(), timeout=10)
                hardware = {e.key: e.value for e in status.hardwareConfig.entry}
                assert status.booted and hardware["avd.name"] == f"mgfarm_sim_{rep['console_port']}"
                shot = stub.getScreenshot(messages.ImageFormat(format=messages.ImageFormat.PNG), timeout=10)
                assert (shot.width, shot.height) == (1080, 2400) and shot.image.startswith(b"\x89PNG")
    finally:
        api.down("g2")

    # --no-grpc: no port is planned, and none is served.
    plain = mgfarm(
        "up", "--replicas", "1", "--name", "plain", "--no-grpc", "--adb-port", str(adb_server.port)
    )
    assert plain.returncode == 0, plain.stderr
    try:
        farm = load_farm("plain")
        argv = Path(f"/proc/{farm.workers[0].pid}/cmdline").read_bytes().split(b"\0")
        assert farm.replicas[0].grpc_port == 0 and b"--grpc" not in argv and b"--profile" in argv
        assert "grpc" not in mgfarm("ps", "--name", "plain").stdout
    finally:
        api.down("plain")


def test_a_farm_runs_its_profile_and_setup_steps_name_its_packages(
    farm_home: Path, adb_server: AdbServer
) -> None:
    from mgfarm.catalog import load_catalog
    from mgfarm.device import Device
    from mgfarm.tasks.steps import apply_steps

    args = ["--name", "plainaosp", "--profile", "aosp", "--no-grpc", "--adb-port", str(adb_server.port)]
    up = mgfarm("up", "--replicas", "1", *args)
    assert up.returncode == 0, up.stderr
    try:
        assert json.loads(mgfarm("ps", "--name", "plainaosp", "--json").stdout)[0]["profile"] == "aosp"
        assert "· aosp ·" in mgfarm("ps", "--name", "plainaosp").stdout
        farm = load_farm("plainaosp")
        device = Device(farm.replicas[0].serial, adb_port=farm.adb_server_port, profile=farm.profile)
        catalog = load_catalog([])
        # Clock is com.android.deskclock on aosp; its alarms.db lives under that package.
        apply_steps(device, [{"open_app": "Clock"}], catalog)
        assert device.current_app()[0] == "com.android.deskclock"
        apply_steps(device, [{"force_stop": "clock"}, {"clear_app": "clock"}], catalog)
        assert device.current_app()[0] != "com.android.deskclock"
        sql = (
            "INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label) "
            "VALUES (5, 55, 0, 1, 1, 'x')"
        )
        apply_steps(device, [{"sql": {"db": "alarms", "sql": sql}}], catalog)
        rows = device.sqlite(
            "/data/data/com.android.deskclock/databases/alarms.db", "SELECT label FROM alarm_templates"
        )
        assert ["x"] in rows
        device.close()
    finally:
        api.down("plainaosp")


@pytest.mark.skipif(
    not os.access("/usr/lib/chromium/chromium", os.X_OK),
    reason="no chromium on this host (apt-get install chromium)",
)
def test_chrome_shows_a_page_on_a_farm_device(farm_home: Path, adb_server: AdbServer) -> None:
    """The sim's Chrome runs the host's Chromium from inside the worker's sandbox, in a folder as deep
    as a farm's data (its singleton socket's path must stay within 107 bytes)."""
    farm = api.up(1, name="browser", adb_port=adb_server.port)
    try:
        serial = farm.replicas[0].serial
        page = "<html><body><p>Hello from a farm</p></body></html>"
        opened = adb_server.adb(
            "-s",
            serial,
            "shell",
            f"mkdir -p /sdcard/Download && echo '{page}' > /sdcard/Download/p.html && "
            "am start -a android.intent.action.VIEW -d file:///sdcard/Download/p.html -t text/html",
        )
        assert opened.returncode == 0, opened.stderr

        def shown() -> bool:
            dump = adb_server.adb("-s", serial, "shell", "uiautomator dump /dev/tty").stdout
            return 'text="Hello from a farm"' in dump

        wait_until(shown, 20, "the page in Chrome")
    finally:
        api.down("browser")
