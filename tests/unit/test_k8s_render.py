"""`mgfarm k8s render`: manifests a cluster accepts, with the properties operators rely on."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from typer.testing import CliRunner

from mgfarm.cli import app
from mgfarm.errors import MgfarmError
from mgfarm.k8s import RenderOptions, render_documents, write_manifests
from mgfarm.k8s.render import load_manifests

K8S_VERSION = "1.30.0"


def by_kind(documents: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["kind"]: d for d in documents.values()}


def container(docs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (only,) = by_kind(docs)["StatefulSet"]["spec"]["template"]["spec"]["containers"]
    return only


@pytest.mark.parametrize("kind", ["sim", "emulator"])
def test_every_object_validates_against_the_strict_kubernetes_schema(kind: str) -> None:
    docs = render_documents(RenderOptions(replicas=3, image="mgfarm/sim:latest", kind=kind))  # type: ignore[arg-type]
    assert set(by_kind(docs)) == {"StatefulSet", "Service", "Secret", "ConfigMap", "NetworkPolicy"}
    for document in docs.values():
        # strict: unknown fields (typos such as `containerport`) are errors, as on a real API server.
        kubernetes_validate.validate(document, K8S_VERSION, strict=True)


def test_the_schema_check_catches_a_broken_manifest() -> None:
    docs = render_documents(RenderOptions(replicas=1, image="img"))
    sts = by_kind(docs)["StatefulSet"]
    sts["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerport"] = 5554
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(sts, K8S_VERSION, strict=True)


def test_statefulset_and_headless_service_fit_together() -> None:
    docs = by_kind(render_documents(RenderOptions(replicas=5, image="img", name="farm-a", namespace="rl")))
    sts, svc = docs["StatefulSet"], docs["Service"]
    assert sts["spec"]["replicas"] == 5
    assert sts["spec"]["serviceName"] == svc["metadata"]["name"] == "farm-a"
    assert svc["spec"]["clusterIP"] == "None"
    pod_labels = sts["spec"]["template"]["metadata"]["labels"]
    for key, value in sts["spec"]["selector"]["matchLabels"].items():
        assert pod_labels[key] == value
    for key, value in svc["spec"]["selector"].items():
        assert pod_labels[key] == value
    assert {p["port"] for p in svc["spec"]["ports"]} == {5554, 5555}
    for document in docs.values():
        assert document["metadata"]["namespace"] == "rl"
        assert document["metadata"]["labels"]["app.kubernetes.io/instance"] == "farm-a"


def test_emulator_pods_get_kvm_from_a_device_plugin_and_are_never_privileged() -> None:
    emu = container(render_documents(RenderOptions(replicas=2, image="emu", kind="emulator")))
    assert emu["resources"]["limits"]["devices.kubevirt.io/kvm"] == "1"
    assert emu["resources"]["requests"] == {"cpu": "2", "memory": "4Gi"}
    assert emu["securityContext"]["privileged"] is False
    assert not any("/dev/kvm" in str(m) for m in emu["volumeMounts"])
    sim = container(render_documents(RenderOptions(replicas=2, image="sim", kind="sim")))
    assert "devices.kubevirt.io/kvm" not in sim["resources"]["limits"]
    assert sim["securityContext"]["privileged"] is False


def test_resource_requests_are_per_replica_and_overridable() -> None:
    c = container(render_documents(RenderOptions(replicas=4, image="sim", cpu="500m", memory="1Gi")))
    assert c["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}


@pytest.mark.parametrize(("kind", "folder"), [("sim", "sim"), ("emulator", "emulator")])
def test_readiness_runs_the_images_own_sys_boot_completed_check(kind: str, folder: str) -> None:
    c = container(render_documents(RenderOptions(replicas=1, image="img", kind=kind)))  # type: ignore[arg-type]
    assert {p["name"]: p["containerPort"] for p in c["ports"]} == {"console": 5554, "adb": 5555}
    probe = c["readinessProbe"]["exec"]["command"]
    assert c["startupProbe"]["exec"]["command"] == probe
    # The probe is the healthcheck the image ships (docker/<kind>/), which reads sys.boot_completed.
    image_dir = Path(__file__).parents[2] / "docker" / folder
    if not image_dir.is_dir():
        pytest.skip(f"{image_dir} is not in this tree")
    script = Path(probe[-1]).name
    assert "sys.boot_completed" in (image_dir / script).read_text()
    dockerfile = (image_dir / "Dockerfile").read_text()
    assert script in dockerfile and "/usr/local/bin/" in dockerfile
    entrypoint = next(image_dir.glob("entrypoint.sh")).read_text()
    assert "MGFARM_CONSOLE_TOKEN" in entrypoint


def test_every_pod_gets_the_farm_console_token_from_the_secret() -> None:
    docs = by_kind(render_documents(RenderOptions(replicas=2, image="emu", kind="emulator")))
    env = {e["name"]: e for e in docs["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    ref = env["MGFARM_CONSOLE_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert ref["name"] == docs["Secret"]["metadata"]["name"]
    assert docs["Secret"]["stringData"][ref["key"]] and "\n" not in docs["Secret"]["stringData"][ref["key"]]


def test_farm_config_names_every_replica_by_its_stable_dns_name() -> None:
    docs = by_kind(render_documents(RenderOptions(replicas=3, image="img", name="f", namespace="ns")))
    farm = yaml.safe_load(docs["ConfigMap"]["data"]["farm.yaml"])
    hosts = [r["host"] for r in farm["replicas"]]
    assert hosts == [f"f-{i}.f.ns.svc.cluster.local" for i in range(3)]
    assert farm["console_token_secret"] == docs["Secret"]["metadata"]["name"]


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"replicas": 0}, "--replicas"),
        ({"image": ""}, "--image"),
        ({"name": "Bad_Name"}, "--name"),
        ({"namespace": "UPPER"}, "--namespace"),
    ],
)
def test_bad_options_are_refused_with_the_flag_named(options: dict[str, Any], fragment: str) -> None:
    base: dict[str, Any] = {"replicas": 1, "image": "img"}
    with pytest.raises(MgfarmError, match=fragment):
        render_documents(RenderOptions(**{**base, **options}))


def test_write_manifests_gives_a_folder_kubectl_applies(tmp_path: Path) -> None:
    out = tmp_path / "k8s"
    written = write_manifests(RenderOptions(replicas=2, image="img"), out)
    assert out / "farm" / "farm.yaml" in written
    kinds = sorted(str(d["kind"]) for d in load_manifests(out))
    # farm.yaml sits in a sub-folder, which `kubectl apply -f out/` does not descend into.
    assert kinds == ["ConfigMap", "NetworkPolicy", "Secret", "Service", "StatefulSet"]
    assert stat.S_IMODE((out / "secret.yaml").stat().st_mode) == 0o600


def test_cli_renders_and_refuses_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["k8s", "render", "--replicas", "2", "--image", "img", "--out", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "statefulset.yaml").is_file()
    bad = runner.invoke(app, ["k8s", "render", "--replicas", "2", "--image", "img", "--kind", "vm"])
    assert bad.exit_code != 0


def test_only_the_farms_client_pods_reach_the_devices_and_devices_reach_nothing() -> None:
    docs = by_kind(render_documents(RenderOptions(replicas=2, image="img", name="farm-a")))
    policy, sts = docs["NetworkPolicy"], docs["StatefulSet"]
    pod_labels = sts["spec"]["template"]["metadata"]["labels"]
    assert all(pod_labels[k] == v for k, v in policy["spec"]["podSelector"]["matchLabels"].items())
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["egress"] == []
    (rule,) = policy["spec"]["ingress"]
    assert rule["from"] == [{"podSelector": {"matchLabels": {"mgfarm.dev/client": "farm-a"}}}]
    assert sorted(p["port"] for p in rule["ports"]) == [5554, 5555]
    config = yaml.safe_load(docs["ConfigMap"]["data"]["farm.yaml"])
    assert config["client_pod_labels"] == {"mgfarm.dev/client": "farm-a"}


def _token(out: Path) -> str:
    return str(yaml.safe_load((out / "secret.yaml").read_text())["stringData"]["token"])


def test_rendering_again_keeps_the_console_token_unless_asked(tmp_path: Path) -> None:
    out = tmp_path / "k8s"
    write_manifests(RenderOptions(replicas=2, image="img"), out)
    first = _token(out)
    write_manifests(RenderOptions(replicas=4, image="img"), out)
    assert _token(out) == first
    write_manifests(RenderOptions(replicas=4, image="img"), out, new_token=True)
    assert _token(out) != first
    # Another farm's folder never lends its token.
    other = _token(out)
    write_manifests(RenderOptions(replicas=1, image="img", name="farm-b"), out)
    assert _token(out) != other
