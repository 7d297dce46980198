"""`mgfarm images build`: the registry-free base image, the sim image and the emulator image (the
real one, or its stand-in built on the sim image), rebuilt only when stale.

Each image carries `org.mgfarm.recipe`, a hash of what it was built from; an image whose label
matches the current recipe is reused.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mgfarm.errors import MgfarmError

BASE_IMAGE = "mgfarm/base:bookworm"
SIM_IMAGE = "mgfarm/sim:latest"
EMULATOR_IMAGE = "mgfarm/emulator:latest"
STANDIN_IMAGE = "mgfarm/emulator:standin"
STANDIN_LABEL = "org.mgfarm.standin"
IMAGES = ("base", "sim", "emulator", "emulator-standin", "all")
SDK_TERMS = "https://developer.android.com/studio/terms"
RECIPE_LABEL = "org.mgfarm.recipe"
KIND_LABEL = "org.mgfarm.backend"  # sim or emulator
CPUS_LABEL = "org.mgfarm.default_cpus"
MEMORY_LABEL = "org.mgfarm.default_memory"
# Per container when neither --cpus/--memory nor the image's labels say otherwise. An emulator
# needs ~2 vCPU and 2 GB of guest RAM plus the emulator's own ~1-2 GB: 256m would get it killed.
KIND_DEFAULTS: dict[str, tuple[float, str]] = {"sim": (1.0, "256m"), "emulator": (2.0, "4g")}

Say = Callable[[str], None]


def repo_root() -> Path:
    """The source checkout holding docker/ (images are built from source, not from a wheel)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "docker" / "sim" / "Dockerfile").is_file() or not (root / "pyproject.toml").is_file():
        raise MgfarmError(
            "`mgfarm images build` needs the mgfarm source checkout (docker/ and pyproject.toml); "
            "run it from a clone installed with `make install`."
        )
    return root


def sdk() -> Any:
    """The Docker SDK module, imported lazily (by name: the repo's docker/ folder shadows it for mypy)."""
    return importlib.import_module("docker")


def docker_client() -> Any:
    """A connected Docker client, or a clear error when no engine answers."""
    try:
        client = sdk().from_env(timeout=120)
        client.ping()
    except Exception as exc:  # the SDK raises several unrelated types for "no engine"
        raise MgfarmError(
            f"Cannot reach the Docker engine ({type(exc).__name__}); start it or set DOCKER_HOST."
        ) from None
    return client


def image_recipe(client: Any, tag: str) -> str | None:
    """The recipe label of a local image, or None when the image is missing."""
    try:
        image = client.images.get(tag)
    except sdk().errors.ImageNotFound:
        return None
    return str((image.labels or {}).get(RECIPE_LABEL, ""))


def image_id(client: Any, tag: str) -> str | None:
    """The id of a local image, or None when it is missing."""
    try:
        return str(client.images.get(tag).id)
    except sdk().errors.ImageNotFound:
        return None


def drop_replaced(client: Any, old_id: str | None, tag: str) -> None:
    """Remove the image a rebuild of `tag` replaced (~400 MB each time), unless still in use.

    Docker refuses while a container, even a stopped one, or another tag uses the image; then the
    image stays, as it must.
    """
    if old_id is None or old_id == image_id(client, tag):
        return
    with contextlib.suppress(sdk().errors.APIError):
        client.images.remove(old_id)


def resource_defaults(labels: dict[str, str]) -> tuple[float, str]:
    """CPUs and memory for one container of an image: its labels, else the defaults of its kind."""
    cpus, memory = KIND_DEFAULTS.get(labels.get(KIND_LABEL, "sim"), KIND_DEFAULTS["sim"])
    raw_cpus = labels.get(CPUS_LABEL, "").strip()
    if raw_cpus:
        try:
            cpus = float(raw_cpus)
        except ValueError:
            cpus = 0.0
        if not 0 < cpus <= 256:
            raise MgfarmError(
                f"The image's label {CPUS_LABEL}={raw_cpus!r} is not a CPU count; pass --cpus N."
            )
    return cpus, labels.get(MEMORY_LABEL, "").strip() or memory


