"""The adb client binary: where it is and which version it is."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from mgfarm.errors import MgfarmError


def find_adb() -> Path:
    """The adb binary: $MGFARM_ADB, then adb on PATH, then the one adbutils ships."""
    explicit = os.environ.get("MGFARM_ADB")
    if explicit:
        path = Path(explicit)
        if not os.access(path, os.X_OK):
            raise MgfarmError(f"MGFARM_ADB points at {path}, which is not an executable; fix or unset it.")
        return path
    on_path = shutil.which("adb")
    if on_path:
        return Path(on_path)
    try:
        import adbutils

        bundled = Path(adbutils.__file__).parent / "binaries" / "adb"
        if os.access(bundled, os.X_OK):
            return bundled
    except ImportError:
        pass
    raise MgfarmError(
        "No adb binary found; install one with `apt-get install adb` or `pip install adbutils`."
    )


def adb_version(adb: Path) -> str:
    """The adb client's version line, e.g. '1.0.41 (29.0.6-debian)'."""
    proc = subprocess.run([str(adb), "version"], capture_output=True, text=True, timeout=10, check=False)
    lines = proc.stdout.splitlines()
    release = lines[0].rsplit(" ", 1)[-1] if lines else "?"
    build = lines[1].split(" ", 1)[-1] if len(lines) > 1 else ""
    return f"{release} ({build})" if build else release


def adb_args(port: int, serial: str) -> list[str]:
    """Command prefix for the adb client talking to `serial` through the server on `port`."""
    return [str(find_adb()), "-P", str(port), "-s", serial]
