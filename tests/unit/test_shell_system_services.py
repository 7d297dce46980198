"""System services the shell commands sit on: clock, settings, packages, providers, APK manifests."""

from __future__ import annotations

import sqlite3
import struct
import time
import zipfile
from pathlib import Path

import pytest

from mgfarm.sim.device import DeviceConfig, SimDevice
from mgfarm.sim.system.apk import apk_package, axml_package
from mgfarm.sim.system.clock import Clock
from mgfarm.sim.system.packages import PackageInfo
from mgfarm.sim.system.providers import ProviderError, Route, SqliteProvider
from mgfarm.sim.system.settings import SETTINGS_DB
from mgfarm.sim.system.space import Space


@pytest.fixture
def device(tmp_path: Path) -> SimDevice:
    dev = SimDevice(DeviceConfig("svc", 5555, tmp_path / "dev", tmp_path / "snaps"))
    dev.start_services()
    return dev


def test_services_start_with_their_databases(device: SimDevice) -> None:
    assert device.fs.host(SETTINGS_DB).is_file()
    assert device.services.settings.get("global", "wifi_on") == "1"
    assert device.services.apps == {}  # apps come with boot, after the services


def test_frozen_clock_stands_still_and_set_moves_it() -> None:
    clock = Clock()
    clock.freeze(True)
    clock.set_ms(1_700_000_000_000)
    first = clock.now_ms()
    time.sleep(0.02)
    assert clock.now_ms() == first
    clock.set_ms(1_800_000_000_000)
    assert clock.now_ms() == 1_800_000_000_000
    clock.freeze(False)
    time.sleep(0.02)
    assert clock.now_ms() > 1_800_000_000_000


def test_clock_state_round_trips() -> None:
    clock = Clock()
    clock.freeze(True)
    clock.set_ms(1_234_000)
    other = Clock()
    other.import_state(clock.export_state())
    assert other.frozen and other.now_ms() == 1_234_000


def test_settings_defaults_keep_user_changes_on_recreate(device: SimDevice) -> None:
    settings = device.services.settings
    assert settings.get("global", "wifi_on") == "1"
    settings.put("global", "wifi_on", "0")
    settings.create()  # a second boot on the same data must not reset what the user changed
    assert settings.get("global", "wifi_on") == "0"
    with pytest.raises(ValueError):
        settings.get("bogus", "x")


def test_package_clear_calls_the_app_hook_and_state_round_trips(device: SimDevice) -> None:
    packages = device.services.packages
    cleared: list[str] = []
    packages.add(PackageInfo("com.example.a", on_clear=lambda: cleared.append("a")))
    data = device.fs.host("/data/data/com.example.a/databases/x.db")
    data.parent.mkdir(parents=True)
    data.write_text("x")
    assert packages.clear("com.example.a") and cleared == ["a"] and not data.exists()
    state = packages.export_state()
    packages.remove("com.example.a")
    packages.import_state(state)
    info = packages.get("com.example.a")
    assert info is not None and info.apk_path == "/data/app/com.example.a-1/base.apk"
    assert packages.clear("com.example.a") and cleared == ["a", "a"]  # hook survives a snapshot load


def test_sqlite_provider_routes_ids_and_errors(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE items (_id INTEGER PRIMARY KEY, name TEXT, kind INTEGER)")
    provider = SqliteProvider(
        "auth",
        lambda: db,
        {"items": Route("items"), "items/big": Route("items", "kind = 2")},
        Space(tmp_path),
    )
    uri = provider.insert("content://auth/items/big", {"name": "x", "kind": 2})
    assert uri == "content://auth/items/big/1"
    provider.insert("content://auth/items", {"name": "y", "kind": 1})
    assert provider.query("content://auth/items/big", ["name"], None, [], None) == (["name"], [("x",)])
    assert provider.query("content://auth/items/2", ["name"], None, [], None)[1] == [("y",)]
    assert provider.update("content://auth/items", {"kind": 2}, "name = ?", ["y"]) == 1
    assert provider.delete("content://auth/items/big", None, []) == 2
    with pytest.raises(ProviderError):
        provider.query("content://auth/nope", None, None, [], None)
    with pytest.raises(ProviderError):
        provider.query("content://auth/items", ["no_such_column"], None, [], None)


def _axml_manifest(package: str) -> bytes:
    """A minimal binary manifest: string pool (UTF-16) + one <manifest package=...> element."""
    strings = ["manifest", "package", package]
    offsets, blob = [], b""
    for text in strings:
        offsets.append(len(blob))
        blob += struct.pack("<H", len(text)) + text.encode("utf-16-le") + b"\0\0"
    blob += b"\0" * (-len(blob) % 4)
    pool_header = 28
    strings_start = pool_header + 4 * len(strings)
    pool = struct.pack(
        "<HHIIIIII", 1, pool_header, strings_start + len(blob), len(strings), 0, 0, strings_start, 0
    )
    pool += struct.pack(f"<{len(strings)}I", *offsets) + blob
    attr = struct.pack("<IIIHBBI", 0xFFFFFFFF, 1, 2, 8, 0, 3, 2)
    ext = struct.pack("<IIHHHHHH", 0xFFFFFFFF, 0, 20, 20, 1, 0, 0, 0)
    element = struct.pack("<HHIII", 0x0102, 16, 16 + len(ext) + len(attr), 1, 0xFFFFFFFF) + ext + attr
    body = pool + element
    return struct.pack("<HHI", 3, 8, 8 + len(body)) + body


def test_apk_package_reads_binary_and_text_manifests(tmp_path: Path) -> None:
    assert axml_package(_axml_manifest("com.example.bin")) == "com.example.bin"
    binary = tmp_path / "b.apk"
    with zipfile.ZipFile(binary, "w") as zf:
        zf.writestr("AndroidManifest.xml", _axml_manifest("com.example.bin"))
    assert apk_package(binary) == "com.example.bin"
    text = tmp_path / "t.apk"
    with zipfile.ZipFile(text, "w") as zf:
        zf.writestr("AndroidManifest.xml", '<manifest xmlns:a="x" package="com.example.txt"/>')
    assert apk_package(text) == "com.example.txt"
    junk = tmp_path / "j.apk"
    junk.write_bytes(b"not a zip")
    assert apk_package(junk) is None
    assert axml_package(b"\x03\x00\x08\x00\xff\xff\xff\xff" + b"\x01" * 40) is None