def sim_recipe(root: Path) -> str:
    """Hash of everything the sim image is made of: package sources, pyproject, the docker/sim folder."""
    digest = hashlib.sha256()
    files = [root / "pyproject.toml", *sorted((root / "docker" / "sim").iterdir())]
    files += sorted(p for p in (root / "mgfarm").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_base(say: Say, rebuild: bool = False) -> None:
    """Run docker/base/build.sh (it skips the build when the image matches its recipe)."""
    script = repo_root() / "docker" / "base" / "build.sh"
    env_prefix = ["env", "MGFARM_REBUILD=1"] if rebuild else []
    proc = subprocess.run([*env_prefix, "bash", str(script), BASE_IMAGE], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise MgfarmError(f"Building {BASE_IMAGE} failed: {tail[0]}")
    say(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else f"built {BASE_IMAGE}")


def _wheels(root: Path, into: Path) -> None:
    """mgfarm and all its dependencies as wheels, so the image build needs no package index."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(into), str(root)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["pip wheel failed"])[-1]
        raise MgfarmError(f"Building the mgfarm wheels failed ({last}); check that PyPI is reachable.")


def build_sim(say: Say, base: str = BASE_IMAGE, rebuild: bool = False) -> None:
    """Build the sim image from wheels made on the host, unless it is current."""
    root = repo_root()
    client = docker_client()
    recipe = sim_recipe(root) + "-" + (image_recipe(client, base) or base)
    if not rebuild and image_recipe(client, SIM_IMAGE) == recipe:
        say(f"{SIM_IMAGE} is current (recipe {recipe}); not rebuilding.")
        return
    replaced = image_id(client, SIM_IMAGE)
    with tempfile.TemporaryDirectory(prefix="mgfarm-sim-ctx-") as tmp:
        context = Path(tmp)
        for name in ("Dockerfile", "entrypoint.sh", "healthcheck.py"):
            shutil.copy2(root / "docker" / "sim" / name, context / name)
        say("building wheels for mgfarm and its dependencies")
        _wheels(root, context / "wheels")
        say(f"building {SIM_IMAGE} on {base}")
        error = ""
        for chunk in client.api.build(
            path=str(context),
            tag=SIM_IMAGE,
            buildargs={"BASE": base},
            labels={RECIPE_LABEL: recipe},
            rm=True,
            forcerm=True,
            decode=True,
        ):
            error = chunk.get("error", error)
        if error:
            raise MgfarmError(f"Building {SIM_IMAGE} failed: {error.strip()}")
    drop_replaced(client, replaced, SIM_IMAGE)
    say(f"built {SIM_IMAGE} (recipe {recipe})")


def emulator_recipe(root: Path, standin: bool) -> str:
    """Hash of the files the image is built from (those _stage_emulator copies; not the docs)."""
    digest = hashlib.sha256()
    folder = root / "docker" / "emulator"
    files = [folder / "standin" / "Dockerfile", folder / "standin" / "emulator"] if standin else []
    files += [folder / "Dockerfile", folder / "entrypoint.sh", folder / "healthcheck.py"]
    files += [root / "mgfarm" / "errors.py", root / "mgfarm" / "farm" / "emulator.py"]
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _stage_emulator(root: Path, context: Path, standin: bool) -> None:
    """The small build context: Dockerfile, entrypoint, health check (+ the module or the stand-in)."""
    folder = root / "docker" / "emulator"
    shutil.copy2(folder / ("standin/Dockerfile" if standin else "Dockerfile"), context / "Dockerfile")
    for name in ("entrypoint.sh", "healthcheck.py"):
        shutil.copy2(folder / name, context / name)
    (context / "mgfarm" / "farm").mkdir(parents=True)
    shutil.copy2(root / "mgfarm" / "farm" / "emulator.py", context / "mgfarm" / "farm" / "emulator.py")
    if standin:
        shutil.copy2(folder / "standin" / "emulator", context / "emulator")
        return
    shutil.copy2(root / "mgfarm" / "errors.py", context / "mgfarm" / "errors.py")
    (context / "mgfarm" / "__init__.py").write_text("")
    (context / "mgfarm" / "farm" / "__init__.py").write_text("")


def build_emulator(
    say: Say, accept_licenses: bool = False, rebuild: bool = False, standin: bool = False
) -> str:
    """Build the real emulator image (downloads the SDK: needs the licence accepted) or its stand-in
    on the sim image (downloads nothing, emulates nothing); returns the tag."""
    if not standin and not accept_licenses:
        raise MgfarmError(
            "The emulator image downloads the Android emulator and a system image, which are under the "
            f"Android SDK License Agreement ({SDK_TERMS}); read it and pass --accept-android-sdk-licenses."
        )
    root = repo_root()
    client = docker_client()
    tag = STANDIN_IMAGE if standin else EMULATOR_IMAGE
    recipe = emulator_recipe(root, standin)
    buildargs = {"ACCEPT_ANDROID_SDK_LICENSES": "yes"}
    if standin:
        if image_id(client, SIM_IMAGE) is None:  # any sim image will do: the device is a stand-in
            build_sim(say)
        recipe += "-" + (image_recipe(client, SIM_IMAGE) or "")
        buildargs = {"BASE": SIM_IMAGE}
    if not rebuild and image_recipe(client, tag) == recipe:
        say(f"{tag} is current (recipe {recipe}); not rebuilding.")
        return tag
    replaced = image_id(client, tag)
    what = "the STAND-IN emulator image (a simulated device, NOT the Android emulator)" if standin else tag
    say(f"building {what}")
    with tempfile.TemporaryDirectory(prefix="mgfarm-emulator-ctx-") as tmp:
        _stage_emulator(root, Path(tmp), standin)
        error = ""
        for chunk in client.api.build(
            path=tmp,
            tag=tag,
            buildargs=buildargs,
            labels={RECIPE_LABEL: recipe},
            rm=True,
            forcerm=True,
            decode=True,
        ):
            error = chunk.get("error", error)
        if error:
            raise MgfarmError(f"Building {tag} failed: {error.strip()}")
    drop_replaced(client, replaced, tag)
    say(f"built {tag} (recipe {recipe})")
    return tag


def build_images(
    say: Say,
    which: str = "all",
    rebuild: bool = False,
    base: str = BASE_IMAGE,
    accept_android_sdk_licenses: bool = False,
) -> None:
    """Build base and/or sim (`all`), or the emulator image or its stand-in (never part of `all`:
    the real one needs the SDK licence and internet, the stand-in is for testing)."""
    if which not in IMAGES:
        raise MgfarmError(f"Unknown image {which!r}; choose one of {', '.join(IMAGES)}.")
    if which == "emulator" and not accept_android_sdk_licenses:
        build_emulator(say)  # refuses, naming the licence, before anything else happens
    docker_client()
    if which in ("emulator", "emulator-standin"):
        build_emulator(say, accept_android_sdk_licenses, rebuild, standin=which == "emulator-standin")
        return
    if which in ("base", "all") and base == BASE_IMAGE:
        build_base(say, rebuild)
    if which in ("sim", "all"):
        build_sim(say, base, rebuild)
