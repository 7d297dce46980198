"""`mgfarm doctor` reports this host truthfully."""

from __future__ import annotations

import json
import os
import socket

from typer.testing import CliRunner

from mgfarm.cli import app
from mgfarm.doctor import adb_server_version, check_kvm, port_free


def test_doctor_json_names_every_piece() -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    checks = {c["name"]: c for c in json.loads(result.output)}
    for name in ("python", "adb", "docker engine", "kvm", "default ports"):
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
