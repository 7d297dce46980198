"""Write a farm's manifests and its farm config into a folder that `kubectl apply -f` takes."""

from __future__ import annotations

from pathlib import Path

import yaml

from mgfarm.errors import MgfarmError
from mgfarm.k8s.manifests import RenderOptions, farm_yaml, render_documents

FARM_CONFIG_FILE = "farm.yaml"


def write_manifests(opts: RenderOptions, out: Path) -> list[Path]:
    """Render every object into `out` (created if missing); returns the files written.

    The farm config goes to farm.yaml beside the manifests; it is not a Kubernetes object, so it is
    kept out of `kubectl apply -f out/` by living under `out/farm/`.
    """
    documents = render_documents(opts)
    if out.exists() and not out.is_dir():
        raise MgfarmError(f"--out {out} is a file; pass a folder (it is created if missing).")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "farm").mkdir(exist_ok=True)
    except OSError as exc:
        raise MgfarmError(f"Cannot create {out} ({exc.strerror}); pass a writable --out folder.") from exc
    written: list[Path] = []
    for filename, document in documents.items():
        path = out / filename
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        written.append(path)
    config = out / "farm" / FARM_CONFIG_FILE
    config.write_text(farm_yaml(opts))
    written.append(config)
    # The Secret holds the console token: keep it readable by its owner only.
    (out / "secret.yaml").chmod(0o600)
    return written


def load_manifests(out: Path) -> list[dict[str, object]]:
    """Every Kubernetes object in the folder's YAML files (for checks and tests)."""
    documents: list[dict[str, object]] = []
    for path in sorted(out.glob("*.yaml")):
        documents.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return documents
