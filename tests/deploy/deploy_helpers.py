"""Shared helpers of the deploy tests: fixture paths, specs, schema validators (imported by the
tests as ``deploy_helpers``; the fixtures are in ``conftest.py``, which pytest loads itself — a test
that imported ``conftest`` got another folder's when run beside it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

from gpuplan.deploy import GeneratedFile, GenerateOptions, LaunchSpec
from gpuplan.deploy.batch import EXIT_NO_GPU

FIXTURES = Path(__file__).parent / "fixtures"
SCHEMAS = Path(__file__).parent / "schemas"

#: Kubernetes version whose OpenAPI schema the manifests are checked against (strict: unknown
#: fields are errors). 1.33 is the oldest minor still supported upstream in 2026 that has every
#: field the generators use (Job podFailurePolicy is GA since 1.31).
K8S_VERSION = "1.33.0"


def plan_doc(**recommended: Any) -> dict[str, Any]:
    """The spot fixture plan with some fields of its recommended option replaced."""
    doc = json.loads((FIXTURES / "plan_spot_aws.json").read_text())
    doc["recommended"].update(recommended)
    return doc


def serve_workload(tmp_path: Path, serving: str = "", *, model: str = "gpt2", top: str = "") -> Path:
    """A valid inference workload file of the preset ``model`` (GPT-2: served by an engine, a preset
    without Hub weights: by serve.py); ``serving`` adds fields to its serving block (YAML flow),
    ``top`` lines at the top level."""
    p = tmp_path / "serve.yaml"
    extra = f", {serving}" if serving else ""
    p.write_text(
        f"name: s\ntask: infer\nmodel: {{preset: {model}}}\ninputs: {{batch_size: 1, seq_len: 128}}\n{top}"
        f"serving: {{requests_per_s: 10, prompt_tokens: 100, output_tokens: 20{extra}}}\n"
    )
    return p


def by_path(files: list[GeneratedFile]) -> dict[str, str]:
    return {f.path: f.content for f in files}


def pod_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The pod spec of a Job or Deployment, or of a PyTorchJob's Master."""
    if doc["kind"] == "PyTorchJob":
        return doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    spec: dict[str, Any] = doc["spec"]["template"]["spec"]
    return spec


def yaml_docs(files: list[GeneratedFile]) -> list[dict[str, Any]]:
    """Every Kubernetes object in the generated k8s/*.yaml files (Helm values files excluded)."""
    docs = []
    for f in files:
        if f.path.startswith("k8s/") and f.path.endswith(".yaml") and "values" not in f.path:
            docs += [d for d in yaml.safe_load_all(f.content) if d]
    return docs


@cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text())


_CRD_SCHEMAS = {
    ("kubeflow.org/v1", "PyTorchJob"): "pytorchjob-kubeflow-v1.schema.json",
    ("keda.sh/v1alpha1", "ScaledObject"): "scaledobject-keda-v1alpha1.schema.json",
    ("monitoring.coreos.com/v1", "PodMonitor"): "podmonitor-monitoring-coreos-v1.schema.json",
}


def validate_k8s(doc: dict[str, Any]) -> None:
    """Core kinds: the Kubernetes OpenAPI schema (strict). CRDs: the schema extracted from their
    published CRD (schemas/extract_crd_schema.py), plus every pod template inside them as a core
    PodTemplate."""
    key = (doc["apiVersion"], doc["kind"])
    if key not in _CRD_SCHEMAS:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        return
    jsonschema.validate(doc, _schema(_CRD_SCHEMAS[key]))
    for template in _pod_templates(doc):
        kubernetes_validate.validate(
            {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}, "template": template},
            K8S_VERSION,
            strict=True,
        )


