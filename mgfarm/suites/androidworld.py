"""AndroidWorld's own code against mgfarm devices: finding it, preparing it, and its env on a replica.

AndroidWorld is not on PyPI. It comes from `--android-world PATH`, `$MGFARM_ANDROID_WORLD` (a source
checkout, the folder holding `android_world/`; it is copied to a cache folder and its protos are
generated there, so the checkout stays untouched) or an importable `android_world` package. Its helpers
reach a device through android_env's AdbCallParser over the real adb binary: `make_env` is the
smallest android_env environment that gives them that (screens from `screencap`, actions as adb
calls), standing where AndroidEnv's emulator simulator would be, and `async_env` wraps it in
AndroidWorld's `AsyncAndroidEnv`, reading the UI with `uiautomator dump`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import home

ENV_VAR = "MGFARM_ANDROID_WORLD"
PROTOS = (
    "android_world/task_evals/information_retrieval/proto/state.proto",
    "android_world/task_evals/information_retrieval/proto/task.proto",
)
INSTALL_COMPAT = (
    "install mgfarm's compat extra (pip install 'mgfarm[compat]', or -e '.[compat]' in a checkout)"
)


def android_world_source(path: Path | None = None) -> Path | None:
    """The checkout to copy: `path`, else $MGFARM_ANDROID_WORLD; None when neither holds android_world/."""
    value = path or (Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR) else None)
    return value if value is not None and (value / "android_world" / "registry.py").is_file() else None


def require_compat() -> None:
    """Fail with one sentence when android_env or the proto compiler is missing."""
    for module, what in (("android_env", "android-env"), ("grpc_tools", "grpcio-tools")):
        if importlib.util.find_spec(module) is None:
            raise MgfarmError(f"AndroidWorld needs {what}, which is not installed; {INSTALL_COMPAT}.")


def prepare_android_world(workdir: Path | None = None, path: Path | None = None) -> Path:
    """Make AndroidWorld importable and return the folder holding android_world/.

    A checkout (`path` or $MGFARM_ANDROID_WORLD) is copied to `workdir` (default
    `$MGFARM_HOME/cache`) with its protos generated, once per version of it; without one, an
    importable `android_world` package is used as installed.
    """
    source = android_world_source(path)
    if source is None:
        if path is not None:
            raise MgfarmError(
                f"{path} holds no android_world/registry.py; pass the AndroidWorld checkout's top folder."
            )
        spec = importlib.util.find_spec("android_world")
        if spec is not None and spec.origin:
            return Path(spec.origin).parent.parent
        raise MgfarmError(
            f"AndroidWorld was not found; pass --android-world PATH or set {ENV_VAR} to a checkout of "
            "github.com/google-research/android_world (the folder holding android_world/)."
        )
    require_compat()
    target = (workdir or home() / "cache") / "android_world_copy"
    stamp = f"{source.resolve()}:{(source / 'android_world' / 'registry.py').stat().st_mtime_ns}"
    marker = target / ".mgfarm-source"
    if not (marker.is_file() and marker.read_text(errors="replace") == stamp):
        # Built aside and renamed into place, so a second process never imports a half-made copy.
        building = target.with_name(f"{target.name}.{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        shutil.copytree(source, building, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        for proto in PROTOS:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "grpc_tools.protoc",
                    f"--proto_path={building}",
                    f"--python_out={building}",
                    proto,
                ],
                check=True,
                cwd=building,
            )
        (building / ".mgfarm-source").write_text(stamp)
        shutil.rmtree(target, ignore_errors=True)  # a copy of another (or an older) AndroidWorld
        try:
            building.rename(target)
        except OSError:  # another process put its copy there first
            shutil.rmtree(building, ignore_errors=True)
    if str(target) not in sys.path:
        sys.path.insert(0, str(target))
    return target


def console_home(folder: Path, token: str) -> Path:
    """A HOME for AndroidWorld's adb calls: `adb emu` reads the console token from it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".emulator_console_auth_token"
    if not path.is_file() or path.read_text() != token:
        path.write_text(token)  # no newline: adb reads the token file untrimmed
        path.chmod(0o600)
    return folder


