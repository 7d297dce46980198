"""Build the Kubernetes objects of a farm as plain dicts (no cluster or client needed).

One pod holds one device (a simulated device or an emulator) listening on the emulator's usual
ports: console 5554 and adb 5555. A headless Service gives every pod a stable DNS name
`<name>-<i>.<name>.<namespace>.svc.cluster.local`, which is how a trainer reaches replica i.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from mgfarm.errors import MgfarmError

Kind = Literal["sim", "emulator"]
Manifest = dict[str, Any]

CONSOLE_PORT = 5554
ADB_PORT = 5555
DATA_DIR = "/var/lib/mgfarm"
KVM_RESOURCE = "devices.kubevirt.io/kvm"
# Readiness = sys.boot_completed=1, checked by each image's own healthcheck (docker/*/):
# both ask their device over the ADB transport (no adb in the images); the emulator image also needs
# an answering console (docker/emulator/healthcheck.py).
READINESS: dict[str, list[str]] = {
    "sim": ["/opt/mgfarm/bin/python", "/usr/local/bin/healthcheck.py"],
    "emulator": ["python3", "/usr/local/bin/healthcheck.py"],
}

# Per-replica defaults: a simulated device is a small Python process; an emulator wants 2 vCPU and
# about 4 GiB (see shared/reference/anchors.md for the published figures).
DEFAULT_REQUESTS: dict[str, tuple[str, str]] = {"sim": ("250m", "256Mi"), "emulator": ("2", "4Gi")}

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@dataclass(frozen=True)
class RenderOptions:
    """What `mgfarm k8s render` was asked for."""

    replicas: int
    image: str
    kind: Kind = "sim"
    name: str = "mgfarm"
    namespace: str = "default"
    cpu: str | None = None
    memory: str | None = None
    kvm_resource: str = KVM_RESOURCE
    console_token: str = field(default_factory=lambda: secrets.token_hex(16))

    @property
    def requests(self) -> dict[str, str]:
        """CPU and memory asked for one replica (one pod)."""
        cpu, memory = DEFAULT_REQUESTS[self.kind]
        return {"cpu": self.cpu or cpu, "memory": self.memory or memory}

    @property
    def service(self) -> str:
        return self.name

    @property
    def token_secret(self) -> str:
        return f"{self.name}-console-token"

    @property
    def config_map(self) -> str:
        return f"{self.name}-farm"


def check_options(opts: RenderOptions) -> None:
    """Refuse options that would render manifests a cluster rejects."""
    if opts.replicas < 1:
        raise MgfarmError(f"--replicas must be at least 1, got {opts.replicas}; pass a positive count.")
    if opts.kind not in DEFAULT_REQUESTS:
        raise MgfarmError(f"--kind must be 'sim' or 'emulator', got {opts.kind!r}; pick one of those two.")
    if not opts.image.strip() or any(c.isspace() for c in opts.image):
        raise MgfarmError(f"--image {opts.image!r} is not an image reference; pass e.g. mgfarm/sim:latest.")
    # StatefulSet pod names are `<name>-<ordinal>` and must stay valid DNS labels (<= 63 chars).
    if not _DNS_LABEL.match(opts.name) or len(opts.name) > 52:
        raise MgfarmError(
            f"--name {opts.name!r} is not a DNS label; use lower-case letters, digits and '-' (<= 52 chars)."
        )
    if not _DNS_LABEL.match(opts.namespace) or len(opts.namespace) > 63:
        raise MgfarmError(
            f"--namespace {opts.namespace!r} is not a DNS label; use e.g. 'default' or 'mgfarm'."
        )


def parse_kind(value: str) -> Kind:
    """The pod kind from the command line."""
    if value == "sim":
        return "sim"
    if value == "emulator":
        return "emulator"
    raise MgfarmError(f"--kind must be 'sim' or 'emulator', got {value!r}; pick one of those two.")


def labels(opts: RenderOptions) -> dict[str, str]:
    """Labels on every object; the first three also select the pods."""
    return {
        "app.kubernetes.io/name": "mgfarm",
        "app.kubernetes.io/instance": opts.name,
        "app.kubernetes.io/component": "device",
        "mgfarm.dev/kind": opts.kind,
    }


def selector(opts: RenderOptions) -> dict[str, str]:
    return {k: v for k, v in labels(opts).items() if k != "mgfarm.dev/kind"}


def replica_host(opts: RenderOptions, index: int) -> str:
    """The stable DNS name of replica `index`, given by the headless Service."""
    return f"{opts.name}-{index}.{opts.service}.{opts.namespace}.svc.cluster.local"


def _container(opts: RenderOptions) -> Manifest:
    resources: dict[str, dict[str, str]] = {"requests": dict(opts.requests), "limits": {}}
    resources["limits"]["memory"] = opts.requests["memory"]
    if opts.kind == "emulator":
        # Extended resources from a device plugin go in limits (requests default to the same value);
        # this is how the pod gets /dev/kvm without privileged mode.
        resources["limits"][opts.kvm_resource] = "1"
    probe = READINESS[opts.kind]
    container: Manifest = {
        "name": "device",
        "image": opts.image,
        "ports": [
            {"name": "console", "containerPort": CONSOLE_PORT, "protocol": "TCP"},
            {"name": "adb", "containerPort": ADB_PORT, "protocol": "TCP"},
        ],
        "env": [
            # Both images' entrypoints write this token where their console reads it.
            {
                "name": "MGFARM_CONSOLE_TOKEN",
                "valueFrom": {"secretKeyRef": {"name": opts.token_secret, "key": "token"}},
            },
            {"name": "MGFARM_REPLICA", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ],
        "resources": resources,
        "securityContext": {"privileged": False, "allowPrivilegeEscalation": False},
        "volumeMounts": [{"name": "data", "mountPath": DATA_DIR}],
        "readinessProbe": {
            "exec": {"command": list(probe)},
            "periodSeconds": 5,
            "timeoutSeconds": 10,
            "failureThreshold": 3,
        },
        "startupProbe": {
            "exec": {"command": list(probe)},
            "periodSeconds": 5,
            "timeoutSeconds": 10,
            # A cold emulator boot can take minutes without a snapshot; a sim boots in about a second.
            "failureThreshold": 120 if opts.kind == "emulator" else 24,
        },
        # Not a TCP probe on adb: the emulator serves one adb client well, so probes stay in the pod.
        "livenessProbe": {"exec": {"command": list(probe)}, "periodSeconds": 10, "timeoutSeconds": 10},
    }
    return container


def statefulset(opts: RenderOptions) -> Manifest:
    """One pod per replica, started all at once, each with a stable name and DNS entry."""
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": opts.name, "namespace": opts.namespace, "labels": labels(opts)},
        "spec": {
            "serviceName": opts.service,
            "replicas": opts.replicas,
            # Devices do not depend on each other: no need for the ordered one-by-one start.
            "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": selector(opts)},
            "template": {
                "metadata": {"labels": labels(opts)},
                "spec": {
                    "automountServiceAccountToken": False,
                    "terminationGracePeriodSeconds": 10,
                    "containers": [_container(opts)],
                    # Device state is reset from the golden snapshot; nothing needs to outlive the pod.
                    "volumes": [{"name": "data", "emptyDir": {}}],
                },
            },
        },
    }


def headless_service(opts: RenderOptions) -> Manifest:
    """clusterIP None: DNS resolves each pod by name instead of load-balancing across devices."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": opts.service, "namespace": opts.namespace, "labels": labels(opts)},
        "spec": {
            "clusterIP": "None",
            "selector": selector(opts),
            "ports": [
                {"name": "console", "port": CONSOLE_PORT, "targetPort": "console", "protocol": "TCP"},
                {"name": "adb", "port": ADB_PORT, "targetPort": "adb", "protocol": "TCP"},
            ],
        },
    }


