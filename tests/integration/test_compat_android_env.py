"""android_env from PyPI, unchanged, against a simulated device: AdbController, AdbCallParser, logcat.

These are the calls android_env's AndroidEnv makes on every reset and step (current activity,
orientation, taps, keys, text, settings, packages, dumpsys) and its logcat reader.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.integration.conftest import AdbServer, SimHandle

adb_pb2 = pytest.importorskip(
    "android_env.proto.adb_pb2", reason="android-env is not installed (pip install -e '.[compat]')"
)
adb_call_parser = pytest.importorskip("android_env.components.adb_call_parser")
adb_controller = pytest.importorskip("android_env.components.adb_controller")
config_classes = pytest.importorskip("android_env.components.config_classes")
adb_log_stream = pytest.importorskip("android_env.components.adb_log_stream")
logcat_thread = pytest.importorskip("android_env.components.logcat_thread")

Request = adb_pb2.AdbRequest
OK = adb_pb2.AdbResponse.Status.OK


@pytest.fixture
def parser(adb_server: AdbServer, sim_device: SimHandle, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    # AdbController runs `adb -P PORT -s SERIAL ...` with the process environment; HOME holds the token.
    monkeypatch.setenv("HOME", str(adb_server.home))
    config = config_classes.AdbControllerConfig(
        adb_path=str(adb_server.binary),
        adb_server_port=adb_server.port,
        device_name=sim_device.serial,
        default_timeout=30.0,
    )
    yield adb_call_parser.AdbCallParser(adb_controller.AdbController(config))


def call(parser: Any, **fields: object) -> Any:
    response = parser.parse(Request(**fields))
    assert response.status == OK, response.error_message
    return response


def test_activity_orientation_and_navigation(parser: Any) -> None:
    call(
        parser,
        start_activity=Request.StartActivity(full_activity="com.android.settings/.Settings", force_stop=True),
    )
    current = call(parser, get_current_activity=Request.GetCurrentActivity())
    assert current.get_current_activity.full_activity == "com.android.settings/com.android.settings.Settings"
    assert call(parser, get_orientation=Request.GetOrientationRequest()).get_orientation.orientation == 0
    call(parser, press_button=Request.PressButton(button=Request.PressButton.HOME))
    current = call(parser, get_current_activity=Request.GetCurrentActivity())
    assert current.get_current_activity.full_activity.startswith("com.android.launcher3/")
    call(parser, force_stop=Request.ForceStop(package_name="com.android.settings"))
    call(
        parser,
        start_screen_pinning=Request.StartScreenPinning(
            full_activity="com.android.launcher3/com.android.launcher3.uioverrides.QuickstepLauncher"
        ),
    )


def test_input_settings_packages_and_dumpsys(parser: Any) -> None:
    call(parser, tap=Request.Tap(x=540, y=1200))
    call(parser, input_text=Request.InputText(text="hello"))
    put = Request.SettingsRequest.Put(key="screen_off_timeout", value="600000")
    call(
        parser, settings=Request.SettingsRequest(name_space=Request.SettingsRequest.Namespace.SYSTEM, put=put)
    )
    got = call(
        parser,
        settings=Request.SettingsRequest(
            name_space=Request.SettingsRequest.Namespace.SYSTEM,
            get=Request.SettingsRequest.Get(key="screen_off_timeout"),
        ),
    )
    assert got.settings.output.strip() == b"600000"
    packages = call(
        parser,
        package_manager=Request.PackageManagerRequest(
            list=Request.PackageManagerRequest.List(packages=Request.PackageManagerRequest.List.Packages())
        ),
    )
    assert "com.android.settings" in packages.package_manager.list.items
    features = call(
        parser,
        package_manager=Request.PackageManagerRequest(
            list=Request.PackageManagerRequest.List(features=Request.PackageManagerRequest.List.Features())
        ),
    )
    assert "android.hardware.touchscreen" in features.package_manager.list.items
    dump = call(parser, dumpsys=Request.DumpsysRequest(service="window"))
    assert b"mCurrentRotation=ROTATION_0" in dump.dumpsys.output
    generic = call(parser, generic=Request.GenericRequest(args=["shell", "getprop", "ro.product.model"]))
    assert generic.generic.output.strip() == b"sdk_gphone64_x86_64"


def test_push_pull_and_broadcast(parser: Any, tmp_path: Path) -> None:
    call(parser, push=Request.Push(content=b"payload", path="/sdcard/Download/p.txt"))
    pulled = call(parser, pull=Request.Pull(path="/sdcard/Download/p.txt"))
    assert pulled.pull.content == b"payload"
    call(parser, send_broadcast=Request.SendBroadcast(action="android.intent.action.MEDIA_SCANNER_SCAN_FILE"))


def test_emulator_console_through_adb_emu(parser: Any) -> None:
    """`adb emu` as android_env's generic call runs it: replies printed, exit status 0 (as real adb)."""
    ok = call(parser, generic=Request.GenericRequest(args=["emu", "gsm", "call", "5551234"]))
    assert b"KO" not in ok.generic.output
    registry = call(parser, generic=Request.GenericRequest(args=["shell", "dumpsys", "telephony.registry"]))
    assert b"mCallState=1" in registry.generic.output
    call(parser, generic=Request.GenericRequest(args=["emu", "gsm", "cancel", "5551234"]))
    bad = call(parser, generic=Request.GenericRequest(args=["emu", "gsm", "call", "not-a-number"]))
    assert bad.generic.output.startswith(b"KO: ")


