"""The device filesystem: Android paths mapped into one host folder that nothing can escape."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

# Folders every device has, as on a stock emulator image.
SKELETON = (
    "data/data",
    "data/app",
    "data/local/tmp",
    "data/system",
    "data/misc",
    "storage/emulated/0/DCIM",
    "storage/emulated/0/Pictures",
    "storage/emulated/0/Download",
    "storage/emulated/0/Documents",
    "storage/emulated/0/Music",
    "storage/emulated/0/Movies",
    "storage/emulated/0/Alarms",
    "system/bin",
    "system/app",
    "system/priv-app",
    "proc",
    "dev",
    "etc",
    "vendor",
    "cache",
)

# Android's own aliases, resolved before mapping so that `/sdcard/x` and `/storage/emulated/0/x` are one file.
ALIASES = {
    "/sdcard": "/storage/emulated/0",
    "/storage/self/primary": "/storage/emulated/0",
    "/mnt/sdcard": "/storage/emulated/0",
}


class PathEscapeError(ValueError):
    """A device path that would leave the device root."""


class DeviceFS:
    """Maps absolute Android paths to host paths under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def create_skeleton(self) -> None:
        for rel in SKELETON:
            (self.root / rel).mkdir(parents=True, exist_ok=True)

    @staticmethod
    def normalize(path: str, cwd: str = "/") -> str:
        """An absolute, normalised Android path with aliases applied; `..` never climbs above /."""
        joined = path if path.startswith("/") else posixpath.join(cwd, path)
        norm = posixpath.normpath("/" + joined.lstrip("/"))
        if norm.startswith("//"):
            norm = "/" + norm.lstrip("/")
        for alias, target in ALIASES.items():
            if norm == alias or norm.startswith(alias + "/"):
                norm = target + norm[len(alias) :]
                break
        return norm

    def host(self, path: str, cwd: str = "/") -> Path:
        """The host path for a device path. Symlinks inside the root may not point outside it."""
        rel = self.normalize(path, cwd).lstrip("/")
        candidate = self.root / rel if rel else self.root
        real = Path(os.path.realpath(candidate))
        if real != self.root and self.root not in real.parents:
            raise PathEscapeError(f"{path}: path leaves the device root")
        return candidate

    def os_error(self, exc: OSError) -> str:
        """`path: reason` for a failed host call, naming the device path: host paths never reach a user."""
        reason = exc.strerror or exc.__class__.__name__
        if exc.filename is None:
            return reason
        text, root = os.fsdecode(exc.filename), str(self.root)
        inside = text == root or text.startswith(root + "/")
        shown = (text[len(root) :] or "/") if inside else Path(text).name
        return f"{shown}: {reason}"

    def device_path(self, host: Path) -> str:
        """The device path of a host path under the root."""
        rel = host.resolve().relative_to(self.root)
        return "/" + str(rel) if str(rel) != "." else "/"
