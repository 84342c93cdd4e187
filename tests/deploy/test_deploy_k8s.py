"""Kubernetes manifests validate against the real schemas and place pods as the plan says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from deploy_helpers import (
    FIXTURES,
    by_path,
    plan_doc,
    pod_of,
    serve_workload,
    spot_service_plan,
    stock_model,
    validate_k8s,
    yaml_docs,
)

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.errors import DeployError
from gpuplan.i18n import use_language


def _kinds(docs: list[dict]) -> list[str]:
    return [d["kind"] for d in docs]


def test_single_node_spot_job_validates_and_targets_eks_spot(spot_plan: LaunchSpec) -> None:
    files = generate(spot_plan, "k8s")
    docs = yaml_docs(files)
    assert _kinds(docs) == ["StorageClass", "ConfigMap", "PersistentVolumeClaim", "Job"]
    for d in docs:
        validate_k8s(d)
    job = docs[-1]
    pod = pod_of(job)
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 8}
    assert pod["nodeSelector"] == {
        "node.kubernetes.io/instance-type": "p4d.24xlarge",
        "eks.amazonaws.com/capacityType": "SPOT",
    }
    assert {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}} in pod["volumes"]
    # train.py's "checkpointed after SIGTERM" exit is not a failure: the Job replaces the pod.
    rules = job["spec"]["podFailurePolicy"]["rules"]
    assert rules[1]["onExitCodes"]["values"] == [143]
    # The ConfigMap carries exactly the code the generated README tells the user to edit.
    assert set(docs[1]["data"]) == {"train.py", "launch.sh"}
    assert docs[1]["data"]["train.py"] == by_path(files)["train.py"]


def test_multinode_plan_is_a_pytorchjob_with_master_and_workers(multinode_plan: LaunchSpec) -> None:
    docs = yaml_docs(generate(stock_model(multinode_plan), "k8s"))
    assert _kinds(docs) == ["ConfigMap", "PersistentVolumeClaim", "PyTorchJob"]
    for d in docs:
        validate_k8s(d)
    job = docs[-1]
    replicas = job["spec"]["pytorchReplicaSpecs"]
    assert set(replicas) == {"Master", "Worker"}  # the only replica types the operator accepts
    assert (replicas["Master"]["replicas"], replicas["Worker"]["replicas"]) == (1, 1)
    for r in replicas.values():
        assert r["restartPolicy"] in ("Always", "OnFailure", "Never", "ExitCode")  # the CRD's documented set
        c = r["template"]["spec"]["containers"][0]
        assert c["name"] == "pytorch"  # the operator injects MASTER_ADDR/RANK into this container
        assert c["resources"]["limits"] == {"nvidia.com/gpu": 8}
        assert r["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-h100-80gb"
    assert job["spec"]["runPolicy"]["cleanPodPolicy"] in ("All", "Running", "None")


@pytest.mark.parametrize("spot", [False, True])
def test_fsdp_across_nodes_mounts_one_read_write_many_claim_in_everypod_of(spot: bool) -> None:
    # FSDP's sharded save has every rank write its part into one folder: a Worker on an emptyDir
    # would make train.py fall back to whole checkpoints on rank 0 (and a full state per rank to
    # resume). DDP's rank 0 alone writes: its Workers keep a scratch folder and the claim one node.
    doc = json.loads((FIXTURES / "plan_multinode_gcp.json").read_text())
    doc["workload"]["parallelism"] = "fsdp"
    if spot:
        doc["recommended"]["pricing"] = "spot"
    spec = stock_model(LaunchSpec.from_plan(doc))
    assert spec.nodes == 2 and spec.parallelism == "fsdp" and spec.spot is spot
    files = generate(spec, "k8s")
    docs = yaml_docs(files)
    for d in docs:
        validate_k8s(d)
    pvc, job = docs[1], docs[-1]
    assert pvc["spec"]["accessModes"] == ["ReadWriteMany"]
    claim = pvc["metadata"]["name"]
    for role in ("Master", "Worker"):
        pod = job["spec"]["pytorchReplicaSpecs"][role]["template"]["spec"]
        assert {"name": "checkpoints", "persistentVolumeClaim": {"claimName": claim}} in pod["volumes"]
    said = "First set storageClassName in k8s/checkpoints-pvc.yaml to a ReadWriteMany class, Filestore"
    readme = " ".join(by_path(files)["README.md"].split())
    assert said in readme and "every node's pod writes its part of FSDP's sharded checkpoints" in readme
    # the step comes before the commands that make the claim, in every language
    for lang in ("en", "zh"):
        with use_language(lang):
            text = by_path(generate(spec, "k8s"))["README.md"]
        assert "storageClassName" in text
        assert text.index("storageClassName") < text.index("kubectl apply -f k8s/checkpoints-pvc.yaml")
    assert said in " ".join(by_path(files)["k8s/checkpoints-pvc.yaml"].replace("#", " ").split())
    assert "Its ReadWriteOnce volume stays in one zone" not in readme
    # DDP across the same nodes: the claim on the Master only, ReadWriteOnce, nothing to set first
    doc["workload"]["parallelism"] = "ddp"
    files = generate(stock_model(LaunchSpec.from_plan(doc)), "k8s")
    docs = yaml_docs(files)
    assert docs[1]["spec"]["accessModes"] == ["ReadWriteOnce"]
    worker = docs[-1]["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert {"name": "checkpoints", "emptyDir": {}} in worker["volumes"]
    assert "ReadWriteMany class, Filestore" not in by_path(files)["README.md"]


@pytest.mark.parametrize(
    ("provider", "selector", "toleration_key"),
    [
        ("azure", {"kubernetes.azure.com/scalesetpriority": "spot"}, "kubernetes.azure.com/scalesetpriority"),
        ("gcp", {"cloud.google.com/gke-spot": "true"}, "cloud.google.com/gke-spot"),
        ("aws", {"eks.amazonaws.com/capacityType": "SPOT"}, None),
        ("alibaba", {"gpuplan/capacity": "spot"}, None),
    ],
)
def test_spot_placement_per_managed_kubernetes(
    provider: str, selector: dict, toleration_key: str | None
) -> None:
    spec = LaunchSpec.from_plan(plan_doc(provider=provider))
    docs = yaml_docs(generate(spec, "k8s"))
    pod = pod_of(docs[-1])
    for k, v in selector.items():
        assert pod["nodeSelector"][k] == v
    if toleration_key:
        assert toleration_key in {t["key"] for t in pod["tolerations"]}
    for d in docs:
        validate_k8s(d)


def test_unverifiable_provider_labels_are_comments_not_yaml() -> None:
    files = generate(LaunchSpec.from_plan(plan_doc(provider="tencent", pricing="on_demand")), "k8s")
    job = by_path(files)["k8s/job.yaml"]
    assert "# NB: TKE:" in job
    pod = pod_of(yaml_docs(files)[-1])
    assert set(pod["nodeSelector"]) == {"node.kubernetes.io/instance-type"}


@pytest.mark.parametrize("provider", ["alibaba", "tencent", "huawei", "volcengine"])
@pytest.mark.parametrize("serving", [False, True])
def test_a_spot_plan_without_a_documented_spot_label_selects_gpuplans_own(
    provider: str | None, serving: bool
) -> None:
    # On the instance type alone, the pods would run as well on an on-demand pool of that type, at
    # the on-demand price (3.2x the plan's for ecs.gn7e-c16g1.4xlarge in cn-beijing): they wait
    # Pending for the spot pool the user labels instead, and the README says what to label.
    if serving:
        doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
        doc["recommended"].update(provider=provider, pricing="spot", kubernetes=None)
    else:
        doc = plan_doc(provider=provider)
    spec = LaunchSpec.from_plan(doc)
    files = generate(spec, "k8s")
    docs = yaml_docs(files)
    for d in docs:
        validate_k8s(d)
    pod = pod_of(next(d for d in docs if d["kind"] in ("Job", "Deployment")))
    assert pod["nodeSelector"]["gpuplan/capacity"] == "spot"
    readme = by_path(files)["README.md"]
    assert "`kubectl label nodes NODE gpuplan/capacity=spot`" in readme
    assert "stay Pending" in readme


@pytest.mark.parametrize("provider", ["alibaba", "aws", "gcp", "azure"])
def test_on_demand_or_a_documented_spot_label_selects_no_label_of_gpuplans(provider: str) -> None:
    pricing = "on_demand" if provider == "alibaba" else "spot"
    files = generate(LaunchSpec.from_plan(plan_doc(provider=provider, pricing=pricing)), "k8s")
    pod = pod_of(yaml_docs(files)[-1])
    assert "gpuplan/capacity" not in pod["nodeSelector"]
    assert "gpuplan/capacity" not in by_path(files)["README.md"]


@pytest.mark.parametrize("autoscaler", ["hpa", "keda"])
def test_inference_deployment_scales_on_dcgm_gpu_utilisation(autoscaler: str) -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="T4", provider="gcp")
    files = generate(spec, "k8s", GenerateOptions(autoscaler=autoscaler))  # type: ignore[arg-type]
    docs = yaml_docs(files)
    for d in docs:
        validate_k8s(d)
    kinds = _kinds(docs)
    assert kinds[:3] == ["ConfigMap", "Deployment", "Service"]
    if autoscaler == "hpa":
        hpa = docs[kinds.index("HorizontalPodAutoscaler")]
        metric = hpa["spec"]["metrics"][0]
        assert metric["pods"]["metric"]["name"] == "DCGM_FI_DEV_GPU_UTIL"
        assert metric["pods"]["target"]["averageValue"] == "75"  # the workload's threshold
        assert "k8s/prometheus-adapter-values.yaml" in by_path(files)
    else:
        so = docs[kinds.index("ScaledObject")]
        trigger = so["spec"]["triggers"][0]
        assert trigger["type"] == "prometheus" and trigger["metadata"]["threshold"] == "75"
        assert "DCGM_FI_DEV_GPU_UTIL" in trigger["metadata"]["query"]
    # share_gpu: true -> a time-slicing ConfigMap for the device plugin, 4 replicas per GPU
    ts = docs[kinds.index("ConfigMap", 1)]
    assert ts["metadata"]["name"] == "time-slicing-config"
    assert "replicas: 4" in ts["data"]["any"] and "name: nvidia.com/gpu" in ts["data"]["any"]


def test_default_threshold_is_80_percent(tmp_path: Path) -> None:
    docs = yaml_docs(generate(LaunchSpec.from_workload(serve_workload(tmp_path), gpu="L4"), "k8s"))
    hpa = next(d for d in docs if d["kind"] == "HorizontalPodAutoscaler")
    assert hpa["spec"]["metrics"][0]["pods"]["target"]["averageValue"] == "80"


def test_mig_profile_requests_a_mig_slice(tmp_path: Path) -> None:
    p = serve_workload(tmp_path, "mig_profile: 1g.10gb")
    docs = yaml_docs(generate(LaunchSpec.from_workload(p, gpu="A100-SXM4-80GB"), "k8s"))
    for d in docs:
        validate_k8s(d)
    dep = next(d for d in docs if d["kind"] == "Deployment")
    assert pod_of(dep)["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": 1}
    assert not any(d["metadata"]["name"] == "time-slicing-config" for d in docs)


def test_own_image_replaces_the_code_configmap(spot_plan: LaunchSpec) -> None:
    files = generate(spot_plan, "k8s", GenerateOptions(image="registry.example.com/bert:1"))
    docs = yaml_docs(files)
    assert "ConfigMap" not in _kinds(docs)
    pod = pod_of(docs[-1])
    assert pod["containers"][0]["image"] == "registry.example.com/bert:1"
    assert "code" not in {v["name"] for v in pod["volumes"]}


def test_a_broken_manifest_would_be_caught(spot_plan: LaunchSpec) -> None:
    """The validators are not vacuous: an unknown field fails strict core and CRD validation."""
    import jsonschema
    import kubernetes_validate

    job = yaml_docs(generate(stock_model(spot_plan), "k8s"))[-1]
    job["spec"]["template"]["spec"]["containers"][0]["gpus"] = 8
    with pytest.raises(kubernetes_validate.ValidationError):
        validate_k8s(job)
    pj = yaml_docs(
        generate(stock_model(LaunchSpec.from_plan_json(FIXTURES / "plan_multinode_gcp.json")), "k8s")
    )[-1]
    pj["spec"]["runPolicy"]["backoffLimitt"] = 1
    with pytest.raises(jsonschema.ValidationError):
        validate_k8s(pj)


def test_inference_replicas_start_at_the_planned_gpu_count(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(serve_workload(tmp_path), gpu="L4", count=3)
    dep = next(d for d in yaml_docs(generate(spec, "k8s")) if d["kind"] == "Deployment")
    hpa = next(d for d in yaml_docs(generate(spec, "k8s")) if d["kind"] == "HorizontalPodAutoscaler")
    assert (
        dep["spec"]["replicas"] == 3 and hpa["spec"]["minReplicas"] == 3 and hpa["spec"]["maxReplicas"] == 6
    )  # room to double what was priced
    assert pod_of(dep)["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 1}  # one GPU per replica


def test_a_spot_plans_spare_is_counted_once_in_the_autoscalers_ceiling(tmp_path: Path) -> None:
    # A spot plan's 4 replicas and 1 spare had written maxReplicas 10 (the 5 doubled, the spare with
    # them), where a workload file's 4 replicas write 8: the spare stands in for a reclaimed replica,
    # so the ceiling is the load's room (8) and the spare once.
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["recommended"]["pricing"] = "spot"
    doc["recommended"]["spot"] = {
        "interruptions_per_instance_hour": 1 / 24,
        "mtbi_h": 4.8,
        "rate_source": "assumed",
        "rate_assumed": True,
        "checkpoint_write_min": None,
        "checkpoint_interval_min": None,
        "checkpoint_overhead_h": None,
        "expected_lost_h": None,
        "expected_interruptions": 182.5,
        "service": {
            "interruptions_per_month": 152.1,
            "down_min_per_reclaim": 10.5,
            "down_assumed": "a replacement and the weights read back",
            "replicas": 4,
            "replicas_per_reclaim": 1,
            "replica_hours_down_per_month": 26.6,
            "below_target_share": 0.036,
            "spare_instances": 1,
            "spare_usd": 300.0,
            "below_target_share_with_spare": 0.0003,
            "spare_interruptions_per_month": 30.4,
        },
    }
    files = generate(LaunchSpec.from_plan(doc), "k8s")
    hpa = next(d for d in yaml_docs(files) if d["kind"] == "HorizontalPodAutoscaler")
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (5, 9)
    same_load = LaunchSpec.from_workload(serve_workload(tmp_path), gpu="L4", count=4)
    load_docs = yaml_docs(generate(same_load, "k8s"))
    load_hpa = next(d for d in load_docs if d["kind"] == "HorizontalPodAutoscaler")
    assert load_hpa["spec"]["maxReplicas"] + 1 == hpa["spec"]["maxReplicas"]
    readme = " ".join(by_path(files)["README.md"].split())
    ceiling = (
        "The autoscaler's maxReplicas, 9, is room to double the 4 that carry the load, and the spare once."
    )
    assert ceiling in readme


@pytest.mark.parametrize(
    ("serving", "start", "least", "most"),
    [
        ("min_replicas: 1", 3, 1, 6),
        ("min_replicas: 1, max_replicas: 8", 3, 1, 8),
        ("min_replicas: 5", 5, 5, 10),
    ],
)
def test_a_workloads_min_replicas_is_the_floor_and_the_plans_count_starts(
    tmp_path: Path, serving: str, start: int, least: int, most: int
) -> None:
    # min_replicas: 1 had started one replica of the three priced for the load (the service dropped
    # requests in simulate until the autoscaler caught up); then the plan's count had become the
    # autoscaler's floor too, and a service sized for its peak never scaled down at night.
    spec = LaunchSpec.from_workload(serve_workload(tmp_path, serving), gpu="L4", count=3)
    docs = yaml_docs(generate(spec, "k8s"))
    dep = next(d for d in docs if d["kind"] == "Deployment")
    hpa = next(d for d in docs if d["kind"] == "HorizontalPodAutoscaler")
    assert (dep["spec"]["replicas"], hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (
        start,
        least,
        most,
    )
    keda = yaml_docs(generate(spec, "k8s", GenerateOptions(autoscaler="keda")))
    scaled = next(d for d in keda if d["kind"] == "ScaledObject")
    assert (scaled["spec"]["minReplicaCount"], scaled["spec"]["maxReplicaCount"]) == (least, most)


def test_manifests_have_no_yaml_anchors(multinode_plan: LaunchSpec) -> None:
    for f in generate(stock_model(multinode_plan), "k8s"):
        if f.path.endswith(".yaml"):
            assert "&id0" not in f.content and "*id0" not in f.content, f.path


def test_a_model_of_ones_own_code_needs_the_image_that_holds_it() -> None:
    # The Job ran the stock PyTorch image, which lacks the user's package: ModuleNotFoundError on start.
    from gpuplan.errors import DeployError

    spec = LaunchSpec.from_workload(FIXTURES / "userproj" / "job.yaml", gpu="T4")
    with pytest.raises(DeployError, match=r"your own code \(tinyuser.model:build\).*--target docker"):
        generate(spec, "k8s", GenerateOptions())
    files = generate(spec, "k8s", GenerateOptions(image="registry.example/tinyuser:1"))
    job = next(f for f in files if f.path == "k8s/job.yaml").content
    assert "image: registry.example/tinyuser:1" in job


def test_a_tensor_parallel_serving_replica_is_one_pod_of_its_gpus(tmp_path: Path) -> None:
    # was: a 70B model priced as one replica over 4 GPUs (tensor_parallel 4) deployed as 4 pods of
    # one GPU each, an HPA from 4 to 8 of them: no pod could hold the weights
    p = tmp_path / "tp.yaml"
    p.write_text(
        "name: tp\ntask: infer\nmodel: {preset: llama-7b}\ninputs: {batch_size: 1, seq_len: 512}\n"
        "precision: bf16\ntensor_parallel: 4\n"
        "serving: {requests_per_s: 2, prompt_tokens: 256, output_tokens: 128}\n"
    )
    spec = LaunchSpec.from_workload(p, gpu="H100-SXM", count=8)
    docs = {d["kind"]: d for d in yaml_docs(generate(spec, "k8s"))}
    deployment = docs["Deployment"]["spec"]
    assert deployment["replicas"] == 2  # 8 GPUs priced: two replicas of 4
    [container] = deployment["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 4
    hpa = docs["HorizontalPodAutoscaler"]["spec"]
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (2, 4)


def test_time_shared_replicas_start_at_the_planned_gpus_times_the_share(tmp_path: Path) -> None:
    # The plan prices share_gpu replicas to each GPU; deploy starts as many (3 GPUs × 2 = 6 pods).
    spec = LaunchSpec.from_workload(serve_workload(tmp_path, "share_gpu: 2"), gpu="L4", count=3)
    docs = yaml_docs(generate(spec, "k8s"))
    dep = next(d for d in docs if d["kind"] == "Deployment")
    hpa = next(d for d in docs if d["kind"] == "HorizontalPodAutoscaler")
    assert (dep["spec"]["replicas"], hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (6, 6, 12)


def test_the_k8s_dockerfile_names_the_k8s_target(tmp_path: Path, spot_plan: LaunchSpec) -> None:
    # The Dockerfile --target k8s writes (for --image) had said it was written by --target docker.
    served = LaunchSpec.from_workload(serve_workload(tmp_path), gpu="L4")
    for spec in (spot_plan, served):
        header = by_path(generate(spec, "k8s"))["Dockerfile"].splitlines()[1]
        assert "written by `gpuplan deploy --target k8s`" in header, header
        assert "--target docker" in by_path(generate(spec, "docker"))["Dockerfile"].splitlines()[1]


def test_each_deploy_is_a_new_run_with_a_checkpoint_volume_of_its_own(spot_plan: LaunchSpec) -> None:
    # `kubectl apply` keeps a PVC whose name exists, data and all: named after the workload alone,
    # the next run's pod resumed the finished run's last checkpoint.
    claims = []
    for options in (GenerateOptions(), GenerateOptions()):
        files = by_path(generate(spot_plan, "k8s", options))
        pvc = yaml.safe_load(files["k8s/checkpoints-pvc.yaml"])
        claim = pvc["metadata"]["name"]
        assert claim == f"{spot_plan.name}-{options.run_id}-checkpoints"
        job = yaml.safe_load(files["k8s/job.yaml"])
        volumes = job["spec"]["template"]["spec"]["volumes"]
        assert {"name": "checkpoints", "persistentVolumeClaim": {"claimName": claim}} in volumes
        assert f"this one's is the PVC `{claim}`" in files["README.md"]
        claims.append(claim)
    assert claims[0] != claims[1]


def test_the_checkpoint_volume_holds_two_of_the_plans_checkpoints_with_headroom() -> None:
    """Sized from the plan's checkpoint, not a fixed 200 GiB: a full fine-tune of an 8 B model
    writes 96.36 GB checkpoints, and train.py has two on disk at once (the one being written
    included)."""
    from gpuplan.deploy.checkpoints import UNKNOWN_DISK_GIB

    def pvc_gib(doc: dict) -> tuple[str, str]:
        files = by_path(generate(LaunchSpec.from_plan(doc), "k8s"))
        text = files["k8s/checkpoints-pvc.yaml"]
        return yaml.safe_load(text)["spec"]["resources"]["requests"]["storage"], text

    # 2 x 96.36 GB x 1.15 headroom = 221.6 GB = 206.4 GiB, up to a multiple of 10
    storage, text = pvc_gib({**plan_doc(), "checkpoint_gb": 96.36, "checkpoint_write_min": 3.2})
    assert storage == "210Gi"
    assert "One checkpoint is 96.36 GB" in text and "193 GB free" in text
    # 2 x 300 GB x 1.15 = 690 GB = 642.6 GiB: far past the old fixed 200 GiB
    assert pvc_gib({**plan_doc(), "checkpoint_gb": 300.0})[0] == "650Gi"
    # a small model's checkpoints: the floor
    assert pvc_gib({**plan_doc(), "checkpoint_gb": 0.4})[0] == "20Gi"
    # a plan written before it kept the size: the assumed volume, and said so
    storage, text = pvc_gib(plan_doc())
    assert storage == f"{UNKNOWN_DISK_GIB}Gi" and "not known without a plan" in text


def test_a_stopped_training_pod_is_given_the_time_to_save_the_plans_checkpoint() -> None:
    """A 96.36 GB checkpoint the plan reckons 3.21 min to write (a disk at 0.5 GB/s): the fixed 120 s
    grace killed the save on SIGTERM before it ended."""
    # a minute for the step in flight + twice the write: 60 + 2 x 192.7 s = 445.5 s, up to 450
    planned = {**plan_doc(), "checkpoint_gb": 96.36, "checkpoint_write_min": 3.212}
    multinode = {**planned, "recommended": {**planned["recommended"], "gpu_count": 16, "nodes": 2}}
    for doc in (planned, multinode):
        files = generate(LaunchSpec.from_plan(doc), "k8s")
        job = yaml_docs(files)[-1]
        replicas = job["spec"].get("pytorchReplicaSpecs", {}).values()
        pods = [r["template"]["spec"] for r in replicas] or [pod_of(job)]
        assert [p["terminationGracePeriodSeconds"] for p in pods] == [450] * len(pods)
        readme = by_path(files)["README.md"]
        assert "the plan reckons 3.2 min to write one, so it is allowed 450 s" in readme
        # AWS's 2-minute notice is shorter than the save (60 + 192.7 s): a reclaim falls back
        said = "The spot notice of Amazon Web Services is 120 s, shorter than the checkpoint on SIGTERM takes"
        assert f"{said} (about 253 s)" in readme and "up to one interval (12.5 min) of work lost" in readme
    # no write time known (a plan written before it was kept): the least grace, said so
    files = generate(LaunchSpec.from_plan(plan_doc()), "k8s")
    assert pod_of(yaml_docs(files)[-1])["terminationGracePeriodSeconds"] == 120
    assert "not known without a plan: 120 s is allowed" in by_path(files)["README.md"]


def test_a_spot_notice_that_covers_the_save_is_not_said_to_fall_short() -> None:
    # Alibaba's 5-minute notice (300 s) covers 60 + 192.7 s; on demand there is no notice at all
    alibaba = {"provider": "alibaba", "region": "cn-hongkong", "instance_type": "ecs.gn7e-c16g1.16xlarge"}
    on_demand = {"pricing": "on_demand"}
    for recommended in (alibaba, on_demand):
        doc = plan_doc(**recommended)
        doc.update(checkpoint_gb=96.36, checkpoint_write_min=3.212)
        readme = by_path(generate(LaunchSpec.from_plan(doc), "k8s"))["README.md"]
        assert "spot notice" not in readme and "450 s" in readme


def test_the_checkpoints_a_volume_is_sized_for_are_those_train_py_keeps_and_the_plan_prices() -> None:
    import re
    from importlib import resources

    from gpuplan.deploy.checkpoints import CHECKPOINTS_ON_DISK
    from gpuplan.plan.input_types import JobFacts

    template = resources.files("gpuplan.deploy.templates").joinpath("train_entry.py").read_text()
    kept = re.search(r"^KEEP_CHECKPOINTS = (\d+)(?:  #.*)?$", template, re.M)
    assert kept is not None and int(kept.group(1)) == CHECKPOINTS_ON_DISK == JobFacts().checkpoints_kept


def test_a_spot_workload_on_a_provider_without_an_accelerator_label_says_how_to_select_its_gpu() -> None:
    """A workload deployed with --gpu A10 --provider tencent --spot has no instance type, and TKE
    no accelerator label: gpuplan/capacity=spot alone lets any spot GPU node (a T4) take the job.
    The manifest and README say to add nvidia.com/gpu.product, and the spot paragraph speaks of
    no plan and no instance type, which this deploy has not."""
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="A10", provider="tencent", pricing="spot")
    files = generate(spec, "k8s")
    job = yaml_docs(files)[-1]
    validate_k8s(job)
    assert pod_of(job)["nodeSelector"] == {"gpuplan/capacity": "spot"}
    header = by_path(files)["k8s/job.yaml"]
    assert "nothing here selects the A10" in header
    assert "`kubectl get nodes -L nvidia.com/gpu.product`" in header
    readme = by_path(files)["README.md"]
    assert "Nothing in these manifests selects the A10" in readme
    assert "add nvidia.com/gpu.product to each nodeSelector" in readme
    # one step a line among those before the `kubectl apply` block
    spot = next(p for p in readme.splitlines() if "gpuplan/capacity=spot" in p)
    assert not re.search(r"\bplan\b", spot) and "instance type" not in spot, spot
    assert "These pods are for spot capacity" in spot


@pytest.mark.parametrize("provider", ["gcp", "aws"])
def test_a_gpu_selected_by_its_accelerator_label_or_instance_type_needs_no_added_label(provider: str) -> None:
    if provider == "gcp":  # GKE's accelerator label, known for the A100
        spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="A100-SXM4-80GB", provider="gcp")
    else:
        spec = LaunchSpec.from_plan(plan_doc(provider=provider))
    files = by_path(generate(spec, "k8s"))
    assert "Nothing in these manifests selects" not in files["README.md"]
    assert "nothing here selects" not in "".join(files.values())


def test_a_small_checkpoints_write_is_said_in_seconds_not_as_zero_minutes() -> None:
    """0.20 GB at 0.5 GB/s is 0.4 s: "0.0 min" read as if the plan had no figure."""
    doc = {**plan_doc(), "checkpoint_gb": 0.2, "checkpoint_write_min": 0.4 / 60}
    readme = by_path(generate(LaunchSpec.from_plan(doc), "k8s"))["README.md"]
    assert "the plan reckons 0.4 s to write one, so it is allowed 120 s" in readme
    assert "0.0 min" not in readme


def test_steps_are_refused_for_a_service_in_one_line() -> None:
    """--steps on a service plan was accepted and dropped without a word."""
    spec = LaunchSpec.from_plan(json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text()))
    for steps in ("full", 500):
        with pytest.raises(DeployError) as e:
            generate(spec, "k8s", GenerateOptions(steps=steps))
        said = str(e.value)
        assert "\n" not in said
        assert said.startswith("--steps sets how long train.py trains;") and "leave it out" in said
    generate(spec, "k8s")  # without --steps it deploys


def test_a_spot_service_readme_says_how_to_fall_back_to_an_on_demand_pool() -> None:
    # was: the pods select EKS's spot label only, and nothing said how the HPA's replicas could
    # run on on-demand nodes when no spot g6e.xlarge can be had, nor what those cost
    files = by_path(
        generate(
            LaunchSpec.from_plan(spot_service_plan(1.861), source="plan.json"),
            "k8s",
            GenerateOptions(out_dir="/srv"),
        )
    )
    said = " ".join(files["README.md"].split())
    # the label EKS documents (managed node groups: eks.amazonaws.com/capacityType SPOT|ON_DEMAND)
    # a preference, not a selector (it had been a selector the README told the user to move)
    assert "prefer spot nodes (eks.amazonaws.com/capacityType: SPOT, a preferred node affinity)" in said
    assert "an on-demand node pool of g6e.xlarge that its node autoscaler may grow" in said
    assert "costs $1.861/h against $0.526/h on spot" in said


def test_a_spot_pods_grace_is_said_to_be_for_a_stop_asked_for_not_a_reclaim() -> None:
    """Alibaba's 5-minute spot notice is far shorter than the 2,770 s a 22.5-minute checkpoint write is
    given: the manifest had said nothing of it beside `terminationGracePeriodSeconds: 2760`, and the
    README said it sentences away from the grace."""
    doc = plan_doc(
        provider="alibaba",
        region="cn-shanghai",
        instance_type="ecs.gn7-c13g1.26xlarge",
        gpu_count=16,
        gpus_per_node=8,
        nodes=2,
    )
    spot = {**doc, "checkpoint_gb": 177.24, "checkpoint_write_min": 22.5}
    files = by_path(generate(LaunchSpec.from_plan(spot), "k8s"))
    manifest = files["k8s/pytorchjob.yaml"]
    # 60 s + 2 × 1,350 s = 2,760 s (kept: a `kubectl delete` waits for it)
    assert "terminationGracePeriodSeconds: 2760" in manifest
    header = " ".join(line[2:] for line in manifest.splitlines() if line.startswith("# "))
    assert (
        "terminationGracePeriodSeconds 2760: the time train.py has to save a checkpoint when a pod is "
        "stopped (`kubectl delete`, a drained node). A spot reclaim gives 300 s of notice, too short to "
        "save one: the job resumes from its last periodic checkpoint (every "
    ) in header
    readme = " ".join(files["README.md"].split())
    assert (
        "so it is allowed 2760 s (twice the write, for a slower disk, and a minute for the step in "
        "flight). That time is for a stop you ask for (`kubectl delete`, `docker stop`, a drained "
        "node); a spot reclaim does not wait for it. The spot notice of Alibaba Cloud is 300 s, "
        "shorter than the checkpoint on SIGTERM takes (about 1410 s)"
    ) in readme
    assert readme.count("The spot notice of") == 1
    # on demand: the grace is what it is for, and no word of a reclaim
    on_demand = {**spot, "recommended": {**spot["recommended"], "pricing": "on_demand"}}
    files = by_path(generate(LaunchSpec.from_plan(on_demand), "k8s"))
    assert "terminationGracePeriodSeconds 2760: the time train.py has to save" in files["k8s/pytorchjob.yaml"]
    assert "reclaim" not in files["k8s/pytorchjob.yaml"].split("apiVersion")[0]
    assert "a spot reclaim does not wait" not in files["README.md"]


@pytest.mark.parametrize("autoscaler", ["hpa", "keda"])
def test_every_step_the_cluster_needs_first_comes_before_the_apply_commands(
    autoscaler: str, tmp_path: Path
) -> None:
    # The time-slicing ClusterPolicy and prometheus-adapter "first" steps had come after the
    # `kubectl apply` block, among the notes: read in order, they were done after applying.
    spec = LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="T4", provider="gcp")
    readme = by_path(generate(spec, "k8s", GenerateOptions(autoscaler=autoscaler)))["README.md"]  # type: ignore[arg-type]
    apply = readme.index("kubectl apply -f")
    assert readme.index("Before applying them:") < apply
    assert readme.index("patch the ClusterPolicy") < apply
    assert readme.index("Scaling needs NVIDIA dcgm-exporter and Prometheus") < apply
    if autoscaler == "hpa":
        assert readme.index("install prometheus-adapter") < apply
    # a MIG slice's partitioning, and the GPU label no known selector gives, before it too
    mig = serve_workload(tmp_path, "mig_profile: 1g.10gb")
    readme = by_path(generate(LaunchSpec.from_workload(mig, gpu="A100-SXM4-80GB"), "k8s"))["README.md"]
    apply = readme.index("kubectl apply -f")
    assert readme.index("partitioned into 1g.10gb MIG slices") < apply
    assert readme.index("add nvidia.com/gpu.product to each nodeSelector") < apply
