"""`mgfarm images build`: the registry-free base image and the sim image, rebuilt only when stale.

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
RECIPE_LABEL = "org.mgfarm.recipe"

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


def build_images(say: Say, which: str = "all", rebuild: bool = False, base: str = BASE_IMAGE) -> None:
    """Build base and/or sim (`which` in base, sim, all)."""
    if which not in ("base", "sim", "all"):
        raise MgfarmError(f"Unknown image {which!r}; choose base, sim or all.")
    docker_client()
    if which in ("base", "all") and base == BASE_IMAGE:
        build_base(say, rebuild)
    if which in ("sim", "all"):
        build_sim(say, base, rebuild)
