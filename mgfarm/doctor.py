"""`mgfarm doctor`: what this host can run, and how to fix what is missing."""

from __future__ import annotations

import getpass
import os
import platform
import shutil
import socket
import sys
from dataclasses import asdict, dataclass

from rich.table import Table

from mgfarm.errors import MgfarmError
from mgfarm.farm.ports import FIRST_CONSOLE_PORT

FIRST_DEVICE_PORTS = (FIRST_CONSOLE_PORT, FIRST_CONSOLE_PORT + 1)


@dataclass
class Check:
    """One line of the report."""

    name: str
    ok: bool
    detail: str
    blocks: str = ""  # what cannot work while this is missing
    fix: str = ""  # how to fix it

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def check_python() -> Check:
    version = platform.python_version()
    ok = sys.version_info >= (3, 10)
    return Check("python", ok, version, "everything", "" if ok else "Install Python 3.10 or newer.")


def check_adb() -> Check:
    from mgfarm.adb.binary import adb_version, find_adb

    try:
        adb = find_adb()
    except MgfarmError as exc:
        return Check("adb", False, str(exc), "every farm", "apt-get install adb")
    return Check("adb", True, f"{adb} version {adb_version(adb)}")


def adb_server_version(port: int) -> int | None:
    """The internal version of an adb server listening on port, or None when none answers."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.sendall(b"000chost:version")
            if sock.recv(4) != b"OKAY":
                return None
            length = int(sock.recv(4), 16)
            return int(sock.recv(length), 16)
    except (OSError, ValueError):
        return None


def check_adb_servers() -> list[Check]:
    # Farms never use this server: each starts a private one that sees only its own devices.
    port = 5037
    version = adb_server_version(port)
    if version is None:
        return [Check("default adb server", True, f"not running on 127.0.0.1:{port} (farms use their own)")]
    return [Check("default adb server", True, f"running on 127.0.0.1:{port}, protocol version {version}")]


def check_docker() -> list[Check]:
    from mgfarm.farm.images import docker_client

    try:
        client = docker_client()
        info = client.version()
    except MgfarmError as exc:
        reason = str(exc)
        return [
            Check(
                "docker engine",
                False,
                reason,
                "the docker backend and `make images`",
                "Install and start Docker (apt-get install docker.io), or use --backend process.",
            )
        ]
    checks = [
        Check("docker engine", True, f"version {info.get('Version', '?')} (API {info.get('ApiVersion')})")
    ]
    tags = sorted(t for image in client.images.list() for t in image.tags if t.startswith("mgfarm/"))
    if tags:
        checks.append(Check("mgfarm images", True, ", ".join(tags)))
    else:
        problem = image_builder_problem()
        fix = "make images" if problem is None else f"{problem.split('; ', 1)[-1]}, then make images"
        checks.append(Check("mgfarm images", False, "none built yet", "the docker backend", fix))
    client.close()
    return checks


def _has_subordinate_ids(user: str) -> bool:
    """Whether /etc/subuid and /etc/subgid both give `user` a range (mmdebstrap's unshare mode needs it)."""
    for path in ("/etc/subuid", "/etc/subgid"):
        try:
            with open(path) as f:
                if not any(line.split(":", 1)[0] == user for line in f):
                    return False
        except OSError:
            return False
    return True


def image_builder_problem() -> str | None:
    """Why this host cannot build the base image (`make images`), or None when it can."""
    mmdebstrap = shutil.which("mmdebstrap") is not None
    if not mmdebstrap and shutil.which("debootstrap") is None:
        return "building the base image needs mmdebstrap; install it with 'apt-get install mmdebstrap'"
    if os.geteuid() == 0:
        return None
    if not mmdebstrap:
        return "debootstrap needs root; install mmdebstrap ('apt-get install mmdebstrap'), which does not"
    user = getpass.getuser()
    if shutil.which("newuidmap") is None or not _has_subordinate_ids(user):
        return (
            f"mmdebstrap without root needs newuidmap and an id range for {user}; 'apt-get install uidmap' "
            f"and 'usermod --add-subuids 100000-165535 --add-subgids 100000-165535 {user}', or build as root"
        )
    return None


def check_image_builder() -> Check:
    problem = image_builder_problem()
    if problem is None:
        tool = "mmdebstrap" if shutil.which("mmdebstrap") else "debootstrap"
        return Check("image builder", True, f"{tool} can build the base image")
    fix = problem.split("; ", 1)[-1]
    return Check(
        "image builder", False, problem.split("; ", 1)[0], "`make images` and the docker backend", fix
    )


def check_kvm() -> Check:
    path = "/dev/kvm"
    if not os.path.exists(path):
        return Check(
            "kvm",
            False,
            f"{path} does not exist",
            "the real-emulator image (simulated devices do not need it)",
            "Enable virtualisation in the BIOS/hypervisor and load kvm_intel or kvm_amd.",
        )
    try:
        fd = os.open(path, os.O_RDWR)
        os.close(fd)
    except OSError as exc:
        return Check(
            "kvm",
            False,
            f"{path} exists but cannot be opened ({exc.strerror})",
            "the real-emulator image",
            "Add your user to the kvm group: sudo usermod -aG kvm $USER",
        )
    return Check("kvm", True, f"{path} is usable")


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def check_ports() -> Check:
    busy = [p for p in FIRST_DEVICE_PORTS if not port_free(p)]
    if busy:
        return Check(
            "default ports",
            True,
            f"{', '.join(map(str, busy))} in use: a farm will skip to the next free console/adb pair",
        )
    return Check("default ports", True, f"console/adb {FIRST_DEVICE_PORTS[0]}/{FIRST_DEVICE_PORTS[1]} free")


def run_checks() -> list[Check]:
    return [
        check_python(),
        check_adb(),
        *check_adb_servers(),
        *check_docker(),
        check_image_builder(),
        check_kvm(),
        check_ports(),
    ]


def render_table(checks: list[Check]) -> Table:
    table = Table(title="mgfarm doctor", show_lines=False)
    table.add_column("check")
    table.add_column("")
    table.add_column("detail")
    for c in checks:
        mark = "[green]ok[/]" if c.ok else "[red]missing[/]"
        detail = c.detail
        if not c.ok:
            detail += f"\n[dim]blocks:[/] {c.blocks}\n[dim]fix:[/] {c.fix}"
        table.add_row(c.name, mark, detail)
    return table
