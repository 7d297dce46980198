"""The emulator path's defects of issue 20, each checked without Docker: resource defaults per image
kind, the licence switch, checksummed downloads and a non-root image, snapshot tags naming their
base image, `up` finding a docker snapshot's image, `snapshot rm`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mgfarm.cli import app
from mgfarm.errors import MgfarmError
from mgfarm.farm.backends.docker import check_guest_memory, memory_mib
from mgfarm.farm.images import KIND_DEFAULTS, build_images, docker_client, resource_defaults
from mgfarm.snapshots.manifest import (
    Manifest,
    Screen,
    built_image,
    check_manifest,
    read_manifest,
    remove_snapshot,
    secret_paths,
    snapshot_tag,
    write_manifest,
)

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "docker/emulator/Dockerfile").read_text()
STANDIN_DOCKERFILE = (REPO / "docker/emulator/standin/Dockerfile").read_text()


def _labels(dockerfile: str) -> dict[str, str]:
    return dict(re.findall(r'(org\.mgfarm\.[a-z_]+)="([^"]*)"', dockerfile))


# --------------------------------------------------------------------------- resources


def test_an_emulator_image_gets_two_cpus_and_four_gib_by_default() -> None:
    assert resource_defaults({"org.mgfarm.backend": "emulator"}) == (2.0, "4g")
    assert resource_defaults({"org.mgfarm.backend": "sim"}) == (1.0, "256m")
    assert resource_defaults({}) == KIND_DEFAULTS["sim"]


def test_image_labels_set_the_defaults_and_both_emulator_images_carry_them() -> None:
    labels = {
        "org.mgfarm.backend": "emulator",
        "org.mgfarm.default_cpus": "3",
        "org.mgfarm.default_memory": "6g",
    }
    assert resource_defaults(labels) == (3.0, "6g")
    for dockerfile in (DOCKERFILE, STANDIN_DOCKERFILE):
        assert resource_defaults(_labels(dockerfile)) == (2.0, "4g")


def test_a_bad_cpu_label_is_refused_naming_the_flag() -> None:
    with pytest.raises(MgfarmError, match="pass --cpus N"):
        resource_defaults({"org.mgfarm.default_cpus": "many"})


def test_up_flags_default_to_none_so_the_image_decides() -> None:
    from mgfarm.farm.config import load_config

    cfg = load_config({}, path=None)
    assert (cfg.cpus, cfg.memory) == (None, None)
    assert load_config({"cpus": 4.0, "memory": "8g"}).cpus == 4.0


# --------------------------------------------------------------------------- image recipe


def test_images_build_emulator_needs_the_licence_switch() -> None:
    with pytest.raises(MgfarmError, match="--accept-android-sdk-licenses") as info:
        build_images(print, "emulator")
    assert "developer.android.com/studio/terms" in str(info.value)
    result = CliRunner().invoke(app, ["images", "build", "emulator"])
    assert result.exit_code != 0
    assert "--accept-android-sdk-licenses" in result.output + str(result.exception)


def test_the_dockerfile_refuses_to_build_unless_the_licence_was_accepted() -> None:
    assert "ARG ACCEPT_ANDROID_SDK_LICENSES=no" in DOCKERFILE
    assert 'if [ "${ACCEPT_ANDROID_SDK_LICENSES}" != yes ]' in DOCKERFILE
    assert "licenses/android-sdk-license" in DOCKERFILE


def test_every_download_is_checked_and_cmdline_tools_are_gone() -> None:
    downloads = re.findall(r"curl [^\n]*-o (\S+)", DOCKERFILE)
    assert downloads, "no downloads found"
    for target in downloads:
        assert f'  {target}" | sha1sum -c -' in DOCKERFILE, target
    assert "cmdline-tools" not in DOCKERFILE


def test_the_pin_is_android_13_google_apis_x86_64() -> None:
    assert "ARG API_LEVEL=33" in DOCKERFILE
    assert "ARG SYSTEM_IMAGE_ZIP=x86_64-33_r17.zip" in DOCKERFILE
    assert "ARG SYSTEM_IMAGE_SHA1=2b96f5bd5c79bfe1cc645e70b3e630b5755d9711" in DOCKERFILE


@pytest.mark.parametrize("dockerfile", [DOCKERFILE, STANDIN_DOCKERFILE], ids=["emulator", "standin"])
def test_the_images_run_as_a_non_root_user_in_the_kvm_group(dockerfile: str) -> None:
    users = re.findall(r"^USER (\S+)", dockerfile, re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    assert "--groups kvm" in dockerfile
    assert 'CMD ["python3", "/usr/local/bin/healthcheck.py"]' in dockerfile
    assert "pgrep" not in dockerfile


def test_the_stand_in_says_what_it_is() -> None:
    labels = _labels(STANDIN_DOCKERFILE)
    assert labels["org.mgfarm.standin"] == "true"
    assert "STAND-IN" in labels["org.mgfarm.emulator_build"]
    assert "NOT the Android emulator" in (REPO / "docker/emulator/standin/emulator").read_text()


def test_secret_paths_come_from_the_image_label() -> None:
    paths = secret_paths(_labels(DOCKERFILE))
    assert "/home/mgfarm/.emulator_console_auth_token" in paths
    assert "/home/mgfarm/.android/adbkey" in paths
    assert secret_paths({}) == ["/run/mgfarm/console_token"]


# --------------------------------------------------------------------------- snapshots


def test_the_snapshot_tag_names_its_base_image() -> None:
    on_sim = snapshot_tag("golden", "abc123", "mgfarm/sim:latest")
    on_emu = snapshot_tag("golden", "abc123", "mgfarm/emulator:latest")
    assert on_sim == "golden-abc123-on-mgfarm-sim-latest"
    assert on_sim != on_emu
    assert re.fullmatch(r"[a-z0-9][a-z0-9_.-]{0,127}", on_emu)


def _manifest(backend: str = "docker") -> Manifest:
    return Manifest(
        name="golden",
        recipe_hash="abc123",
        backend=backend,
        image="mgfarm/sim:latest",
        snapshot_image="mgfarm-snapshot:golden-abc123-on-mgfarm-sim-latest" if backend == "docker" else "",
        snapshot_image_id="sha256:1234" if backend == "docker" else "",
        screen=Screen(width=1080, height=2400, density=420),
        created_at="2026-01-01T00:00:00+00:00",
        ram_mb=2048,
        cores=2,
        gpu_mode="swiftshader_indirect",
    )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path))
    return tmp_path


def test_a_plain_up_finds_the_image_a_docker_build_committed(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert built_image("docker", "golden") == ""
    write_manifest(_manifest())
    monkeypatch.setenv("DOCKER_HOST", f"unix://{home}/no-engine.sock")  # the backend reports that
    assert built_image("docker", "golden") == "mgfarm-snapshot:golden-abc123-on-mgfarm-sim-latest"


def test_a_record_whose_image_is_gone_is_refused_with_both_fixes(home: Path) -> None:
    try:
        docker_client()
    except MgfarmError as exc:
        pytest.skip(f"no Docker engine to ask about the image: {exc}")
    write_manifest(_manifest())  # its image was never built on this machine
    with pytest.raises(MgfarmError, match="which is gone") as info:
        built_image("docker", "golden")
    assert "`mgfarm snapshot build golden --backend docker --image mgfarm/sim:latest`" in str(info.value)
    assert "`mgfarm snapshot rm golden --backend docker`" in str(info.value)


def test_a_farm_on_the_base_image_is_refused_with_a_fix_that_works() -> None:
    with pytest.raises(MgfarmError) as info:
        check_manifest(_manifest(), "docker", image="mgfarm/sim:latest", image_id="sha256:9999")
    message = str(info.value)
    assert message.count("`") % 2 == 0, message
    assert "`--image mgfarm-snapshot:golden-abc123-on-mgfarm-sim-latest`" in message
    assert "without --image" in message
    assert "snapshot build" not in message  # a rebuild makes another image; it never fixes this farm
    check_manifest(_manifest(), "docker", image="mgfarm-snapshot:golden-abc123-on-mgfarm-sim-latest")


def test_manifests_record_ram_cores_and_gpu_mode(home: Path) -> None:
    write_manifest(_manifest())
    found = read_manifest("docker", "golden")
    assert found is not None
    assert (found.ram_mb, found.cores, found.gpu_mode) == (2048, 2, "swiftshader_indirect")


def test_snapshot_rm_removes_the_build_and_refuses_a_missing_one(home: Path) -> None:
    write_manifest(_manifest("process"))
    result = CliRunner().invoke(app, ["snapshot", "rm", "golden", "--backend", "process"])
    assert result.exit_code == 0, result.output
    assert "removed process manifest" in result.output
    assert read_manifest("process", "golden") is None
    with pytest.raises(MgfarmError, match="No snapshot 'golden' is built"):
        remove_snapshot("golden", "process")


@pytest.mark.parametrize(
    ("memory", "ram_mb", "refused"),
    [("4g", 2048, False), ("2g", 2048, True), ("2816m", 2048, False), ("1073741824", 0, False)],
)
def test_a_memory_limit_that_cannot_hold_the_emulator_is_refused(
    memory: str, ram_mb: int, refused: bool
) -> None:
    if refused:
        with pytest.raises(MgfarmError, match=r"does not fit in --memory 2g; pass --memory 3g or more"):
            check_guest_memory(memory, ram_mb, "golden")
    else:
        check_guest_memory(memory, ram_mb, "golden")
    assert memory_mib("1g") == 1024 and memory_mib("512m") == 512 and memory_mib("1048576k") == 1024
