"""Docker backend: one container per device through the Docker SDK.

Containers carry labels naming their owner (a hash of MGFARM_HOME), farm and replica, sit on a
network of their own farm where they cannot reach each other (no inter-container traffic) nor other
farms' containers, publish the console/adb ports on 127.0.0.1 only, get CPU and memory limits, and
see /dev/kvm only when the image asks for it (label) and the host has it. Never privileged.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.farm.backends.base import Backend, UpFlags
from mgfarm.farm.images import EMULATOR_IMAGE, SIM_IMAGE, docker_client, resource_defaults, sdk
from mgfarm.farm.profiles import DEFAULT_PROFILE
from mgfarm.farm.state import FarmState, Replica, owner_id

FARM_LABEL = "org.mgfarm.farm"
OWNER_LABEL = "org.mgfarm.owner"
REPLICA_LABEL = "org.mgfarm.replica"
KVM_LABEL = "org.mgfarm.needs_kvm"
CONTAINER_CONSOLE_PORT = 5554
CONTAINER_ADB_PORT = 5555
CONTAINER_GRPC_PORT = 8554  # the sim image's `--grpc`, the emulator's documented default
SIM_DATA, SIM_GOLDEN = "/var/lib/mgfarm", "/var/lib/mgfarm-golden"  # docker/sim/entrypoint.sh
PORT_ATTEMPTS = 3
START_THREADS = 8
STATUS_TTL = 0.5  # seconds a container listing stays fresh for alive()


def resolve_image(image: str) -> str:
    """The image to run: the given one, or the sim image `mgfarm images build` makes."""
    return image or SIM_IMAGE


def farm_filters(name: str) -> dict[str, list[str]]:
    """Docker list filters for this home's farm `name` (labels must all match)."""
    return {"label": [f"{FARM_LABEL}={name}", f"{OWNER_LABEL}={owner_id()}"]}


def network_name(name: str) -> str:
    return f"mgfarm-{owner_id()}-{name}"


def remove_farm_network(client: Any, name: str) -> None:
    """The farm's network, once its containers are gone (no error when it never existed)."""
    for network in client.networks.list(names=[network_name(name)], filters=farm_filters(name)):
        with contextlib.suppress(sdk().errors.NotFound, sdk().errors.APIError):
            network.remove()


def parse_memory(memory: str) -> str:
    """Validate a docker memory string such as 256m or 1g."""
    text = memory.strip().lower()
    if not text or (not text[:-1].isdigit() and not text.isdigit()) or text[-1] not in "0123456789kmg":
        raise MgfarmError(f"Memory limit {memory!r} is not valid; use a number with k, m or g, e.g. 256m.")
    return text


# What the emulator process needs beside the guest's RAM (qemu, the GPU emulation, the snapshot's pages).
EMULATOR_OVERHEAD_MIB = 768


def memory_mib(memory: str) -> int:
    """A docker memory string (bytes, k, m or g) in MiB, rounded down."""
    text = parse_memory(memory)
    scale = {"k": 1 / 1024, "m": 1, "g": 1024}.get(text[-1], 1 / 1024 / 1024)
    number = text[:-1] if text[-1] in "kmg" else text
    return int(int(number) * scale)


def check_guest_memory(memory: str, ram_mb: int, snapshot: str) -> None:
    """Refuse a container memory limit that cannot hold the snapshot's emulator (it would be OOM-killed)."""
    need = ram_mb + EMULATOR_OVERHEAD_MIB
    if ram_mb and memory_mib(memory) < need:
        raise MgfarmError(
            f"Snapshot {snapshot!r} runs an emulator with {ram_mb} MB of guest RAM, which does not fit in "
            f"--memory {memory}; pass --memory {-(-need // 1024)}g or more (or leave --memory out)."
        )


def needs_kvm(labels: dict[str, str]) -> bool:
    """The image's own label decides (the stand-in emulator says false); else every emulator does."""
    if KVM_LABEL in labels:
        return labels[KVM_LABEL].lower() == "true"
    return labels.get("org.mgfarm.backend") == "emulator"


