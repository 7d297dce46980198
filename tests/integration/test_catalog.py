"""The catalog proves its judges on sim devices: oracle and alternatives accepted, adversaries rejected."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.env.env import MobileEnv
from mgfarm.env.runner import run_jobs
from mgfarm.errors import MgfarmError
from mgfarm.farm.state import FarmState
from mgfarm.tasks.agents import ScriptedAgent
from mgfarm.tasks.jobs import Job
from mgfarm.tasks.schema import TaskInstance
from mgfarm.tasks.steps import apply_steps
from tests.support import private_farm, run_mgfarm

mgfarm = partial(run_mgfarm, timeout=900)
WHOLE_CATALOG_SECONDS = 2400  # 216 templates at seed 0: about 16 minutes on a shared 2-core host
CATALOG = load_catalog()


@pytest.fixture
def home_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "MGFARM_HOME": str(tmp_path / "home"), "COLUMNS": "160"}


@pytest.mark.timeout(WHOLE_CATALOG_SECONDS + 300)
def test_whole_catalog_passes_its_adversary_matrix(home_env: dict[str, str]) -> None:
    # On the shipped golden snapshot (a lived-in phone), the world users' farms boot into: every
    # template's whole matrix at seed 0 in UTC, the CI subset of the full proof (`mgfarm tasks check
    # --seeds 3`, every seed in UTC, Los Angeles and Kolkata; docs/tasks.md has its figures).
    built = mgfarm("snapshot", "build", "golden", env=home_env)
    assert built.returncode == 0, built.stdout + built.stderr
    proc = run_mgfarm(
        "tasks",
        "check",
        "--seeds",
        "1",
        "--zone-per-seed",
        "--replicas",
        "3",
        env=home_env,
        timeout=WHOLE_CATALOG_SECONDS,
    )
    tail = proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    last = [line for line in proc.stdout.splitlines() if line.strip()][-1]
    assert last == "false accepts 0, false rejects 0", tail
    count = len(load_catalog().suite("all"))
    assert f"{count} templates x 1 seeds x 3 time zones, one zone per seed" in proc.stdout


BROKEN = """\
- id: broken.accepts_anything
  apps: [settings]
  goal: "Is Wi-Fi on?"
  difficulty: L1
  answer: {wifi: boolean}
  setup:
    - settings: {global: {wifi_on: 1}}
  judge:
    any:
      - settings.equals: {namespace: global, key: wifi_on, value: 0}
      - settings.equals: {namespace: global, key: wifi_on, value: 1}
  oracle:
    - open_app: Settings
    - answer: {wifi: "yes"}
- id: broken.rejects_oracle
  apps: [settings]
  goal: "Turn Bluetooth off."
  difficulty: L1
  setup:
    - settings: {global: {bluetooth_on: 1, wifi_on: 1}}
  outcome: [{setting: {key: global.wifi_on, value: 0}}]
  oracle:
    - open_app: Settings
    - click: {text: "Connected devices"}
    - click: {text: "Bluetooth"}
