"""AndroidWorld's ContactsAddContact, unchanged, on a simulated device with the default profile (Google's
Contacts, com.google.android.contacts, over the platform's com.android.contacts provider).

AndroidWorld clears the contacts provider in `initialize_task` and judges by `content query` on
content://contacts/phones; the solution fills the editor that the Create contact button opens.

ContactsNewContactDraft judges the unsaved editor on screen: it finds the fields by `hint_text` ("First
name", "Last name", "Phone") and the number's label by text and description ("Home", "Home Phone"),
reading `env.get_state().forest`, the accessibility forwarder's tree. So it runs here as AndroidWorld
runs on an emulator: `env_launcher.load_and_setup_env` on a device serving gRPC, whose simulated
forwarder sends the forest (mgfarm/sim/system/a11y.py); only the forwarder APK's download is replaced.
An env reading `uiautomator dump` (A11yMethod.UIAUTOMATOR, the suite's) has no forest to judge.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task
from tests.integration.conftest import AdbServer, SimHandle, SimProcess
from tests.integration.phone_driver import Phone

__all__ = ["aw_device"]

ID = "com.google.android.contacts:id/"


def add_contact(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Create contact, first and last name, the number, Save."""
    first, _, last = str(raw["name"]).partition(" ")
    dev.launch("contacts")
    dev.phone.tap(desc="Create contact")
    dev.type_into(first, rid=ID + "first_name")
    if last:
        dev.type_into(last, rid=ID + "last_name")
    dev.type_into(str(raw["number"]), rid=ID + "phone")
    dev.phone.tap(text="Save")


def new_contact_draft(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Create contact, the names and the number, the number's label from its dropdown; no Save."""
    dev.launch("contacts")
    dev.phone.tap(desc="Create contact")
    dev.type_into(str(raw["first"]), rid=ID + "first_name")
    dev.type_into(str(raw["last"]), rid=ID + "last_name")
    dev.type_into(str(raw["phone"]), rid=ID + "phone")
    dev.phone.tap(desc="Mobile Phone")
    dev.phone.tap(text=str(raw["phone_label"]))


@pytest.fixture
def forwarder_env(
    adb_server: AdbServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AwDevice]:
    """AndroidWorld's own env (load_and_setup_env) on a device serving gRPC, as test_aw_load_env."""
    from tests.compat import androidworld as aw

    if aw.android_world_source() is None:
        pytest.skip(f"{aw.ENV_VAR} is not set to an AndroidWorld checkout")
    for module in ("android_env", "grpc", "portpicker", "cv2", "immutabledict", "pydub"):
        pytest.importorskip(module, reason=f"{module} is missing: pip install -e '.[compat]'")
    from mgfarm.farm.ports import free_port
    from tests.apkkit import apk_bytes
    from tests.integration.test_aw_load_env import FORWARDER, adb_on_private_server

    aw.prepare_android_world(tmp_path / "aw")
    from android_env.wrappers import a11y_grpc_wrapper
    from android_world.env import env_launcher

    grpc_port = free_port()
    sim = SimProcess(adb_server, tmp_path, 1, ["--grpc", str(grpc_port)])
    env = None
    try:
        handle: SimHandle = sim.wait_ready()[0]
        monkeypatch.setenv("HOME", str(adb_server.home))
        monkeypatch.setattr(
            a11y_grpc_wrapper, "_get_accessibility_forwarder_apk", lambda: apk_bytes(FORWARDER)
        )
        env = env_launcher.load_and_setup_env(
            console_port=handle.console_port,
            grpc_port=grpc_port,
            emulator_setup=False,
            adb_path=str(adb_on_private_server(adb_server, tmp_path)),
        )
        yield AwDevice(env, Phone(adb_server.client().device(handle.serial)))
    finally:
        if env is not None:
            env.close()
        sim.stop()


def settled_score(task: Any, env: Any) -> float:
    """The task's score once the forest of the last change has arrived (the forwarder sends it a
    moment after the screen changes, as on an emulator)."""
    deadline = time.monotonic() + 20
    while (score := task.is_successful(env)) != 1.0 and time.monotonic() < deadline:
        time.sleep(0.3)
    return float(score)


@pytest.mark.parametrize("seed", [1, 2])
def test_contacts_new_contact_draft_judged_on_the_forwarders_forest(
    forwarder_env: AwDevice, seed: int
) -> None:
    from android_world.task_evals.single import contacts

    random.seed(seed)
    raw = contacts.ContactsNewContactDraft.generate_random_params()
    task = contacts.ContactsNewContactDraft(dict(raw))
    task.initialize_task(forwarder_env.env)
    try:
        assert task.is_successful(forwarder_env.env) == 0.0
        forwarder_env.phone.home()
        new_contact_draft(forwarder_env, task, raw)
        assert settled_score(task, forwarder_env.env) == 1.0, task.goal
        forwarder_env.phone.tap(desc="Cancel")  # the draft is never saved
        assert "No result found." in forwarder_env.phone.content("content://contacts/phones")
    finally:
        task.tear_down(forwarder_env.env)


@pytest.mark.parametrize("seed", [1, 2])
def test_contacts_add_contact(aw_device: AwDevice, seed: int) -> None:
    from android_world.task_evals.single import contacts

    run_task(aw_device, contacts.ContactsAddContact, seed, add_contact)
