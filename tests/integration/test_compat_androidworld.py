"""AndroidWorld's own code, unchanged, against a simulated device (AndroidWorld from $MGFARM_ANDROID_WORLD).

Its adb_utils helpers, `initialize_task` of the registry tasks whose apps the sim has, and the calls
M3A makes on every step; see tests/compat/androidworld.py for how AndroidWorld is loaded.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.compat import androidworld as aw
from tests.integration.conftest import AdbServer, SimProcess

if aw.android_world_source() is None:
    pytest.skip(f"{aw.ENV_VAR} is not set to an AndroidWorld checkout", allow_module_level=True)
for module in ("android_env", "grpc_tools", "cv2", "immutabledict", "pydub"):
    pytest.importorskip(module, reason=f"{module} is missing: pip install -e '.[compat]'")

# Tasks whose apps the sim has but that fail for a reason another issue owns (app rewrites).
KNOWN_GAPS: dict[str, str] = {}


@pytest.fixture(scope="module")
def env(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    work = tmp_path_factory.mktemp("aw")
    aw.prepare_android_world(work)
    sim = SimProcess(adb_server, work, 1)
    patch = pytest.MonkeyPatch()
    patch.setenv("HOME", str(adb_server.home))  # adb emu reads the console token from $HOME
    try:
        handle = sim.wait_ready()[0]
        yield aw.async_env(str(adb_server.binary), adb_server.port, handle.serial)
    finally:
        sim.stop()
        patch.undo()


HELPERS = [
    "get_current_activity / launch_app",
    "get_screen_size / logical size / orientation / physical frame",
    "call_emulator / get_call_state / end_call_if_active / call_phone_number",
    "text_emulator (sms)",
    "contacts_utils.add_contact / list_contacts / clear_contacts",
    "datetime_utils.setup_datetime (service call alarm)",
    "airplane mode, wifi, bluetooth, brightness, get_all_settings",
    "get_all_package_names / get_api_level",
    "launch_app / close_app / close_recents / home / back / clear_app_data",
    "tap / long_press / double_tap / type_text / enter / swipe",
    "execute_sql_command",
    "controller.get_ui_elements (uiautomator)",
    "file_utils.tmp_directory_from_device (ls -ll -au, pull)",
    "grant_permissions, send_android_intent, start_activity, put_settings, headsup, root, keys",
    "change_orientation",
    "set_clipboard_contents / get_clipboard_contents (Clipper app)",
]
HELPER_GAPS: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=HELPER_GAPS[n]))
        if n in HELPER_GAPS
        else n
        for n in HELPERS
    ],
)
def test_adb_utils_helper(env: Any, name: str) -> None:
    checks = dict(aw.helper_checks(env))
    assert set(checks) == set(HELPERS), "tests/compat/androidworld.py and this list name the same helpers"
    checks[name]()


def registry_tasks() -> list[str]:
    import os
    import tempfile

    work = Path(tempfile.gettempdir()) / f"aw-registry-{os.getuid()}"
    work.mkdir(exist_ok=True)
    aw.prepare_android_world(work)
    from android_world import registry

    reg = registry.TaskRegistry().get_registry(registry.TaskRegistry.ANDROID_WORLD_FAMILY)
    return sorted(
        n
        for n, cls in reg.items()
        if set(getattr(cls, "app_names", ()) or ()) <= aw.SIM_APPS and cls.app_names
    )


@pytest.mark.parametrize("task_name", registry_tasks())
def test_initialize_task(env: Any, task_name: str) -> None:
    from android_world import registry

    gap = next((why for prefix, why in KNOWN_GAPS.items() if task_name.startswith(prefix)), None)
    if gap:
        pytest.xfail(gap)
    cls = registry.TaskRegistry().get_registry(registry.TaskRegistry.ANDROID_WORLD_FAMILY)[task_name]
    task = cls(cls.generate_random_params())
    task.initialize_task(env)
    task.tear_down(env)


class ScriptedLlm:
    """Stands for M3A's model: answers each prompt with the next scripted reply (no network)."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.prompts: list[str] = []

    def predict_mm(self, text_prompt: str, images: list[Any]) -> tuple[str, bool, Any]:
        self.prompts.append(text_prompt)
        reply = self.replies.pop(0)
        return reply, True, {"text": reply}  # M3A treats an empty raw response as a failed call


class Anything:
    """Any attribute or call gives another Anything: what M3A's module-level Gemini set-up reads."""

    def __getattr__(self, name: str) -> Anything:
        if name.startswith("__"):  # dunders (`__file__`, `__path__`) stay absent, as on real objects
            raise AttributeError(name)
        return Anything()

    def __call__(self, *args: object, **kwargs: object) -> Anything:
        return Anything()

    def __or__(self, other: object) -> Anything:  # `Type | None` in annotations
        return Anything()

    __ror__ = __or__


def stub_attribute(name: str) -> Anything:
    if name.startswith("__"):
        raise AttributeError(name)
    return Anything()


def import_m3a() -> Any:
    """M3A imports Gemini's client at module level; the tests never call a model, so when that client
    is not installed, empty modules stand in for it."""
    try:
        import google.generativeai  # noqa: F401
    except ImportError:
        names = ["google.generativeai", "google.generativeai.types"]
        names += [
            f"google.generativeai.types.{s}"
            for s in ("answer_types", "content_types", "generation_types", "safety_types")
        ]
        for name in names:
            module = types.ModuleType(name)
            # Only public names: tools that walk sys.modules (Hypothesis reads every `__file__`)
            # must see an ordinary module without a file.
            module.__getattr__ = stub_attribute  # type: ignore[method-assign]
            sys.modules.setdefault(name, module)
        sys.modules["google.generativeai"].types = sys.modules["google.generativeai.types"]  # type: ignore[attr-defined]
    from android_world.agents import m3a

    return m3a


def test_m3a_steps_on_the_device(env: Any) -> None:
    """Two M3A steps: open Settings (through its own env calls), then report the goal done."""
    m3a = import_m3a()
    llm = ScriptedLlm(
        [
            'Reason: Settings holds Wi-Fi.\nAction: {"action_type": "open_app", "app_name": "Settings"}',
            "Settings is open.",
            'Reason: done.\nAction: {"action_type": "status", "goal_status": "complete"}',
        ]
    )
    agent = m3a.M3A(env, llm)
    agent.reset(go_home_on_reset=True)
    first = agent.step("Open the settings app")
    assert not first.done
    assert env.controller is not None
    from android_world.env import adb_utils

    assert adb_utils.get_current_activity(env.controller)[0].startswith("com.android.settings/")
    second = agent.step("Open the settings app")
    assert second.done
    assert "UI element" in llm.prompts[0] or "ui element" in llm.prompts[0].lower()
