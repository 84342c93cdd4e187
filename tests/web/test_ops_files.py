"""The container image and the Kubernetes manifests of ``gpuplan serve``: every manifest is valid
for Kubernetes (kubernetes-validate, strict), the Deployment reads the database URL from the
Secret, has readiness and liveness probes on paths the service answers, and the Service reaches its
pods; the Dockerfile runs the same command as a non-root user."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from serve_helpers import Service

REPO = Path(__file__).resolve().parents[2]
K8S_VERSION = "1.33.0"


@pytest.fixture(scope="module")
def docs() -> dict[str, dict[str, Any]]:
    found = [d for d in yaml.safe_load_all((REPO / "k8s" / "gpuplan-serve.yaml").read_text()) if d]
    return {d["kind"]: d for d in found}


def test_every_manifest_is_valid_kubernetes(docs: dict[str, dict[str, Any]]) -> None:
    assert set(docs) == {"Secret", "Deployment", "Service"}
    for doc in docs.values():
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_deployment_uses_the_secret_probes_and_the_service(docs: dict[str, dict[str, Any]]) -> None:
    deployment, service, secret = docs["Deployment"], docs["Service"], docs["Secret"]
    assert deployment["spec"]["replicas"] >= 2
    pod = deployment["spec"]["template"]
    container = pod["spec"]["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    ref = env["GPUPLAN_DB"]["valueFrom"]["secretKeyRef"]
    assert ref["name"] == secret["metadata"]["name"] and ref["key"] in secret["stringData"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/api/v1/health"
    assert container["livenessProbe"]["httpGet"]["path"] == "/api/v1/live"
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    port_names = {p["name"] for p in container["ports"]}
    assert service["spec"]["ports"][0]["targetPort"] in port_names
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True


def test_the_probed_paths_answer(service: Service) -> None:
    assert service.client.get("/api/v1/health").status_code == 200
    assert service.client.get("/api/v1/live").status_code == 200


def test_the_image_runs_gpuplan_serve_as_a_non_root_user(docs: dict[str, dict[str, Any]]) -> None:
    text = (REPO / "Dockerfile").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert lines[0] == "FROM debian:bookworm-slim"  # Debian's Python 3.11, updated with the image
    assert 'ENTRYPOINT ["gpuplan", "serve", "--host", "0.0.0.0", "--port", "8000"]' in lines
    assert "USER 10001" in lines and "EXPOSE 8000" in lines
    port = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"]
    assert port == 8000
    assert "'.[torch,hf,postgres,serve]'" in text
