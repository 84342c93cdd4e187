"""The service's deploy archive starts the DataLoader workers the plan's time assumes, as the command
line's does: the plan's instance's vCPUs per GPU, read from the catalog."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import yaml
from serve_helpers import Service

from gpuplan.documents.plan import workload_digest
from gpuplan.workload import Workload

_VIT = (
    "name: vit\ntask: train\nmodel: {preset: vit-b16}\ninputs: {batch_size: 256, image_size: 224}\n"
    "precision: amp-bf16\noptimizer: adamw\nparallelism: ddp\n"
    "data: {samples: 1281167, epochs: 300, size_gb: 140}\n"
)


def test_the_archives_train_py_takes_the_plans_instance_vcpus(service: Service) -> None:
    fixture = Path(__file__).parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json"
    doc = json.loads(fixture.read_text())
    doc["workload"] = Workload.from_dict(yaml.safe_load(_VIT)).to_dict()
    doc["workload_sha256"] = workload_digest(doc["workload"])
    # g5.2xlarge: 8 vCPUs and 1 A10G, where a typical A10G instance has 16 vCPUs per GPU
    doc["recommended"] |= {
        "instance_type": "g5.2xlarge",
        "gpu": "A10G",
        "gpu_count": 1,
        "gpus_per_node": 1,
        "nodes": 1,
        "pricing": "on_demand",
    }
    r = service.client.post(
        "/api/v1/deploy", json={"plan": doc, "target": "torchrun"}, headers=service.auth("plan")
    )
    assert r.status_code == 200, r.text
    train_py = zipfile.ZipFile(io.BytesIO(r.content)).read("torchrun/train.py").decode()
    assert re.search(r"^NUM_WORKERS = 8\b", train_py, re.M), train_py[:3000]


def test_the_archive_says_a_resume_beyond_the_instances_memory(service: Service) -> None:
    # a 14.8 B-parameter FSDP fine-tune on p4d.24xlarge (8 x A100-40GB, 1,152 GiB in the catalog):
    # its resume holds 9 copies of the 177.24 GB checkpoint on a node
    fixture = Path(__file__).parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json"
    doc = json.loads(fixture.read_text())
    doc["workload"] = Workload.from_dict(
        yaml.safe_load(
            "name: q\ntask: finetune\nmodel: {preset: qwen2.5-14b}\ninputs: {batch_size: 2, seq_len: 4096}\n"
            "precision: amp-bf16\noptimizer: adamw\ngradient_checkpointing: true\nparallelism: zero3\n"
            "data: {tokens: 2B, epochs: 1, size_gb: 20}\n"
        )
    ).to_dict()
    doc["workload_sha256"] = workload_digest(doc["workload"])
    doc["checkpoint_gb"] = 177.236498432
    r = service.client.post(
        "/api/v1/deploy", json={"plan": doc, "target": "torchrun"}, headers=service.auth("plan")
    )
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    note = archive.read("NOTE.txt").decode()
    assert "1,486 GiB a node, but p4d.24xlarge has 1152 GiB (the catalog's)" in note
    assert "1,486 GiB a node, but p4d.24xlarge has 1152 GiB" in archive.read("torchrun/README.md").decode()
