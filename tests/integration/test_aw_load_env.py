"""AndroidWorld's `env_launcher.load_and_setup_env`, unchanged, on a simulated device serving gRPC.

AndroidWorld's controller wraps android_env's AndroidEnv (attached by console, adb and gRPC ports) in
android_env's A11yGrpcWrapper: it installs the accessibility forwarder APK, enables its service,
broadcasts SET_GRPC and reads the a11y forest the device sends back (mgfarm/sim/system/a11y.py).
Only the APK's download is replaced (there is no network here); everything else runs as released.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.apkkit import apk_bytes
from tests.compat import androidworld as aw
from tests.integration.conftest import AdbServer, SimHandle

if aw.android_world_source() is None:
    pytest.skip(f"{aw.ENV_VAR} is not set to an AndroidWorld checkout", allow_module_level=True)
for module in ("android_env", "grpc", "grpc_tools", "portpicker", "cv2", "immutabledict", "pydub"):
    pytest.importorskip(module, reason=f"{module} is missing: pip install -e '.[compat]'")

FORWARDER = "com.google.androidenv.accessibilityforwarder"


def adb_on_private_server(adb_server: AdbServer, folder: Path) -> Path:
    """An `adb` for AndroidWorld's adb_path that talks to the test's adb server.

    AndroidWorld's get_controller leaves android_env's adb server port at its default, 5037, which
    tests never touch; this script swaps that `-P 5037` for the test server's port and runs adb.
    """
    script = folder / "adb"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-P" ]; then shift 2; fi\n'
        f'exec "{adb_server.binary}" -P {adb_server.port} "$@"\n'
    )
    script.chmod(0o755)
    return script


def wait_for(env: Any, what: str, ok: Callable[[Any], bool]) -> Any:
    """AndroidWorld's state, read until `ok` holds (the forest arrives after the screen changes)."""
    deadline = time.monotonic() + 30
    while True:
        state = env.get_state()
        if ok(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: {[(e.text, e.package_name) for e in state.ui_elements][:40]}")
        time.sleep(0.3)


def packages(state: Any) -> set[str]:
    return {e.package_name for e in state.ui_elements}


def test_load_and_setup_env_resets_and_steps_with_the_a11y_forest(
    adb_server: AdbServer,
    grpc_device: tuple[SimHandle, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    aw.prepare_android_world(tmp_path / "aw")
    from android_env.wrappers import a11y_grpc_wrapper
    from android_world.env import env_launcher, json_action

    handle, grpc_port = grpc_device
    monkeypatch.setenv("HOME", str(adb_server.home))  # adb emu reads the console token from $HOME
    # The only substitution: the wrapper downloads Google's forwarder APK from storage.googleapis.com,
    # and there is no network here. An APK declaring the same package stands in for it.
    monkeypatch.setattr(a11y_grpc_wrapper, "_get_accessibility_forwarder_apk", lambda: apk_bytes(FORWARDER))
    env = env_launcher.load_and_setup_env(
        console_port=handle.console_port,
        grpc_port=grpc_port,
        emulator_setup=False,
        adb_path=str(adb_on_private_server(adb_server, tmp_path)),
    )
    try:
        installed = adb_server.adb("-s", handle.serial, "shell", "pm", "list", "packages", FORWARDER)
        assert f"package:{FORWARDER}" in installed.stdout
        home = env.reset(go_home=True)
        labels = {e.text for e in home.ui_elements if e.package_name == "com.android.launcher3"}
        assert {"Phone", "Contacts", "Settings"} <= labels
        assert home.forest is not None and home.pixels.shape == (2400, 1080, 3)
        phone = next(e for e in home.ui_elements if e.text == "Phone")
        assert phone.is_clickable and phone.bbox_pixels is not None

        env.execute_action(json_action.JSONAction(action_type="open_app", app_name="settings"))
        settings = wait_for(env, "Settings opened", lambda s: "com.android.settings" in packages(s))
        assert "com.android.launcher3" not in packages(settings)

        env.execute_action(json_action.JSONAction(action_type="navigate_home"))
        home = wait_for(env, "home again", lambda s: "com.android.launcher3" in packages(s))
        index = next(i for i, e in enumerate(home.ui_elements) if e.text == "Phone")
        env.execute_action(json_action.JSONAction(action_type="click", index=index))
        wait_for(env, "Phone opened by a tap", lambda s: "com.google.android.dialer" in packages(s))
        top = adb_server.adb("-s", handle.serial, "shell", "dumpsys", "activity", "top").stdout
        assert "com.google.android.dialer" in top
    finally:
        env.close()