def console_token_secret(opts: RenderOptions) -> Manifest:
    """The emulator console token shared by the farm's pods (the console refuses commands without it)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": opts.token_secret, "namespace": opts.namespace, "labels": labels(opts)},
        "type": "Opaque",
        # No trailing newline: adb and the console compare the file's bytes untrimmed.
        "stringData": {"token": opts.console_token},
    }


def client_labels(opts: RenderOptions) -> dict[str, str]:
    """The label a pod needs to reach the farm's devices (a trainer's pod template adds it)."""
    return {"mgfarm.dev/client": opts.name}


def network_policy(opts: RenderOptions) -> Manifest:
    """Devices take console and adb connections only from the farm's client pods and open none.

    Without it every pod in the cluster could get a shell on a replica (on the emulator image a root
    shell) or drive another team's devices; a device needs no outgoing traffic at all.
    """
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": f"{opts.name}-devices", "namespace": opts.namespace, "labels": labels(opts)},
        "spec": {
            "podSelector": {"matchLabels": selector(opts)},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [
                {
                    "from": [{"podSelector": {"matchLabels": client_labels(opts)}}],
                    "ports": [{"protocol": "TCP", "port": p} for p in (CONSOLE_PORT, ADB_PORT)],
                }
            ],
            "egress": [],
        },
    }


def farm_config(opts: RenderOptions) -> dict[str, Any]:
    """Where each replica is, for a trainer: address, ports, and where to find the console token."""
    return {
        "name": opts.name,
        "backend": "kubernetes",
        "kind": opts.kind,
        "namespace": opts.namespace,
        "service": opts.service,
        "image": opts.image,
        "console_token_secret": opts.token_secret,
        # Only pods carrying this label reach the devices (the NetworkPolicy).
        "client_pod_labels": client_labels(opts),
        "replicas": [
            {
                "index": i,
                "pod": f"{opts.name}-{i}",
                "host": replica_host(opts, i),
                "adb_port": ADB_PORT,
                "console_port": CONSOLE_PORT,
            }
            for i in range(opts.replicas)
        ],
    }


def farm_config_map(opts: RenderOptions, farm_yaml: str) -> Manifest:
    """The farm config as a ConfigMap, so a trainer pod can mount it."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": opts.config_map, "namespace": opts.namespace, "labels": labels(opts)},
        "data": {"farm.yaml": farm_yaml},
    }


def farm_yaml(opts: RenderOptions) -> str:
    """The farm config as the YAML text written to farm.yaml and into the ConfigMap."""
    return yaml.safe_dump(farm_config(opts), sort_keys=False)


def render_documents(opts: RenderOptions) -> dict[str, Manifest]:
    """Every Kubernetes object of the farm, by the file name it is written to."""
    check_options(opts)
    return {
        "service.yaml": headless_service(opts),
        "secret.yaml": console_token_secret(opts),
        "networkpolicy.yaml": network_policy(opts),
        "configmap.yaml": farm_config_map(opts, farm_yaml(opts)),
        "statefulset.yaml": statefulset(opts),
    }
