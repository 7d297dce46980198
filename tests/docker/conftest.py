"""Docker fixtures: skip with a reason when no engine answers (never when one does); images built once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from docker import DockerClient
from mgfarm.adb.binary import find_adb
from mgfarm.adb.server import ensure_server, kill_server
from mgfarm.doctor import image_builder_problem
from mgfarm.errors import MgfarmError
from mgfarm.farm.images import BASE_IMAGE, SIM_IMAGE, build_images, docker_client
from mgfarm.farm.ports import free_port


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.docker)
            # The first test also pays for building the base and sim images (minutes on 2 busy cores).
            item.add_marker(pytest.mark.timeout(900))


@pytest.fixture(scope="session")
def engine() -> DockerClient:
    try:
        return docker_client()
    except MgfarmError as exc:
        pytest.skip(f"no Docker engine reachable: {exc}")


@pytest.fixture(scope="session")
def sim_image(engine: DockerClient) -> str:
    """Base and sim images; reused when their recipe labels match the sources."""
    has_base = any(BASE_IMAGE in image.tags for image in engine.images.list(name=BASE_IMAGE.split(":")[0]))
    problem = None if has_base else image_builder_problem()
    if problem is not None:
        pytest.skip(f"no {BASE_IMAGE} image and {problem}")
    build_images(print, "all")
    return SIM_IMAGE


@pytest.fixture
def farm_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "mgfarm-home"
    monkeypatch.setenv("MGFARM_HOME", str(home))
    return home


@pytest.fixture(scope="module")
def adb_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A private adb server, so tests never touch 5037 or the user's managed one."""
    find_adb()
    port = free_port()
    os.environ.setdefault("ADB_MDNS", "0")
    ensure_server(port)
    try:
        yield port
    finally:
        kill_server(port)
