"""`mgfarm doctor` reports this host truthfully."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mgfarm.cli import app
from mgfarm.doctor import adb_server_version, check_image_builder, check_kvm, image_builder_problem, port_free


def test_doctor_json_names_every_piece() -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    checks = {c["name"]: c for c in json.loads(result.output)}
    for name in ("python", "adb", "docker engine", "image builder", "kvm", "default ports"):
        assert name in checks
    for check in checks.values():
        if not check["ok"]:
            assert check["fix"], f"{check['name']} is missing but says no fix"


def test_kvm_check_matches_the_device_node() -> None:
    usable = os.path.exists("/dev/kvm") and os.access("/dev/kvm", os.R_OK | os.W_OK)
    assert check_kvm().ok is usable


def test_port_free_sees_a_listener() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert not port_free(port)
    assert port_free(port)


def test_adb_server_version_is_none_without_a_server() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert adb_server_version(port) is None


def _tools(folder: Path, *names: str) -> str:
    """A PATH holding only stand-in executables with these names."""
    for name in names:
        tool = folder / name
        tool.write_text("#!/bin/sh\nexit 0\n")
        tool.chmod(0o755)
    return str(folder)


def test_image_builder_without_any_bootstrapper_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _tools(tmp_path))
    problem = image_builder_problem()
    assert problem is not None and "apt-get install mmdebstrap" in problem
    check = check_image_builder()
    assert not check.ok and "apt-get install mmdebstrap" in check.fix


def test_image_builder_as_root_needs_only_mmdebstrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", _tools(tmp_path, "mmdebstrap"))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert image_builder_problem() is None
    assert check_image_builder().ok


def test_image_builder_without_root_needs_an_id_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setenv("PATH", _tools(tmp_path, "debootstrap"))
    assert "debootstrap needs root" in (image_builder_problem() or "")
    monkeypatch.setenv("PATH", _tools(tmp_path, "mmdebstrap"))
    assert "uidmap" in (image_builder_problem() or "")
    check = check_image_builder()
    assert not check.ok and "usermod --add-subuids" in check.fix
