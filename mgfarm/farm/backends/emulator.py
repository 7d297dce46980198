"""Emulator backend: the real AOSP emulator (x86_64, KVM), one container each.

It is the docker backend on the emulator image (`mgfarm images build emulator`, see
mgfarm/farm/emulator.py for its command line and AVD) by default; its snapshots are built and kept
as images under its own name (`mgfarm snapshot build golden --backend emulator`).
"""

from __future__ import annotations

from mgfarm.farm.backends.base import UpFlags
from mgfarm.farm.backends.docker import DockerBackend
from mgfarm.farm.images import EMULATOR_IMAGE


class EmulatorBackend(DockerBackend):
    """Runs each replica as a container of the emulator image (or another one given with --image)."""

    name = "emulator"

    @classmethod
    def options(cls, flags: UpFlags) -> dict[str, object]:
        """The emulator image unless --image names one; CPUs and memory: the image's (2 and 4g)."""
        return {"image": flags.image or EMULATOR_IMAGE, "cpus": flags.cpus, "memory": flags.memory}
