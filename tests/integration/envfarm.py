"""Helpers for env tests: a farm state file over fixture sim devices, and a tiny task catalog.

The farm is only a state file (what `mgfarm up` would write): leases, make() and EnvPool read it,
and the devices are the real `mgfarm sim serve` processes of the `sim_devices` fixture.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from mgfarm.device import Device
from mgfarm.farm.state import READY, FarmState, Replica, save_farm
from tests.integration.conftest import AdbServer, SimHandle

TASK_ID = "envtest.wifi_off_note"
PROBE_DB = "/data/local/tmp/envtest.db"
POOL_TASK_ID = "envtest.open_settings"
TASKS_YAML = """\
- id: envtest.open_settings
  apps: [settings]
  goal: "Open the Settings app, then answer done."
  difficulty: L1
  setup:
    - open_app: home
  answer: {word: text}
  judge:
    all:
      - ui.current_app: {package: com.android.settings}
      - answer.equals: {field: word, value: done}
  max_steps: 5
  oracle:
    - open_app: Settings
    - answer: {word: done}
- id: envtest.wifi_off_note
  apps: [settings]
  goal: "Turn Wi-Fi off and save a note named {name}."
  difficulty: L1
  params:
    name: {choice: [alpha, beta, gamma, delta]}
  setup:
    - settings: {global: {wifi_on: 1}}
  outcome:
    - setting: {key: global.wifi_on, value: 0}
    - file: {path: "/sdcard/Download/{name}.txt", exists: true}
  max_steps: 6
  oracle:
    - open_app: Settings
"""


def install_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "envtest.yaml").write_text(textwrap.dedent(TASKS_YAML))
    monkeypatch.setenv("MGFARM_TASKS", str(folder))


def prepare_golden(device: Device) -> None:
    """Seed a database row and a setting, then save the snapshot resets go back to."""
    device.wait_ready(30)
    device.shell(f"rm -f {PROBE_DB}")
    device.sqlite(
        PROBE_DB, "CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES ('row', 'orig');"
    )
    device.settings_put("system", "screen_brightness", 77)
    device.snapshot_save("golden")


def make_farm(
    name: str, server: AdbServer, sims: list[SimHandle], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> FarmState:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "home"))
    replicas = [
        Replica(
            index=i,
            serial=h.serial,
            adb_port=h.adb_port,
            console_port=h.console_port,
            console_token=h.token,
            backend_id=f"pid:{h.process.pid}",
            state=READY,
            started_at=time.time(),
        )
        for i, h in enumerate(sims)
    ]
    farm = FarmState(
        name=name, backend="process", adb_server_port=server.port, snapshot="golden", replicas=replicas
    )
    save_farm(farm)
    for h in sims:
        prepare_golden(Device(h.serial, adb_port=server.port, console_token=h.token))
    return farm