def test_logcat_thread_sees_what_the_device_logs(
    adb_server: AdbServer, sim_device: SimHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(adb_server.home))
    prefix = [str(adb_server.binary), "-P", str(adb_server.port), "-s", sim_device.serial]
    stream = adb_log_stream.AdbLogStream(prefix)
    stream.set_log_filters(["RewardTag:V"])
    thread = logcat_thread.LogcatThread(log_stream=stream)
    thread.resume()  # as android_env's coordinator does after a reset
    seen: list[str] = []
    thread.add_event_listener(
        logcat_thread.EventListener(
            regexp=re.compile(r"^reward: (.*)$"), handler_fn=lambda ev, m: seen.append(m[1])
        )
    )
    try:
        deadline = time.monotonic() + 20
        while not seen and time.monotonic() < deadline:
            adb_server.adb("-s", sim_device.serial, "shell", "log", "-t", "RewardTag", "reward: 2.5")
            time.sleep(0.5)
    finally:
        thread.kill()
    assert seen and seen[0] == "2.5"


def emulator_config(adb_server: AdbServer, handle: SimHandle, grpc_port: int) -> Any:
    return config_classes.EmulatorConfig(
        emulator_launcher=config_classes.EmulatorLauncherConfig(
            emulator_console_port=handle.console_port, adb_port=handle.adb_port, grpc_port=grpc_port
        ),
        adb_controller=config_classes.AdbControllerConfig(
            adb_path=str(adb_server.binary), adb_server_port=adb_server.port
        ),
    )


STATUS_BAR = 150  # pixels at the top of a 2400-row screen: the status bar with its clock


def test_emulator_simulator_over_grpc(
    adb_server: AdbServer, grpc_device: tuple[SimHandle, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """android_env's EmulatorSimulator attached by console, adb and gRPC ports: screenshots, touches,
    keys and snapshots go over gRPC (grpc.local_channel_credentials() to localhost:PORT)."""
    from android_env.components.simulators.emulator import emulator_simulator
    from android_env.proto import state_pb2

    monkeypatch.setenv("HOME", str(adb_server.home))
    handle, grpc_port = grpc_device
    sim = emulator_simulator.EmulatorSimulator(emulator_config(adb_server, handle, grpc_port))
    sim.launch()
    pixels = sim.get_screenshot()
    assert pixels.shape == (2400, 1080, 3)
    adb = sim.create_adb_controller()
    adb.execute_command(["shell", "am", "start", "-n", "com.android.settings/.Settings"])
    at_settings = sim.get_screenshot()
    assert not np.array_equal(at_settings, pixels)
    saved = sim.save_state(state_pb2.SaveStateRequest(args={"snapshot_name": "at_settings"}))
    assert saved.status == state_pb2.SaveStateResponse.Status.OK, saved.error_message
    # HOME through a key event (evdev KEY_HOME, sent as XKB as android_env does on Linux).
    sim.send_key(np.int32(102 + 8), event_type="keypress")
    assert b"QuickstepLauncher" in adb.execute_command(["shell", "dumpsys", "activity", "top"])
    # The same home screen below the status bar, whose clock may tick over a minute meanwhile.
    assert np.array_equal(sim.get_screenshot()[STATUS_BAR:], pixels[STATUS_BAR:])
    # A tap on the launcher's Phone icon, as a touch down and up at one place.
    dump = adb.execute_command(["exec-out", "uiautomator", "dump", "/dev/tty"]).decode()
    x1, y1, x2, y2 = map(
        int, re.search(r'text="Phone"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', dump).groups()
    )  # type: ignore[union-attr]
    sim.send_touch([((x1 + x2) // 2, (y1 + y2) // 2, True, 0)])
    sim.send_touch([((x1 + x2) // 2, (y1 + y2) // 2, False, 0)])
    assert b"com.google.android.dialer" in adb.execute_command(["shell", "dumpsys", "activity", "top"])
    loaded = sim.load_state(state_pb2.LoadStateRequest(args={"snapshot_name": "at_settings"}))
    assert loaded.status == state_pb2.LoadStateResponse.Status.OK, loaded.error_message
    assert b"com.android.settings" in adb.execute_command(["shell", "dumpsys", "activity", "top"])
    missing = sim.load_state(state_pb2.LoadStateRequest(args={"snapshot_name": "nope"}))
    assert missing.status != state_pb2.LoadStateResponse.Status.OK


def test_android_env_reset_and_20_steps_over_grpc(
    adb_server: AdbServer, grpc_device: tuple[SimHandle, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from android_env import loader
    from android_env.components import action_type

    monkeypatch.setenv("HOME", str(adb_server.home))
    handle, grpc_port = grpc_device
    task = tmp_path / "task.textproto"
    task.write_text('id: "default"\nname: "Default task"\nmax_episode_sec: 7200\n')
    env = loader.load(
        config_classes.AndroidEnvConfig(
            task=config_classes.FilesystemTaskConfig(path=str(task)),
            simulator=emulator_config(adb_server, handle, grpc_port),
        )
    )
    try:
        first = env.reset()
        assert first.observation["pixels"].shape == (2400, 1080, 3)
        for i in range(20):
            kind = action_type.ActionType.TOUCH if i % 2 == 0 else action_type.ActionType.LIFT
            step = env.step(
                {"action_type": np.array(kind, dtype=np.int32), "touch_position": np.array([0.1, 0.95])}
            )
            assert step.observation["pixels"].shape == (2400, 1080, 3)
        assert env.stats()["episode_steps"] == 20
    finally:
        env.close()