def make_env(adb_path: str, server_port: int, serial: str, home_dir: Path | None = None) -> Any:
    """An android_env environment over adb only (the class is made here: android_env is optional).

    `home_dir` is the HOME of its adb calls (where `adb emu` finds the console token; default this
    process's HOME).
    """
    import dm_env
    import numpy as np
    from android_env import env_interface
    from android_env.components import action_type, adb_call_parser, adb_controller, config_classes
    from android_env.proto import adb_pb2

    from mgfarm.device.device import decode_png_rgb

    class Controller(adb_controller.AdbController):
        """android_env's controller, minus its cure for a failed call (kill-server and restart):
        the server is the farm's, shared by every replica and every other run."""

        def __init__(self, config: Any) -> None:
            super().__init__(config)
            if home_dir is not None:
                self._os_env_vars["HOME"] = str(home_dir)

        def _restart_server(self, timeout: float | None = None) -> None:
            pass

    class Env(env_interface.AndroidEnvInterface):
        def __init__(self) -> None:
            config = config_classes.AdbControllerConfig(
                adb_path=adb_path, adb_server_port=server_port, device_name=serial, default_timeout=60.0
            )
            self.controller = Controller(config)
            self.parser = adb_call_parser.AdbCallParser(self.controller)

        def action_spec(self) -> dict[str, Any]:
            return {}

        def observation_spec(self) -> dict[str, Any]:
            return {}

        def _observation(self) -> dict[str, Any]:
            png = self.controller.execute_command(["exec-out", "screencap", "-p"])
            pixels = decode_png_rgb(png, serial)
            return {"pixels": pixels, "timedelta": np.array(0), "orientation": np.zeros(4)}

        def reset(self) -> dm_env.TimeStep:
            return dm_env.restart(self._observation())

        def step(self, action: dict[str, Any]) -> dm_env.TimeStep:
            if int(action.get("action_type", action_type.ActionType.LIFT)) == action_type.ActionType.TOUCH:
                h, w = self._observation()["pixels"].shape[:2]
                x, y = (float(v) for v in action["touch_position"])
                self.execute_adb_call(
                    adb_pb2.AdbRequest(tap=adb_pb2.AdbRequest.Tap(x=int(x * w), y=int(y * h)))
                )
            return dm_env.transition(0.0, self._observation())

        def close(self) -> None:
            pass

        def execute_adb_call(self, call: Any) -> Any:
            return self.parser.parse(call)

    return Env()


def async_env(adb_path: str, server_port: int, serial: str, home_dir: Path | None = None) -> Any:
    """AndroidWorld's AsyncAndroidEnv over `make_env`, reading UI elements with `uiautomator dump`."""
    from android_world.env import android_world_controller, interface

    controller = android_world_controller.AndroidWorldController(
        make_env(adb_path, server_port, serial, home_dir),
        a11y_method=android_world_controller.A11yMethod.UIAUTOMATOR,
    )
    return interface.AsyncAndroidEnv(controller)


def registry() -> dict[str, Any]:
    """AndroidWorld's task classes by name (its `android_world` family)."""
    from android_world import registry as aw_registry

    reg = aw_registry.TaskRegistry()
    return dict(reg.get_registry(reg.ANDROID_WORLD_FAMILY))


def missing_apps(app_names: Iterable[str], installed: set[str]) -> list[str]:
    """The AndroidWorld app names (a task's `app_names`) whose package is not installed on the device;
    a name AndroidWorld maps to no package counts as missing."""
    from android_world.env import adb_utils

    missing = []
    for name in app_names:
        activity = adb_utils.get_adb_activity(name)
        if activity is None or activity.split("/")[0] not in installed:
            missing.append(name)
    return sorted(missing)
