"""Optional `mgfarm.yaml` defaults for `mgfarm up`; command-line flags always win."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends import BACKEND_NAMES, DEFAULT_BACKEND
from mgfarm.farm.ports import FIRST_CONSOLE_PORT
from mgfarm.farm.profiles import DEFAULT_PROFILE

CONFIG_FILE = "mgfarm.yaml"


class FarmConfig(BaseModel):
    """Defaults for a farm; every field can be overridden by a flag."""

    model_config = ConfigDict(extra="forbid")

    name: str = "default"
    backend: str = DEFAULT_BACKEND  # a name in mgfarm.farm.backends.BACKEND_NAMES
    replicas: int = Field(default=1, ge=1)
    image: str = ""  # docker backend; empty means the sim image built by `mgfarm images build`
    snapshot: str = "golden"
    adb_port: int = Field(default=0, ge=0, le=65535)  # 0: a private adb server on a free port
    first_port: int = Field(default=FIRST_CONSOLE_PORT, ge=1024, le=65534)
    cpus: float | None = Field(default=None, gt=0)  # per container; None: the image's default
    memory: str | None = None  # per container, docker syntax; None: the image's default
    workers: int = Field(default=0, ge=0)  # process backend; 0 = one per core
    devices: list[str] = Field(default_factory=list)  # existing backend: SERIAL or HOST:PORT[,console=PORT]
    profile: str = DEFAULT_PROFILE  # device profile, a name in mgfarm.farm.profiles.PROFILES
    grpc: bool = True  # each device serves the emulator gRPC API on a port of its own
    storage: str | None = None  # each simulated device's data partition (2g, 512m); None: the sim's 2g
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
            raise MgfarmError(f"{path} is not valid YAML {yaml_problem(exc)}; fix the file.") from None
        if not isinstance(loaded, dict):
            raise MgfarmError(f"{path} must be a mapping of settings (e.g. `replicas: 8`); fix the file.")
        data.update(loaded)
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    flags = {k for k, v in (overrides or {}).items() if v is not None}
    try:
        config = FarmConfig(**data)
    except ValidationError as exc:
        raise MgfarmError(invalid_setting(exc, flags, path)) from None
    if config.backend not in BACKEND_NAMES:
        where = "--backend" if "backend" in flags else f"Setting 'backend' in {path}"
        raise MgfarmError(
            f"{where} names an unknown backend ({config.backend!r}); use one of: {', '.join(BACKEND_NAMES)}."
        )
    return config


def yaml_problem(exc: yaml.YAMLError) -> str:
    """Where and what PyYAML found wrong, on one line: 'at line 1, column 13: expected ...'."""
    mark = getattr(exc, "problem_mark", None)
    where = f"at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or ""
    return f"{where}: {problem}" if where and problem else where or problem or "(unreadable)"


_BOUNDS = {
    "ge": ("at least", ">="),
    "gt": ("greater than", ">"),
    "le": ("at most", "<="),
    "lt": ("less than", "<"),
}


def invalid_setting(exc: ValidationError, flags: set[str], path: Path | None) -> str:
    """One sentence for the first invalid setting, naming the flag or the file it came from."""
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "config"
    ctx = first.get("ctx") or {}
    bound = next((k for k in _BOUNDS if k in ctx), None)
    got = f"(got {first['input']!r})"
    if field in flags:
        flag = "--" + field.replace("_", "-")
        if bound is not None:
            words, sign = _BOUNDS[bound]
            return f"{flag} must be {words} {ctx[bound]} {got}; pass {flag} N with N {sign} {ctx[bound]}."
        return f"{flag} is invalid {got}: {first['msg']}; pass a valid {flag}."
    source = f" in {path}" if path else ""
    if first["type"] == "extra_forbidden":
        known = ", ".join(FarmConfig.model_fields)
        return f"Setting {field!r}{source} is not a known setting (known: {known}); fix the file."
    if bound is not None:
        words, _sign = _BOUNDS[bound]
        return f"Setting {field!r}{source} must be {words} {ctx[bound]} {got}; fix the file."
    return f"Setting {field!r}{source} is invalid {got}: {first['msg']}; fix the file."