"""


def test_check_exits_non_zero_on_false_accept_and_false_reject(
    home_env: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "extra"
    folder.mkdir()
    (folder / "broken.yaml").write_text(textwrap.dedent(BROKEN))
    proc = mgfarm(
        "tasks",
        "check",
        "broken.*",
        "--seeds",
        "1",
        "--replicas",
        "2",
        "--timezones",
        "UTC",
        env={**home_env, "MGFARM_TASKS": str(folder)},
    )
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    # Answering nothing passes a judge that accepts any state: every adversary is a false accept.
    assert "broken.accepts_anything: nothing/nothing seed 0 UTC: false-accept" in out
    # The oracle turns Bluetooth off, which the outcome neither requires nor allows.
    assert "broken.rejects_oracle: oracle/oracle seed 0 UTC: false-reject" in out
    assert "unexpected update settings.global[bluetooth_on]: value '1' -> '0'" in out
    # A judge with no expected answer leaves the other-words and from-screen paths nothing to say:
    # a correct path that cannot be played is no pass.
    assert "broken.accepts_anything: alternative/other_words seed 0 UTC: false-reject" in out
    assert "broken.accepts_anything: alternative/from_screen seed 0 UTC: false-reject" in out
    last = [line for line in proc.stdout.splitlines() if line.strip()][-1]
    assert last.startswith("false accepts ") and not last.startswith("false accepts 0,")
    assert last.endswith("false rejects 3")


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FarmState]:
    with private_farm(tmp_path_factory.mktemp("home"), 1) as state:
        yield state


def test_overdoing_is_not_success_and_names_the_extra_change(farm: FarmState) -> None:
    # Solves the goal but also flips Bluetooth: the steps of the Wi-Fi-and-Bluetooth task.
    def overdoer(instance: TaskInstance) -> ScriptedAgent:
        return ScriptedAgent(CATALOG.get("settings.wifi_and_bluetooth_off").oracle, instance)

    [result] = run_jobs([Job(CATALOG.get("settings.wifi_off"), 0, overdoer)], farm)
    assert result.error == ""
    assert not result.success and not result.clean
    assert result.progress == 0.0  # one required change made, one unexpected
    assert [e.split(":")[0] for e in result.side_effects] == ["update settings.global[bluetooth_on]"]
    [required] = [c for c in result.checks if c["name"] == "outcome.setting"]
    assert required["ok"]


def test_a_missing_snapshot_is_one_error_naming_it_before_any_episode(farm: FarmState) -> None:
    with pytest.raises(MgfarmError, match="no-such-snapshot"):
        run_jobs([Job(CATALOG.get("settings.wifi_off"), 0, "oracle")], farm, snapshot="no-such-snapshot")
    [result] = run_jobs(
        [Job(CATALOG.get("settings.wifi_off"), 0, "oracle")], farm
    )  # the lease was given back
    assert result.success, result.error


def test_setup_steps_change_the_device_and_fail_loudly(farm: FarmState) -> None:
    env = MobileEnv(farm=farm.name)  # leases the replica
    device = env.device
    device.snapshot_load(farm.snapshot)
    apply_steps(
        device,
        [
            {"settings": {"global": {"wifi_on": "{w}"}, "system": {"screen_brightness": 42}}},
            {"set_time": "2026-07-01 12:34"},
            {"push_file": {"path": "/sdcard/Download/{name}.txt", "text": "hi {name}"}},
            {
                "content_insert": {
                    "uri": "content://sms/inbox",
                    "values": {"address": "5550001111", "body": "yo"},
                }
            },
            {
                "sql": {
                    "db": "alarms",
                    "sql": "INSERT INTO alarm_templates (hour, minutes, daysofweek, "
                    "enabled, vibrate, label) VALUES (23, 59, 0, 1, 1, 'late')",
                }
            },
            {"repeat": {"times": 2, "steps": [{"add_contact": {"name": "Rep {i}", "phone": "55500000{i}"}}]}},
            {"open_app": "Clock"},
        ],
        CATALOG,
        {"w": 0, "name": "memo"},
    )
    assert device.settings_get("global", "wifi_on") == "0"
    assert device.settings_get("system", "screen_brightness") == "42"
    assert device.shell("date +%Y-%m-%d").strip() == "2026-07-01"
    assert device.pull("/sdcard/Download/memo.txt") == b"hi memo"
    assert any(r["body"] == "yo" for r in device.content_query("content://sms/inbox"))
    names = {r["display_name"] for r in device.content_query("content://com.android.contacts/contacts")}
    assert {"Rep 1", "Rep 2"} <= names
    assert (device.current_app() or ("", ""))[0] == "com.google.android.deskclock"
    with pytest.raises(MgfarmError, match="Setup step sql failed"):
        apply_steps(device, [{"sql": {"db": "alarms", "sql": "INSERT INTO nowhere VALUES (1)"}}], CATALOG)
    with pytest.raises(MgfarmError, match="Unknown app"):
        apply_steps(device, [{"open_app": "Solitaire"}], CATALOG)
    env.close()
