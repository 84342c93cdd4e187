"""The service's deploy archive gives an engine's pods the time and disk their weights take, as the
command line's files do."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import yaml
from serve_helpers import Service

from service_plans import llama1b_two_to_a_node

FIXTURE = Path(__file__).parent.parent / "deploy" / "fixtures" / "plan_spot_aws.json"


def test_the_archive_of_an_engine_service_requests_the_disk_of_its_weights(service: Service) -> None:
    # a Llama-3.2-1B service at four GPUs a replica on an 8-GPU p4d.24xlarge: two to a node
    plan = llama1b_two_to_a_node(json.loads(FIXTURE.read_text()))
    body = {"plan": plan, "target": "k8s"}
    r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    docs = yaml.safe_load_all(archive.read("k8s/k8s/deployment.yaml").decode())
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["requests"]["ephemeral-storage"] == "3Gi"
    assert "2 replicas run on each p4d.24xlarge" in archive.read("k8s/README.md").decode()
