"""The emulator image path in Docker, end to end: run on the STAND-IN emulator image here (a simulated
device behind the emulator image's entrypoint, health check and layout), and on the real emulator
image (`emulator` marker) where /dev/kvm is usable and mgfarm/emulator:latest was built.

Checked: image-driven CPU/memory defaults and a non-root user, a health check that follows the
device, a snapshot build that stops the emulator cleanly and commits no secret and no lock, a plain
`up` that finds the snapshot's image, a tag naming the base image, and `snapshot rm`."""

from __future__ import annotations

import contextlib
import io
import os
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.farm.images import EMULATOR_IMAGE, build_images
from mgfarm.farm.ports import quiet_range_start
from mgfarm.snapshots.build import build
from mgfarm.snapshots.farm import up as farm_up
from mgfarm.snapshots.manifest import MANIFEST_LABEL, Manifest, read_manifest, remove_snapshot, secret_paths
from mgfarm.snapshots.recipe import load_recipe

GOLDEN = load_recipe("golden")


def _real_image(engine: Any) -> str:
    """The real emulator image, or a skip saying what is missing."""
    if not os.path.exists("/dev/kvm") or not os.access("/dev/kvm", os.R_OK | os.W_OK):
        pytest.skip("no usable /dev/kvm on this host; the real emulator needs KVM")
    if not engine.images.list(name=EMULATOR_IMAGE):
        pytest.skip(
            f"{EMULATOR_IMAGE} is not built; `mgfarm images build emulator --accept-android-sdk-licenses` "
            "builds it (needs internet)"
        )
    return EMULATOR_IMAGE


@pytest.fixture(scope="module", params=["standin", pytest.param("real", marks=pytest.mark.emulator)])
def emulator_image(request: pytest.FixtureRequest, engine: Any, sim_image: str) -> str:
    if request.param == "real":
        return _real_image(engine)
    build_images(print, "emulator-standin")
    return "mgfarm/emulator:standin"


@pytest.fixture
def golden(engine: Any, emulator_image: str, farm_home: Path, adb_port: int) -> Iterator[Manifest]:
    manifest = build("golden", backend="docker", image=emulator_image, adb_port=adb_port, boot_timeout=600)
    try:
        yield manifest
    finally:
        with contextlib.suppress(Exception):
            engine.images.remove(manifest.snapshot_image, force=True)


def _file_in_image(engine: Any, image: str, path: str) -> bool:
    container = engine.containers.create(image, entrypoint=["true"])
    try:
        container.get_archive(path)
        return True
    except Exception:  # docker.errors.NotFound
        return False
    finally:
        container.remove(force=True)


def _locks_in_image(engine: Any, image: str) -> list[str]:
    container = engine.containers.create(image, entrypoint=["true"])
    try:
        stream, _ = container.get_archive("/home/mgfarm/.android/avd")
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            return [m.name for m in tar.getmembers() if m.name.endswith(".lock")]
    finally:
        container.remove(force=True)


def _health(engine: Any, container_id: str, want: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        status = engine.containers.get(container_id).attrs["State"].get("Health", {}).get("Status", "")
        if status == want:
            return status
        time.sleep(1)
    return status


@pytest.mark.timeout(1500)
def test_snapshot_build_commits_a_clean_image_that_a_plain_up_runs(
    engine: Any, emulator_image: str, golden: Manifest, adb_port: int
) -> None:
    labels = engine.images.get(emulator_image).labels
    # The tag names the base image; the manifest records what the snapshot is bound to.
    assert golden.snapshot_image.endswith("-on-" + emulator_image.replace("/", "-").replace(":", "-"))
    assert (golden.ram_mb, golden.cores, golden.gpu_mode) == (2048, 2, "swiftshader_indirect")
    assert MANIFEST_LABEL in engine.images.get(golden.snapshot_image).labels
    # A clean stop before the commit: no secret, no AVD lock in the image.
    for path in secret_paths(labels):
        assert not _file_in_image(engine, golden.snapshot_image, path), path
    assert _locks_in_image(engine, golden.snapshot_image) == []

    # No --image: the farm runs the image the build committed, with the image's resources.
    farm = farm_up(1, backend="docker", name="emu-plain", adb_port=adb_port, first_port=quiet_range_start(1))
    try:
        assert farm.image == golden.snapshot_image
        container = engine.containers.get(farm.replicas[0].backend_id)
        host = container.attrs["HostConfig"]
        assert host["NanoCpus"] == 2 * 10**9
        assert host["Memory"] == 4 * 1024**3
        assert container.attrs["Config"]["User"] not in ("", "root", "0")
        rows = Device(farm.replicas[0].serial, adb_port=adb_port).content_query(
            "content://contacts/phones", projection=["display_name"]
        )
        names = {s["add_contact"]["name"] for s in GOLDEN.seed if "add_contact" in s}
        assert {r["display_name"] for r in rows} == names
        assert _health(engine, container.id, "healthy", 300) == "healthy"
    finally:
        api.down("emu-plain")

    # An explicit base image is refused with a fix that works (the fix is the plain up above).
    with pytest.raises(MgfarmError, match="or without --image"):
        farm_up(1, backend="docker", name="emu-base", image=emulator_image, adb_port=adb_port)

    removed = remove_snapshot("golden", "docker")
    assert f"image {golden.snapshot_image}" in removed
    assert read_manifest("docker", "golden") is None
    assert not engine.images.list(name=golden.snapshot_image)


@pytest.mark.timeout(900)
def test_the_health_check_follows_the_device_not_a_process(
    engine: Any, emulator_image: str, farm_home: Path, adb_port: int
) -> None:
    farm = farm_up(1, backend="docker", name="emu-health", image=emulator_image, adb_port=adb_port)
    try:
        container = engine.containers.get(farm.replicas[0].backend_id)
        assert _health(engine, container.id, "healthy", 300) == "healthy"
        assert container.exec_run(["python3", "/usr/local/bin/healthcheck.py"]).exit_code == 0
        # Freeze the device but keep every process alive: a hung guest must turn unhealthy.
        device = "mgfarm.sim serve" if "standin" in emulator_image else "qemu-system"
        freeze = (
            "import os, signal, subprocess\n"
            f"pids = subprocess.run(['pgrep', '-f', {device!r}], capture_output=True, text=True).stdout\n"
            "pids = [int(p) for p in pids.split() if int(p) != os.getpid()]  # not this probe\n"
            "for pid in pids: os.kill(pid, signal.SIGSTOP)\n"
            "raise SystemExit(0 if pids else 1)\n"
        )
        assert container.exec_run(["python3", "-c", freeze]).exit_code == 0
        result = container.exec_run(["python3", "/usr/local/bin/healthcheck.py"])
        assert result.exit_code == 1, result.output
        assert b"unhealthy" in result.output
    finally:
        api.down("emu-health")
