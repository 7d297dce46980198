"""The backend registry and the existing backend's input checks: what a user sees before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mgfarm.cli import app
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.backends import BACKENDS, Backend, UpFlags, backend_class, get_backend
from mgfarm.farm.backends.existing import ExistingBackend, parse_device
from mgfarm.farm.backends.process import ProcessBackend
from mgfarm.farm.config import load_config
from mgfarm.farm.images import EMULATOR_IMAGE
from mgfarm.farm.state import farm_dir
from tests.support import run_mgfarm


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    return tmp_path


def test_each_backend_is_one_registered_class_with_what_the_farm_asks_of_it() -> None:
    assert list(BACKENDS) == ["process", "docker", "emulator", "existing"]
    for name, cls in BACKENDS.items():
        assert issubclass(cls, Backend) and cls.name == name
        assert cls.snapshot_store in ("files", "image", "device")
    assert [n for n, c in BACKENDS.items() if not c.owns_devices] == ["existing"]
    process = get_backend("process", **ProcessBackend.options(UpFlags(workers=3)))
    assert isinstance(process, ProcessBackend) and process.workers == 3 and process.shared_snapshots


def test_the_emulator_entry_is_the_docker_backend_on_the_emulator_image() -> None:
    emulator = BACKENDS["emulator"]
    assert emulator.snapshot_store == "image" and emulator.owns_devices
    assert emulator.options(UpFlags())["image"] == EMULATOR_IMAGE
    assert emulator.options(UpFlags(image="mgfarm/emulator:standin"))["image"] == "mgfarm/emulator:standin"


def test_an_unknown_backend_is_refused_naming_the_choices(home: Path) -> None:
    with pytest.raises(
        MgfarmError, match=r"^Unknown backend 'vm'; use one of: process, docker, emulator, existing\.$"
    ):
        backend_class("vm")
    with pytest.raises(MgfarmError, match=r"^--backend names an unknown backend \('vm'\); use one of: "):
        load_config({"backend": "vm"})
    config = home / "mgfarm.yaml"
    config.write_text("backend: vm\n")
    with pytest.raises(MgfarmError, match=r"Setting 'backend' in .*mgfarm.yaml names an unknown backend"):
        load_config({}, path=config)
    assert not (home / "farms").exists()


def test_up_help_names_every_registered_backend() -> None:
    text = CliRunner().invoke(app, ["up", "--help"], terminal_width=200).output
    for name in BACKENDS:
        assert name in text
    assert "--device" in text


@pytest.mark.parametrize(
    ("text", "serial", "console", "adb", "network"),
    [
        ("emulator-5554", "emulator-5554", 5554, 5555, False),
        ("R58M12345", "R58M12345", 0, 0, False),
        ("127.0.0.1:6555", "127.0.0.1:6555", 0, 6555, True),
        ("10.0.0.5:5555,console=5554", "10.0.0.5:5555", 5554, 5555, True),
        ("R58M12345,console=7000", "R58M12345", 7000, 0, False),
    ],
)
def test_a_device_is_a_serial_or_an_address_with_its_console(
    text: str, serial: str, console: int, adb: int, network: bool
) -> None:
    spec = parse_device(text)
    assert (spec.serial, spec.console_port, spec.adb_port, spec.network) == (serial, console, adb, network)


@pytest.mark.parametrize(
    "text", ["", "a b", "10.0.0.5:5555,port=5554", "emulator-5554,console=x", "x,console=0"]
)
def test_a_malformed_device_is_refused_in_one_sentence(text: str) -> None:
    with pytest.raises(MgfarmError, match=r"^--device .* is not valid; .*\.$"):
        parse_device(text)


def test_existing_needs_devices_each_once_and_a_console_to_reset() -> None:
    with pytest.raises(MgfarmError, match=r"^--backend existing needs the devices to adopt; .*--device"):
        ExistingBackend.options(UpFlags())
    with pytest.raises(MgfarmError, match=r"^--device emulator-5554 is named twice"):
        ExistingBackend.options(UpFlags(devices=["emulator-5554", "emulator-5554,console=5554"]))
    backend = ExistingBackend(devices=["127.0.0.1:6555"])
    with pytest.raises(MgfarmError, match=r"^--replicas 2 does not match the 1 --device given"):
        backend.plan(2, 5554, set(), "tok", "golden")
    with pytest.raises(MgfarmError) as info:
        backend.plan(1, 5554, set(), "tok", "golden")
    assert str(info.value) == (
        "Device 127.0.0.1:6555 has no emulator console, so it cannot be reset to snapshot 'golden'; name "
        "its console (--device 127.0.0.1:6555,console=PORT) or pass --snapshot none to run episodes from "
        "its current state."
    )
    (rep,) = backend.plan(1, 5554, set(), "tok", "")  # --snapshot none: no console needed
    assert (rep.serial, rep.adb_port, rep.console_port, rep.console_token) == ("127.0.0.1:6555", 6555, 0, "")
    (rep,) = ExistingBackend(devices=["emulator-5554"]).plan(1, 5554, set(), "tok", "")
    assert (rep.serial, rep.adb_port, rep.console_port) == ("emulator-5554", 5555, 0)  # nor is one used


def test_device_with_another_backend_and_snapshot_none_with_ours_are_refused(home: Path) -> None:
    with pytest.raises(MgfarmError, match=r"^--device names devices to adopt, which the process backend"):
        api.up(1, devices=["emulator-5554"])
    with pytest.raises(MgfarmError, match=r"^--snapshot none is for adopted devices"):
        api.up(1, snapshot="none")
    assert not farm_dir("default").exists()


def test_cli_up_existing_without_device_says_so_and_leaves_nothing(home: Path) -> None:
    proc = run_mgfarm("up", "--backend", "existing", "--farm", "adopt", timeout=60)
    assert proc.returncode != 0
    said = " ".join(proc.stderr.split())  # rich wraps long lines
    assert said == (
        "error: --backend existing needs the devices to adopt; name each with --device SERIAL or "
        "--device HOST:PORT (see `adb devices`)."
    )
    assert not farm_dir("adopt").exists()