def _pod_templates(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if doc["kind"] == "PyTorchJob":
        return [r["template"] for r in doc["spec"]["pytorchReplicaSpecs"].values()]
    return []


def skypilot_schema_clouds() -> list[str]:
    """The clouds SkyPilot 0.14.1's resources schema accepts (its ``ALL_CLOUDS``)."""
    return list(
        _schema("skypilot-0.14.1-resources.schema.json")["properties"]["cloud"]["case_insensitive_enum"]
    )


def skypilot_validator(name: str) -> jsonschema.protocols.Validator:
    """SkyPilot's validator: Draft 7 plus its ``case_insensitive_enum`` keyword
    (sky/utils/validator.py), so cloud names are checked as SkyPilot checks them."""

    def case_insensitive_enum(validator: Any, enums: list[str], instance: Any, schema: Any) -> Any:
        if instance.lower() not in [e.lower() for e in enums]:
            yield jsonschema.ValidationError(f"{instance!r} is not one of {enums!r}")

    cls = jsonschema.validators.extend(
        jsonschema.Draft7Validator, validators={"case_insensitive_enum": case_insensitive_enum}
    )
    return cls(_schema(name))


def validate_skypilot_task(task: dict[str, Any]) -> None:
    """A task as SkyPilot 0.14.1 checks it: the task against ``get_task_schema()``, its resources
    against ``get_resources_schema()``, its ``service:`` section, where it has one, against
    ``get_service_schema()`` and each bucket of its ``file_mounts:`` (an entry that is a mapping)
    against ``get_storage_schema()`` (the task schema leaves them opaque objects; SkyPilot validates
    each with its own schema: ``sky/resources.py``, ``sky/serve/service_spec.py``,
    ``sky/data/storage.py``)."""
    skypilot_validator("skypilot-0.14.1-task.schema.json").validate(task)
    skypilot_validator("skypilot-0.14.1-resources.schema.json").validate(task["resources"])
    if "service" in task:
        skypilot_validator("skypilot-0.14.1-service.schema.json").validate(task["service"])
    for mount in task.get("file_mounts", {}).values():
        if isinstance(mount, dict):
            skypilot_validator("skypilot-0.14.1-storage.schema.json").validate(mount)


def stock_model(spec: LaunchSpec) -> LaunchSpec:
    """``spec`` with the model of the stock image (its own code dropped): the Kubernetes target runs
    a model of one's own code only from an image that holds it (``--image``)."""
    return spec.model_copy(update={"model_entry_point": None, "project_dir": None})


def k8s_options(spec: LaunchSpec, options: GenerateOptions | None = None) -> GenerateOptions:
    """``options`` (default: none) with an image for a model of one's own code, which the Kubernetes
    target needs; unchanged for any other model."""
    options = options or GenerateOptions()
    if spec.model_entry_point and not options.image:
        return replace(options, image="registry.example/own-model:1")
    return options


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """A batch runner's exit status and its output (stdout and stderr together), two minutes at most."""
    out, _ = proc.communicate(timeout=120)
    return proc.returncode, out


def refused_without_gpu(folder: Path, script: str, *args: str, doing: str) -> str:
    """Runs the generated ``script`` in ``folder`` with CUDA hidden (CUDA_VISIBLE_DEVICES empty, so
    torch sees no GPU on any machine) and no --device; checks that it refuses as train.py does (exit
    3, not argparse's 2 for a bad argument; one line naming what to check and ``--device cpu to
    {doing}``) and returns that line."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    r = subprocess.run(
        [sys.executable, script, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == EXIT_NO_GPU == 3, r.stdout + r.stderr  # not 2: a bad argument's
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and not r.stdout, r.stdout + r.stderr
    assert lines[0].startswith(f"{script}: CUDA sees no GPU"), lines[0]
    for what in ("nvidia-smi", "--gpus all", "driver", f"pass --device cpu to {doing} on the CPU on purpose"):
        assert what in lines[0], lines[0]
    return lines[0]


def chunk_outputs(folder: Path) -> list[dict[str, Any]]:
    """Every output line of a batch job's chunk files, the chunks in name order."""
    return [
        json.loads(line) for p in sorted(folder.glob("chunk-*.jsonl")) for line in p.read_text().splitlines()
    ]


def spot_service_plan(on_demand: float | None) -> dict[str, Any]:
    """The served plan on spot, its spare and the catalog's on-demand price of the type as a plan
    of the service on spot states them (``on_demand``: None where the catalog holds none)."""
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    opt = doc["recommended"]
    opt["pricing"], opt["price_usd_per_hour"] = "spot", 0.5261
    opt["spot"] = {
        "interruptions_per_instance_hour": 1 / 24,
        "mtbi_h": 4.8,
        "rate_source": "interruption band '>20%' per month from the catalog",
        "rate_assumed": True,
        "checkpoint_write_min": None,
        "checkpoint_interval_min": None,
        "checkpoint_overhead_h": None,
        "expected_lost_h": None,
        "expected_interruptions": 150.0,
        "service": {
            "interruptions_per_month": 120.0,
            "down_min_per_reclaim": 12.0,
            "down_assumed": "assumed",
            "replicas": 4,
            "replicas_per_reclaim": 1,
            "replica_hours_down_per_month": 24.0,
            "below_target_share": 0.03,
            "spare_instances": 1,
            "spare_usd": 384.14,
            "below_target_share_with_spare": 0.0005,
            "spare_interruptions_per_month": 30.0,
            "on_demand_usd_per_instance_hour": on_demand,
        },
    }
    return doc
