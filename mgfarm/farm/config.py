"""Optional `mgfarm.yaml` defaults for `mgfarm up`; command-line flags always win."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mgfarm.errors import MgfarmError

CONFIG_FILE = "mgfarm.yaml"


class FarmConfig(BaseModel):
    """Defaults for a farm; every field can be overridden by a flag."""

    model_config = ConfigDict(extra="forbid")

    name: str = "default"
    backend: Literal["process", "docker"] = "process"
    replicas: int = Field(default=1, ge=1)
    image: str = ""  # docker backend; empty means the sim image built by `mgfarm images build`
    snapshot: str = "golden"
    adb_port: int = Field(default=5137, ge=1, le=65535)
    first_port: int = Field(default=5554, ge=1024, le=65534)
    cpus: float = Field(default=1.0, gt=0)  # per container
    memory: str = "256m"  # per container, docker syntax
    workers: int = Field(default=0, ge=0)  # process backend; 0 = one per core
    retries: int = Field(default=2, ge=0)
    boot_timeout: float = Field(default=120.0, gt=0)


def config_path() -> Path | None:
    """$MGFARM_CONFIG, else ./mgfarm.yaml when it exists."""
    explicit = os.environ.get("MGFARM_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise MgfarmError(f"MGFARM_CONFIG points at {path}, which does not exist; fix or unset it.")
        return path
    local = Path.cwd() / CONFIG_FILE
    return local if local.is_file() else None


def load_config(overrides: dict[str, Any] | None = None, path: Path | None = None) -> FarmConfig:
    """Defaults <- mgfarm.yaml <- overrides (flags; None means 'not given')."""
    path = path or config_path()
    data: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as exc:
            raise MgfarmError(f"{path} is not valid YAML ({exc}); fix the file.") from None
        if not isinstance(loaded, dict):
            raise MgfarmError(f"{path} must be a mapping of settings (e.g. `replicas: 8`); fix the file.")
        data.update(loaded)
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    try:
        return FarmConfig(**data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        source = f" in {path}" if path else ""
        raise MgfarmError(f"Setting {where!r}{source} is invalid: {first['msg']}; fix it.") from None
