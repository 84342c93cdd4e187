"""A training job's volumes on Kubernetes: claims that name a StorageClass a new cluster has (or a
README that says to check for a default one), and a volume of the dataset's size that an init
container fills from the provider's object storage before training."""

from __future__ import annotations

from typing import Any

from deploy_helpers import by_path, pod_of, stock_model, validate_k8s, yaml_docs

from gpuplan.deploy import GeneratedFile, LaunchSpec, generate


def _docs(files: list[GeneratedFile]) -> dict[str, dict[str, Any]]:
    """Each manifest's document by kind, every one checked against the Kubernetes schema."""
    out = {}
    for doc in yaml_docs(files):
        validate_k8s(doc)
        out[doc["kind"]] = doc
    return out


def test_on_eks_the_claims_name_a_gp3_class_the_files_create(spot_plan: LaunchSpec) -> None:
    # a new EKS cluster (1.30+) has no default StorageClass: a claim of none stays Pending
    files = generate(spot_plan, "k8s")
    docs = _docs(files)
    storage_class = docs["StorageClass"]
    assert storage_class["provisioner"] == "ebs.csi.aws.com"
    assert storage_class["parameters"] == {"type": "gp3"}
    assert storage_class["volumeBindingMode"] == "WaitForFirstConsumer"
    name = storage_class["metadata"]["name"]
    assert docs["PersistentVolumeClaim"]["spec"]["storageClassName"] == name
    (data,) = [v for v in pod_of(docs["Job"])["volumes"] if v["name"] == "data"]
    assert data["ephemeral"]["volumeClaimTemplate"]["spec"]["storageClassName"] == name
    readme = by_path(files)["README.md"]
    # created before the claims that name it, and the driver it needs checked first
    assert readme.index("kubectl apply -f k8s/storageclass.yaml") < readme.index(
        "kubectl apply -f k8s/checkpoints-pvc.yaml"
    )
    assert "kubectl get csidriver ebs.csi.aws.com" in readme
    assert "aws-ebs-csi-driver" in readme
    assert "default StorageClass" not in by_path(files)["k8s/checkpoints-pvc.yaml"]


def test_elsewhere_the_readme_says_to_check_the_default_class_first(spot_plan: LaunchSpec) -> None:
    spec = spot_plan.model_copy(update={"provider": "lambda", "instance_type": None, "data_location": None})
    files = generate(spec, "k8s")
    docs = _docs(files)
    assert "StorageClass" not in docs
    assert "storageClassName" not in docs["PersistentVolumeClaim"]["spec"]
    readme = by_path(files)["README.md"]
    first = readme.split("```bash", 1)[0]
    assert "`kubectl get storageclass`" in first and "(default)" in first
    assert "kubectl get storageclass" in by_path(files)["k8s/checkpoints-pvc.yaml"]


def test_the_dataset_gets_a_volume_of_its_size_filled_before_training(spot_plan: LaunchSpec) -> None:
    spec = spot_plan.model_copy(update={"dataset_gb": 1000.0})
    files = generate(spec, "k8s")
    pod = pod_of(_docs(files)["Job"])
    (data,) = [v for v in pod["volumes"] if v["name"] == "data"]
    # 1,000 GB + 15 % for the filesystem = 1,071 GiB, up to a multiple of 10
    claim = data["ephemeral"]["volumeClaimTemplate"]["spec"]
    assert claim["resources"]["requests"]["storage"] == "1080Gi"
    (train,) = pod["containers"]
    assert {"name": "data", "mountPath": "/data"} in train["volumeMounts"]
    assert {"name": "DATA_DIR", "value": "/data"} in train["env"]
    (fetch,) = pod["initContainers"]
    assert fetch["image"].startswith("amazon/aws-cli:")
    assert "aws s3 sync" in fetch["command"][-1]
    assert {"name": "data", "mountPath": "/data"} in fetch["volumeMounts"]
    readme = by_path(files)["README.md"]
    assert "onto every node's disk" not in readme and "disk_size" not in readme
    assert "1,080 GiB" in readme and "fetch-data" in readme and "DATA_URL" in readme
    assert "EKS Pod Identity" in readme  # the cluster's own way to read its provider's bucket


def test_data_kept_on_another_cloud_needs_credentials_given_to_the_copy(spot_plan: LaunchSpec) -> None:
    spec = spot_plan.model_copy(update={"provider": "nebius", "instance_type": None, "dataset_gb": 100.0})
    files = generate(spec, "k8s")
    (fetch,) = pod_of(_docs(files)["Job"])["initContainers"]
    assert "aws s3 sync" in fetch["command"][-1]  # the data's provider's tool, where the data is
    readme = " ".join(by_path(files)["README.md"].split())
    assert "The dataset is kept in aws/us-east-1, outside this cluster's provider" in readme
    assert "EKS Pod Identity" not in readme


def test_the_fetch_stops_at_once_while_its_address_is_the_placeholder(spot_plan: LaunchSpec) -> None:
    import subprocess

    (fetch,) = pod_of(_docs(generate(spot_plan, "k8s"))["Job"])["initContainers"]
    script = fetch["command"][-1].replace("exec aws", "exec echo aws")
    env = {e["name"]: e["value"] for e in fetch["env"]}
    left = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True)
    assert left.returncode == 2 and "set DATA_URL" in left.stderr
    given = subprocess.run(
        ["/bin/sh", "-c", script], env={"DATA_URL": "s3://bucket/x"}, capture_output=True, text=True
    )
    assert given.returncode == 0 and given.stdout.strip() == "aws s3 sync s3://bucket/x /data"


def test_each_node_of_a_pytorchjob_gets_its_own_data_volume(multinode_plan: LaunchSpec) -> None:
    spec = stock_model(multinode_plan).model_copy(
        update={"dataset_gb": 200.0, "data_location": "gcp/us-central1"}
    )
    job = _docs(generate(spec, "k8s"))["PyTorchJob"]
    for role in ("Master", "Worker"):
        pod = job["spec"]["pytorchReplicaSpecs"][role]["template"]["spec"]
        assert any(v["name"] == "data" and "ephemeral" in v for v in pod["volumes"])
        (fetch,) = pod["initContainers"]
        assert "gcloud storage rsync" in fetch["command"][-1]


def test_without_an_image_for_the_datas_storage_the_readme_says_to_add_the_copy(
    spot_plan: LaunchSpec,
) -> None:
    spec = spot_plan.model_copy(update={"dataset_gb": 100.0, "data_location": "alibaba/cn-beijing"})
    files = generate(spec, "k8s")
    pod = pod_of(_docs(files)["Job"])
    assert "initContainers" not in pod
    assert any(v["name"] == "data" for v in pod["volumes"])
    assert "Add an init container" in by_path(files)["README.md"]
