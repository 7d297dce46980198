"""`mgfarm snapshot build`: boot one device on a backend, apply a recipe over ADB, save the console
snapshot, keep it (a folder for the process backend, a committed image for docker), write a manifest."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import secrets
import shutil
import time
from collections.abc import Callable
from typing import Any, cast

import mgfarm
from mgfarm.adb import server as adbserver
from mgfarm.adb.console import ConsoleClient
from mgfarm.adb.errors import ConsoleError
from mgfarm.catalog import load_catalog
from mgfarm.device import Device
from mgfarm.errors import MgfarmError
from mgfarm.farm.api import down
from mgfarm.farm.backends import DEFAULT_BACKEND, Backend, UpFlags, backend_class, get_backend
from mgfarm.farm.boot import wait_attached, wait_boot_completed
from mgfarm.farm.ports import quiet_range_start
from mgfarm.farm.profiles import DEFAULT_PROFILE, check_profile
from mgfarm.farm.state import (
    READY,
    FarmState,
    Replica,
    farm_dir,
    farm_exists,
    remove_folder,
    save_farm,
    write_private,
)
from mgfarm.snapshots.manifest import (
    MANIFEST_LABEL,
    SNAPSHOT_IMAGE_REPO,
    Manifest,
    Screen,
    docker_sdk,
    read_manifest,
    remove_built,
    secret_paths,
    snapshot_files,
    snapshot_tag,
    write_manifest,
)
from mgfarm.snapshots.recipe import Recipe, load_recipe
from mgfarm.tasks.device import TaskDevice
from mgfarm.tasks.steps import apply_steps

Report = Callable[[str], None]
BUILD_FARM_PREFIX = "snapshot-build-"
SIM_DATA_DIR = "/var/lib/mgfarm"  # the sim image's `sim serve --data` (docker/sim/entrypoint.sh)


def sim_image_name() -> str:
    """What a process-backend snapshot was made on: the simulated device of this mgfarm version."""
    return f"mgfarm-sim {mgfarm.__version__}"


def build(
    recipe_name: str,
    backend: str = DEFAULT_BACKEND,
    image: str = "",
    adb_port: int = 0,
    boot_timeout: float = 300.0,
    report: Report | None = None,
    profile: str = DEFAULT_PROFILE,
) -> Manifest:
    """Build the recipe's snapshot on `backend` and return its manifest (also written to the store).

    `profile`: the device profile it is built on; farms of that profile only may boot into it."""
    say = report or (lambda _msg: None)
    check_profile(profile)
    if backend_class(backend).snapshot_store == "device":
        raise MgfarmError(
            f"The {backend} backend's devices keep their own snapshots, so it builds none; build on "
            "--backend process, docker or emulator, or save one on the device "
            "(`adb emu avd snapshot save NAME`)."
        )
    recipe = load_recipe(recipe_name)
    started = time.monotonic()
    farm, runner = _start_one(recipe, backend, image, adb_port, boot_timeout, say, profile)
    try:
        rep = farm.replicas[0]
        device = Device(
            rep.serial,
            adb_port=farm.adb_server_port,
            console_port=rep.console_port,
            console_token=rep.console_token,
            profile=profile,  # the recipe's steps name that profile's packages
        )
        become_root(device, farm, boot_timeout)
        say(f"applying recipe {recipe.name} ({len(recipe.steps())} steps) to {rep.serial}")
        check_apps(device, recipe)
        apply_steps(cast(TaskDevice, device), recipe.steps(), load_catalog([]))  # apps and databases only
        facts = device_facts(device)
        say(f"saving console snapshot {recipe.name!r}")
        device.snapshot_save(recipe.name)
        device.close()
        manifest = Manifest(
            name=recipe.name,
            recipe_hash=recipe.content_hash(),
            recipe_source=recipe.source,
            backend=backend,
            image=farm.image or sim_image_name(),
            profile=profile,
            screen=facts.pop("screen"),
            created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            mgfarm_version=mgfarm.__version__,
            **facts,
        )
        if runner.snapshot_store == "files":
            _keep_sim_snapshot(farm, runner, recipe.name)
        else:
            manifest = _commit_image(farm, rep, manifest, say)
        manifest.build_seconds = round(time.monotonic() - started, 1)
        write_manifest(manifest)
        return manifest
    finally:
        down(farm.name)


def _start_one(
    recipe: Recipe,
    backend: str,
    image: str,
    adb_port: int,
    boot_timeout: float,
    say: Report,
    profile: str = DEFAULT_PROFILE,
) -> tuple[FarmState, Backend]:
    """A one-replica farm booted fresh (no snapshot loaded), registered so `down` can clean it up."""
    name = BUILD_FARM_PREFIX + recipe.name
    if farm_exists(name):
        down(name)  # a build that crashed earlier left its farm behind
    # One worker, no gRPC; a container gets the image's CPUs and memory.
    options = backend_class(backend).options(UpFlags(image=image, workers=1, profile=profile))
    runner = get_backend(backend, **options)
    runner.check_profile(profile)
    folder = farm_dir(name)
    remove_folder(folder)
    folder.mkdir(parents=True)
    token = secrets.token_urlsafe(12)
    write_private(folder / "console_token", token)
    adb_port = adb_port or quiet_range_start(1)  # 0: a private server, seen by no other farm
    server_pid = adbserver.ensure_server(adb_port)
    farm = FarmState(
        name=name,
        backend=backend,
        adb_server_port=adb_port,
        snapshot=recipe.name,
        image=runner.image,
        created_at=time.time(),
        adb_server_pid=server_pid,
        options=options,  # `down` rebuilds the backend from these (the build's image, not the default)
        boot_timeout=boot_timeout,
        replicas=runner.plan(1, quiet_range_start(1), {adb_port}, token, recipe.name),
        profile=profile,
    )
    save_farm(farm)
    try:
        say(f"booting one {backend} device")
        runner.start(farm, farm.replicas, folder)
        save_farm(farm)
        deadline = time.monotonic() + boot_timeout
        runner.attach(farm, farm.replicas[0], deadline)
        wait_boot_completed(farm.replicas[0], adb_port, deadline)
        farm.replicas[0].state = READY
        save_farm(farm)
    except BaseException:
        down(name)
        raise
    return farm, runner


def become_root(device: Device, farm: FarmState, timeout: float) -> None:
    """Restart adbd as root, as seeding provider data (SMS above all) needs on a real emulator."""
    reply = str(device.adb.root())
    if "restarting" in reply:  # the transport drops and comes back
        deadline = time.monotonic() + timeout
        wait_attached(farm.replicas[0], farm.adb_server_port, deadline)
        wait_boot_completed(farm.replicas[0], farm.adb_server_port, deadline)


def app_package(name: str, profile: str = "") -> str:
    """An app's package on `profile`: a name or package the task catalog knows (`contacts`,
    com.google.android.contacts: com.android.contacts on aosp), or any other package as given."""
    try:
        return load_catalog([]).apps.find(name).package_on(profile)
    except MgfarmError:
        if "." in name:
            return name
        raise


def check_apps(device: Device, recipe: Recipe) -> None:
    """Every app the recipe names must be installed; say which is missing."""
    installed = set(device.packages())
    for name in recipe.apps:
        package = app_package(name, device.profile)
        if package not in installed:
            raise MgfarmError(
                f"Recipe {recipe.name!r} needs app {package}, which is not installed on "
                f"{device.serial}; install it or remove it from the recipe's apps."
            )


def device_facts(device: Device) -> dict[str, Any]:
    """Screen, Android version and (on an emulator) build facts, read over ADB."""
    width, height = device.window_size()
    density_out = device.shell("wm density")
    densities = re.findall(r"density: (\d+)", density_out)
    if not densities:
        raise MgfarmError(
            f"`wm density` on {device.serial} printed {density_out!r}; is it an Android device?"
        )
    facts: dict[str, Any] = {
        "screen": Screen(width=width, height=height, density=int(densities[-1])),
        "android_sdk": device.getprop("ro.build.version.sdk") or "unknown",
    }
    fingerprint = device.getprop("ro.build.fingerprint")
    if fingerprint:
        facts["system_image"] = fingerprint
    emu = device.getprop("ro.kernel.qemu.emulator.version") or device.getprop("ro.boot.qemu.version")
    if emu:
        facts["emulator_build"] = emu
    return facts


def _keep_sim_snapshot(farm: FarmState, runner: Backend, name: str) -> None:
    """Copy the simulated device's snapshot folder out of the build farm into the store.

    The device saved it into its worker's own folder; publishing moves it to the farm's read-only
    snapshot folder, as a farm does with a golden saved by a fresh device.
    """
    folder = farm_dir(farm.name)
    runner.publish_snapshot(farm, farm.replicas[0], name, folder)
    saved = folder / "snapshots" / name
    if not (saved / "state.json").is_file():
        raise MgfarmError(f"The device saved no snapshot at {saved}; check `mgfarm sim serve --snapshots`.")
    remove_built(farm.backend, name)
    target = snapshot_files(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(saved, target, symlinks=True)


def _commit_image(farm: FarmState, rep: Replica, manifest: Manifest, say: Report) -> Manifest:
    """Commit the build container as `mgfarm-snapshot:<name>-<hash>-on-<image>` with the manifest as
    a label; an emulator is stopped cleanly first, and no secret may be left in the container."""
    docker = docker_sdk()
    client = docker.from_env()
    try:
        source = client.images.get(farm.image)
        container = client.containers.get(rep.backend_id)
        tag = snapshot_tag(manifest.name, manifest.recipe_hash, farm.image)
        reference = f"{SNAPSHOT_IMAGE_REPO}:{tag}"
        labels = dict(source.labels or {})
        emu_build = labels.get("org.mgfarm.emulator_build")
        sys_image = labels.get("org.mgfarm.system_image")
        manifest = manifest.model_copy(
            update={
                "image_id": source.id,
                "snapshot_image": reference,
                "emulator_build": emu_build or manifest.emulator_build,
                "system_image": sys_image or manifest.system_image,
            }
        )
        if labels.get("org.mgfarm.backend") == "sim":
            # Keep only the saved snapshot: a device root inside an image layer cannot be renamed
            # in place by a later snapshot load (overlayfs), and new containers boot a fresh one.
            container.exec_run(["sh", "-c", f"rm -rf {SIM_DATA_DIR}/emulator-*"])
            container.exec_run(["rm", "-f", *secret_paths(labels)])
        if labels.get("org.mgfarm.backend") == "emulator":
            manifest = manifest.model_copy(update=_emulator_hardware(container))
            say("stopping the emulator cleanly (console kill) so no lock or secret is committed")
            _stop_emulator(container, rep)
        _refuse_secrets(container, secret_paths(labels))
        say(f"committing {reference}")
        label = manifest.model_dump_json().replace("'", "")
        committed = container.commit(
            repository=SNAPSHOT_IMAGE_REPO, tag=tag, changes=[f"LABEL {MANIFEST_LABEL}='{label}'"]
        )
        _remove_replaced_image(client, manifest, committed.id, reference)
        return manifest.model_copy(update={"snapshot_image_id": committed.id})
    except docker.errors.DockerException as exc:
        raise MgfarmError(f"Committing the snapshot image failed ({exc}); check `docker info`.") from exc
    finally:
        client.close()


def _emulator_hardware(container: Any) -> dict[str, Any]:
    """RAM, cores and GPU mode the container's emulator runs with (the manifest records them)."""
    result = container.exec_run(["python3", "-m", "mgfarm.farm.emulator", "hardware"])
    try:
        found = json.loads(result.output)
        return {"ram_mb": int(found["ram_mb"]), "cores": int(found["cores"]), "gpu_mode": found["gpu_mode"]}
    except (ValueError, KeyError, TypeError):
        raise MgfarmError(
            f"The emulator image did not report its hardware ({result.output[-200:]!r}); "
            "rebuild it with `mgfarm images build emulator`."
        ) from None


