"""Golden snapshots on the process backend: build the shipped recipe, boot a farm into it, see the
seeded data over ADB, reset back to it, and refuse a snapshot whose manifest does not fit."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.ports import quiet_range_start
from mgfarm.farm.state import farm_dir, farm_exists
from mgfarm.snapshots.build import build
from mgfarm.snapshots.farm import up as farm_up
from mgfarm.snapshots.manifest import Manifest, manifest_path, read_manifest
from mgfarm.snapshots.recipe import load_recipe
from tests.integration.conftest import AdbServer
from tests.support import run_mgfarm

GOLDEN = load_recipe("golden")


def _seed(kind: str) -> list[Any]:
    return [step[kind] for step in GOLDEN.seed if isinstance(step, dict) and kind in step]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("snaphome")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MGFARM_HOME", str(path))
        yield path


@pytest.fixture(scope="module")
def golden(home: Path, adb_server: AdbServer) -> Manifest:
    return build("golden", backend="process", adb_port=adb_server.port)


@pytest.fixture(scope="module")
def farm(golden: Manifest, adb_server: AdbServer) -> Iterator[list[Device]]:
    state = farm_up(2, name="golden-test", adb_port=adb_server.port, first_port=quiet_range_start(2))
    devices = [
        Device(r.serial, adb_port=adb_server.port, console_port=r.console_port, console_token=r.console_token)
        for r in state.replicas
    ]
    try:
        yield devices
    finally:
        for device in devices:
            device.close()
        api.down("golden-test")


def test_build_writes_a_manifest_and_leaves_nothing_running(golden: Manifest) -> None:
    assert golden.backend == "process"
    assert golden.recipe_hash == GOLDEN.content_hash()
    assert (golden.screen.width, golden.screen.height, golden.screen.density) == (1080, 2400, 420)
    assert read_manifest("process", "golden") == golden
    assert not farm_exists("snapshot-build-golden")
    assert not farm_dir("snapshot-build-golden").exists()  # its device processes and data are gone


def test_farm_boots_into_the_seeded_state(farm: list[Device]) -> None:
    names = {c["name"] for c in _seed("add_contact")}
    inbox = {v["values"]["body"] for v in _seed("content_insert") if v["uri"] == "content://sms/inbox"}
    events = {v["values"]["title"] for v in _seed("content_insert") if "calendar" in v["uri"]}
    files = {f["path"] for f in _seed("push_file")}
    for device in farm:
        phones = device.content_query("content://contacts/phones", projection=["display_name", "number"])
        assert {row["display_name"] for row in phones} == names
        rows = device.content_query("content://sms/inbox", projection=["body"])
        assert {row["body"] for row in rows} == inbox
        rows = device.content_query("content://com.android.calendar/events", projection=["title"])
        assert {row["title"] for row in rows} >= events
        assert device.settings_get("global", "wifi_on") == "1"
        assert device.getprop("persist.sys.locale") == "en-US"
        assert device.shell("date +%Y-%m-%d") == "2026-03-04"
        for path in files:
            assert device.shell2(f"ls {path}").exit_code == 0, path


def test_reset_returns_to_the_snapshot(farm: list[Device]) -> None:
    device = farm[0]
    device.settings_put("global", "wifi_on", "0")
    device.shell("rm /sdcard/Documents/shopping_list.txt")
    device.snapshot_load("golden")
    assert device.settings_get("global", "wifi_on") == "1"
    assert device.shell("cat /sdcard/Documents/shopping_list.txt").splitlines() == ["milk", "eggs", "bread"]


def _edit_manifest(changes: dict[str, Any]) -> str:
    path = manifest_path("process", "golden")
    original = path.read_text()
    data = json.loads(original)
    data.update(changes)
    path.write_text(json.dumps(data))
    return original


def test_other_screen_size_is_refused_and_nothing_is_left(golden: Manifest, adb_server: AdbServer) -> None:
    original = _edit_manifest({"screen": {"width": 720, "height": 1280, "density": 320}})
    try:
        with pytest.raises(MgfarmError) as info:
            farm_up(1, name="mismatch", adb_port=adb_server.port, first_port=quiet_range_start(1))
    finally:
        manifest_path("process", "golden").write_text(original)
    assert "saved on a 720x1280 at 320 dpi screen" in str(info.value)
    assert "mgfarm snapshot build golden" in str(info.value)
    assert not farm_exists("mismatch")


def test_a_stale_snapshot_is_refused_until_rebuilt(golden: Manifest, adb_server: AdbServer) -> None:
    original = _edit_manifest({"recipe_hash": "0123456789ab"})  # as if the recipe changed since
    try:
        with pytest.raises(MgfarmError) as info:
            farm_up(1, name="stale", adb_port=adb_server.port, first_port=quiet_range_start(1))
    finally:
        manifest_path("process", "golden").write_text(original)
    assert str(info.value) == (
        f"Snapshot 'golden' is stale: its recipe changed after it was built (0123456789ab -> "
        f"{GOLDEN.content_hash()}); rebuild it with `mgfarm snapshot build golden`."
    )
    assert not farm_exists("stale") and not farm_dir("stale").exists()


def test_cli_refuses_a_snapshot_from_another_build_in_one_sentence(
    golden: Manifest, adb_server: AdbServer, home: Path
) -> None:
    original = _edit_manifest({"mgfarm_version": "0.0.0-other"})
    try:
        args = ["up", "--replicas", "1", "--name", "clash", "--adb-port", str(adb_server.port)]
        proc = run_mgfarm(
            *args,
            timeout=120,
            env={**os.environ, "MGFARM_HOME": str(home), "COLUMNS": "300"},
        )
    finally:
        manifest_path("process", "golden").write_text(original)
    assert proc.returncode != 0
    assert "built by mgfarm 0.0.0-other" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not farm_exists("clash")


def test_a_golden_built_on_aosp_boots_aosp_farms_and_no_others(
    adb_server: AdbServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "aosp-home"))  # a store of its own
    manifest = build("golden", backend="process", adb_port=adb_server.port, profile="aosp")
    assert manifest.profile == "aosp"
    with pytest.raises(MgfarmError, match=r"built on device profile aosp, not android13; "):
        farm_up(1, name="g13", adb_port=adb_server.port, first_port=quiet_range_start(1))
    assert not farm_exists("g13")
    state = farm_up(
        1, name="gaosp", adb_port=adb_server.port, first_port=quiet_range_start(1), profile="aosp", grpc=False
    )
    device = Device(state.replicas[0].serial, adb_port=adb_server.port, profile=state.profile)
    try:
        packages = set(device.packages())
        assert "com.android.contacts" in packages and "com.google.android.contacts" not in packages
        rows = device.content_query("content://com.android.contacts/raw_contacts", ["_id"])
        assert len(rows) == len(_seed("add_contact"))  # the recipe's seed, on AOSP's Contacts
    finally:
        device.close()
        api.down("gaosp")
