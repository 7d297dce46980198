"""Write a farm's manifests and its farm config into a folder that `kubectl apply -f` takes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import yaml

from mgfarm.errors import MgfarmError
from mgfarm.k8s.manifests import RenderOptions, farm_yaml, render_documents

FARM_CONFIG_FILE = "farm.yaml"


def write_manifests(opts: RenderOptions, out: Path, new_token: bool = False) -> list[Path]:
    """Render every object into `out` (created if missing); returns the files written.

    The farm config goes to farm.yaml beside the manifests; it is not a Kubernetes object, so it is
    kept out of `kubectl apply -f out/` by living under `out/farm/`. A folder rendered before keeps
    its console token (re-rendering must not lock running clients out) unless `new_token` is set.
    """
    if out.exists() and not out.is_dir():
        raise MgfarmError(f"--out {out} is a file; pass a folder (it is created if missing).")
    kept = None if new_token else rendered_token(out, opts)
    if kept is not None:
        opts = dataclasses.replace(opts, console_token=kept)
    documents = render_documents(opts)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "farm").mkdir(exist_ok=True)
    except OSError as exc:
        raise MgfarmError(f"Cannot create {out} ({exc.strerror}); pass a writable --out folder.") from exc
    written: list[Path] = []
    for filename, document in documents.items():
        path = out / filename
        # The Secret holds the console token: readable by its owner only, from the first byte.
        mode = 0o600 if document["kind"] == "Secret" else 0o644
        _write(path, yaml.safe_dump(document, sort_keys=False), mode)
        written.append(path)
    config = out / "farm" / FARM_CONFIG_FILE
    _write(config, farm_yaml(opts), 0o644)
    written.append(config)
    return written


def _write(path: Path, text: str, mode: int) -> None:
    path.unlink(missing_ok=True)  # a new file gets `mode`; an existing one would keep its own
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


def rendered_token(out: Path, opts: RenderOptions) -> str | None:
    """The console token of this farm's Secret already rendered into `out`, if any."""
    path = out / "secret.yaml"
    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(document, dict):
        return None
    metadata = document.get("metadata") or {}
    if metadata.get("name") != opts.token_secret or metadata.get("namespace") != opts.namespace:
        return None  # another farm's folder: do not carry its secret over
    token = (document.get("stringData") or {}).get("token")
    return token if isinstance(token, str) and token.strip() else None


def load_manifests(out: Path) -> list[dict[str, object]]:
    """Every Kubernetes object in the folder's YAML files (for checks and tests)."""
    documents: list[dict[str, object]] = []
    for path in sorted(out.glob("*.yaml")):
        documents.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return documents