def _stop_emulator(container: Any, rep: Replica, timeout: float = 120.0) -> None:
    """Console `kill` (the snapshot is already saved), then wait for the entrypoint to clean up."""
    with contextlib.suppress(ConsoleError), ConsoleClient(rep.console_port, rep.console_token) as console:
        console.command("kill")  # the emulator answers and closes the session
    try:
        status = container.wait(timeout=timeout).get("StatusCode", -1)
    except Exception:  # the SDK raises a requests timeout type here
        raise MgfarmError(
            f"The emulator did not stop within {timeout:.0f} s of the console `kill`; "
            f"see `docker logs {container.name}`."
        ) from None
    if status != 0:
        tail = container.logs(tail=5).decode(errors="replace").strip()
        raise MgfarmError(f"The emulator container exited with status {status} when stopped ({tail!r}).")


def _refuse_secrets(container: Any, paths: list[str]) -> None:
    """The console token and adb keys must not end up in an image anyone may run or push."""
    left = []
    for path in paths:
        with contextlib.suppress(docker_sdk().errors.NotFound):
            container.get_archive(path)
            left.append(path)
    if left:
        raise MgfarmError(
            f"The build container still holds {', '.join(left)}; not committing it (the image's "
            "entrypoint must remove them on exit; rebuild it with `mgfarm images build`)."
        )


def _remove_replaced_image(client: Any, manifest: Manifest, keep_id: str, reference: str) -> None:
    """Drop the image of this snapshot's previous build on the same base image (rebuilds would pile
    up otherwise); a build on another base image has a tag of its own and stays."""
    previous = read_manifest(manifest.backend, manifest.name)
    if previous is None or not previous.snapshot_image_id or previous.snapshot_image_id == keep_id:
        return
    if previous.snapshot_image != reference:
        return
    with contextlib.suppress(Exception):  # in use by a running farm, or already gone: keep going
        client.images.remove(previous.snapshot_image_id, noprune=False)