class DockerBackend(Backend):
    """Runs each replica as a container of an mgfarm-compatible image."""

    name = "docker"
    snapshot_store = "image"  # each container keeps its own, a built one comes in a committed image

    def __init__(
        self,
        image: str = SIM_IMAGE,
        cpus: float | None = None,
        memory: str | None = None,
        farm: str = "",
        grpc: bool = False,
        storage: str | None = None,
    ) -> None:
        """cpus/memory None: the image's defaults (labels, else its kind: sim 1 CPU/256m, emulator 2/4g).

        `grpc`: publish each sim container's gRPC port. The emulator image serves its gRPC only to
        callers holding the token of its discovery file (`-grpc-use-token`, inside the container),
        so it gets none: a published port android_env could not use would only mislead.
        """
        self.client: Any = docker_client()
        self.image = image
        if memory is not None:
            parse_memory(memory)  # a bad flag is refused before the engine is asked about the image
        try:
            labels = self.client.images.get(image).labels or {}
        except sdk().errors.ImageNotFound:
            hints = {
                SIM_IMAGE: "build it with `mgfarm images build`",
                EMULATOR_IMAGE: "build it with `mgfarm images build emulator --accept-android-sdk-licenses`",
            }
            hint = hints.get(image, "build or load it first")
            raise MgfarmError(f"Docker image {image!r} is not on this machine; {hint}.") from None
        self.kind = labels.get("org.mgfarm.backend", "sim")
        self.grpc = grpc and self.kind == "sim"
        if storage and self.kind != "sim":
            raise MgfarmError(
                f"--storage sizes a simulated device's data partition; image {image!r} runs an emulator, "
                "whose partition its AVD fixes: leave --storage out."
            )
        self.storage = storage
        default_cpus, default_memory = resource_defaults(labels)
        self.cpus = default_cpus if cpus is None else cpus
        self.memory = parse_memory(default_memory if memory is None else memory)
        self.devices: list[str] = []
        self.groups: list[str] = []
        self._ports_lock = threading.Lock()
        self._running: set[str] = set()
        self._listed_at = 0.0
        self._listed_farm = ""
        if needs_kvm(labels):
            if not os.path.exists("/dev/kvm"):
                raise MgfarmError(f"Image {image!r} needs /dev/kvm, which this host lacks; use a KVM host.")
            self.devices = ["/dev/kvm:/dev/kvm:rwm"]
            # The image runs as a non-root user; the node keeps the host's owner group.
            self.groups = [str(os.stat("/dev/kvm").st_gid)]

    @classmethod
    def options(cls, flags: UpFlags) -> dict[str, object]:
        """The image (default: the sim image), and CPUs and memory (None: the image's defaults)."""
        return {
            "image": resolve_image(flags.image),
            "cpus": flags.cpus,
            "memory": flags.memory,
            "grpc": flags.grpc,
            "storage": flags.storage,
        }

    def check_profile(self, profile: str) -> None:
        """The emulator image is one system image (android13, google_apis); a sim runs every profile."""
        if self.kind != "sim" and profile != DEFAULT_PROFILE:
            raise MgfarmError(
                f"Image {self.image!r} runs the {DEFAULT_PROFILE} system image, not profile {profile!r}; "
                f"leave --profile at {DEFAULT_PROFILE} or use --backend process for {profile}."
            )

    def check_snapshot(self, ram_mb: int, snapshot: str) -> None:
        if ram_mb:
            check_guest_memory(self.memory, ram_mb, snapshot)

    def _container_name(self, farm: FarmState, rep: Replica) -> str:
        return f"mgfarm-{owner_id()}-{farm.name}-{rep.index}"

    def _network(self, farm: FarmState) -> str:
        """The farm's bridge network, created once: no traffic between its containers."""
        name = network_name(farm.name)
        with self._ports_lock:
            if not self.client.networks.list(names=[name], filters=farm_filters(farm.name)):
                self.client.networks.create(
                    name,
                    driver="bridge",
                    options={"com.docker.network.bridge.enable_icc": "false"},
                    labels={FARM_LABEL: farm.name, OWNER_LABEL: owner_id()},
                )
        return name

    def _get(self, farm: FarmState, rep: Replica) -> Any:
        try:
            return self.client.containers.get(rep.backend_id or self._container_name(farm, rep))
        except sdk().errors.NotFound:
            return None

    def _run(self, farm: FarmState, rep: Replica) -> Any:
        ports: dict[str, tuple[str, int]] = {
            f"{CONTAINER_CONSOLE_PORT}/tcp": ("127.0.0.1", rep.console_port),
            f"{CONTAINER_ADB_PORT}/tcp": ("127.0.0.1", rep.adb_port),
        }
        command: list[str] = []
        if self.kind == "sim":  # its entrypoint hands these to `sim serve` (docker/sim/entrypoint.sh)
            if farm.profile != DEFAULT_PROFILE:  # named only when needed: older sim images lack it
                command += ["--profile", farm.profile]
            if rep.grpc_port:
                command += ["--grpc", str(CONTAINER_GRPC_PORT)]
                ports[f"{CONTAINER_GRPC_PORT}/tcp"] = ("127.0.0.1", rep.grpc_port)
            if self.storage:
                command += ["--storage", self.storage]
        try:
            return self.client.containers.run(
                self.image,
                command=command or None,
                name=self._container_name(farm, rep),
                detach=True,
                labels={FARM_LABEL: farm.name, OWNER_LABEL: owner_id(), REPLICA_LABEL: str(rep.index)},
                network=self._network(farm),
                environment={"MGFARM_CONSOLE_TOKEN": rep.console_token},
                ports=ports,
                nano_cpus=int(self.cpus * 1e9),
                mem_limit=self.memory,
                devices=self.devices,
                group_add=self.groups,
                privileged=False,
                init=False,
            )
        except sdk().errors.APIError as exc:
            raise MgfarmError(f"Docker could not start replica {rep.index}: {exc.explanation}") from None

    def _start_one(self, farm: FarmState, rep: Replica) -> None:
        """Run one container; when its host ports were taken meanwhile, move it to a free pair."""
        for attempt in range(PORT_ATTEMPTS):
            old = self._get(farm, rep)
            if old is not None:
                old.remove(force=True)
            try:
                container = self._run(farm, rep)
                break
            except MgfarmError as exc:
                taken = "already in use" in str(exc) or "already allocated" in str(exc)
                if not taken or attempt == PORT_ATTEMPTS - 1:
                    raise
                with self._ports_lock:
                    self.relocate(farm, rep)
        rep.backend_id = container.id
        rep.started_at = time.time()
        self._listed_at = 0.0  # the listing predates this container

    def start(self, farm: FarmState, replicas: list[Replica], farm_dir: Path) -> None:
        # The engine creates containers concurrently well; one at a time costs ~1-2 s each.
        with ThreadPoolExecutor(max_workers=START_THREADS) as pool:
            for future in [pool.submit(self._start_one, farm, rep) for rep in replicas]:
                future.result()

    def _running_ids(self, farm: FarmState) -> set[str]:
        """Ids of the farm's running containers; one engine call per half second, not one per replica."""
        now = time.monotonic()
        with self._ports_lock:
            if now - self._listed_at > STATUS_TTL or self._listed_farm != farm.name:
                found = self.client.containers.list(filters=farm_filters(farm.name))
                self._running = {c.id for c in found if c.status == "running"}
                self._listed_at, self._listed_farm = now, farm.name
            return self._running

    def alive(self, farm: FarmState, rep: Replica) -> bool:
        return rep.backend_id in self._running_ids(farm)

    def publish_snapshot(self, farm: FarmState, rep: Replica, name: str, farm_dir: Path) -> None:
        """Seal the snapshot the container saved: moved to its read-only golden folder, owned by root.

        Each container keeps its own golden (nothing is shared between containers); once there,
        the device's sandbox can read it but never change it (docker/sim/entrypoint.sh).
        """
        if self.kind == "emulator":
            return  # an emulator keeps its snapshots inside its AVD; there is no sim folder to seal
        container = self._get(farm, rep)
        if container is None:
            raise MgfarmError(f"Replica {rep.index} has no container to seal snapshot {name!r} in.")
        source, target = shlex.quote(f"{SIM_DATA}/snapshots/{name}"), shlex.quote(f"{SIM_GOLDEN}/{name}")
        script = f"mv {source} {target} && chown -R 0:0 {target} && chmod -R a-w {target}"
        code, output = container.exec_run(["sh", "-c", script], user="0")
        if code != 0:
            text = output.decode(errors="replace").strip()
            raise MgfarmError(f"Replica {rep.index} could not seal snapshot {name!r}: {text}")

    def kill(self, farm: FarmState, rep: Replica, force: bool = False) -> None:
        container = self._get(farm, rep)
        if container is not None:
            container.remove(force=True)

    def farm_containers(self, name: str) -> list[Any]:
        return list(self.client.containers.list(all=True, filters=farm_filters(name)))

    def stop_all(self, farm: FarmState) -> list[str]:
        def remove(container: Any) -> None:
            with contextlib.suppress(sdk().errors.NotFound):
                container.remove(force=True)

        with ThreadPoolExecutor(max_workers=START_THREADS) as pool:
            list(pool.map(remove, self.farm_containers(farm.name)))
        left = [f"container {c.name}" for c in self.farm_containers(farm.name)]
        if not left:
            remove_farm_network(self.client, farm.name)
        return left

    def logs(self, farm: FarmState, rep: Replica, farm_dir: Path, tail: int) -> str:
        container = self._get(farm, rep)
        if container is None:
            return ""
        return str(container.logs(tail=tail).decode(errors="replace"))

    def memory_kib(self, farm: FarmState) -> int:
        """Container memory without page cache (what `docker stats` shows), summed over the farm."""
        running = [c for c in self.farm_containers(farm.name) if c.status == "running"]
        with ThreadPoolExecutor(max_workers=START_THREADS) as pool:
            return sum(pool.map(_container_kib, running))


def _container_kib(container: Any) -> int:
    stats = container.stats(stream=False, one_shot=True)  # no 1 s wait for a second sample
    usage = stats.get("memory_stats", {})
    cache = usage.get("stats", {}).get("inactive_file", usage.get("stats", {}).get("cache", 0))
    return max(0, int(usage.get("usage", 0)) - int(cache)) // 1024
