"""SkyPilot task YAML: valid under SkyPilot 0.14.1's own schema, with managed spot recovery."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from deploy_helpers import (
    FIXTURES,
    by_path,
    plan_doc,
    skypilot_schema_clouds,
    stock_model,
    validate_skypilot_task,
)

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.catalog.snapshot import read_table
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.images import ESTIMATOR_TORCH
from gpuplan.errors import DeployError
from gpuplan.hardware import all_gpus, get_gpu

# SkyPilot 0.14.1's sky.catalog.get_common_gpus(), and the AcceleratorName that SkyPilot's catalogs
# (catalogs/v8/<cloud>/vms.csv) give the other GPUs of ours on every cloud that rents them: P100 and P4
# (GCP, OCI), RTX4090 and RTX3090 (Vast, Lium), A40 (Cudo, Vast), L40 (Fluidstack, Hyperstack, Lium,
# Prime Intellect, Shadeform), MI300X (OCI). The names our mapping may produce.
SKYPILOT_COMMON_GPUS = {
    "A10", "A10G", "A100", "A100-80GB", "B200", "H100", "H200", "L4", "L40S",
    "RTX5090", "RTXPRO6000", "T4", "V100", "V100-32GB",
    "P100", "P4",  # GCP's attachable GPUs, as SkyPilot's GCP catalog names them (AcceleratorName)
}  # fmt: skip
SKYPILOT_CATALOG_GPUS = {"P100", "P4", "RTX4090", "RTX3090", "A40", "L40", "MI300X"}


#: Where the launch files go: SkyPilot's workdir names it (an absolute path).
LAUNCH = GenerateOptions(out_dir="/srv/launch")


def _task(spec: LaunchSpec) -> dict:
    return yaml.safe_load(by_path(generate(spec, "skypilot", LAUNCH))["task.yaml"])


def _validate(task: dict) -> None:
    """The task, its resources and its service section, each against SkyPilot's own schema."""
    validate_skypilot_task(task)


def test_spot_task_validates_and_recovers_from_preemption(spot_plan: LaunchSpec) -> None:
    task = _task(spot_plan)
    _validate(task)
    r = task["resources"]
    assert (r["infra"], r["accelerators"], r["use_spot"]) == ("aws/us-east-1", "A100:8", True)
    assert r["job_recovery"]["recover_on_exit_codes"] == [143]  # train.py's checkpointed-on-SIGTERM exit
    assert task["num_nodes"] == 1
    for var in ("$SKYPILOT_NODE_RANK", "$SKYPILOT_NODE_IPS", "$SKYPILOT_NUM_GPUS_PER_NODE"):
        assert var in task["run"]


def test_multinode_on_demand_task(multinode_plan: LaunchSpec) -> None:
    task = _task(stock_model(multinode_plan))  # the fixture's own code (mypkg) is not beside it
    _validate(task)
    assert task["num_nodes"] == 2 and task["resources"]["accelerators"] == "H100:8"
    assert task["resources"]["use_spot"] is False and "job_recovery" not in task["resources"]


def test_the_schema_rejects_the_old_spot_recovery_field(spot_plan: LaunchSpec) -> None:
    import jsonschema

    task = _task(spot_plan)
    task["resources"]["spot_recovery"] = task["resources"].pop("job_recovery")
    with pytest.raises(jsonschema.ValidationError):
        _validate(task)


#: SkyPilot 0.14.1's clouds, as its own schema lists them (sky/skylet/constants.py ALL_CLOUDS).
SKYPILOT_SCHEMA_CLOUDS = set(skypilot_schema_clouds())
#: Every provider of the registry SkyPilot can launch on, and every one it cannot.
DEPLOYABLE = [p for p in PROVIDERS if facts(p).skypilot_cloud]
NOT_DEPLOYABLE = [p for p in PROVIDERS if not facts(p).skypilot_cloud]


def _shipped_offer(provider: str) -> dict[str, str]:
    """A shipped offer of ``provider`` whose GPU SkyPilot names (the first, in the snapshot's order)."""
    for row in read_table("offers.csv"):
        if row["provider"] == provider and get_gpu(row["gpu"]).skypilot_name:
            return row
    raise AssertionError(f"no shipped {provider} offer with a GPU SkyPilot names")


def test_every_skypilot_cloud_of_the_registry_is_one_of_skypilots_own() -> None:
    assert DEPLOYABLE and NOT_DEPLOYABLE
    assert {facts(p).skypilot_cloud for p in DEPLOYABLE} <= SKYPILOT_SCHEMA_CLOUDS


@pytest.mark.parametrize("provider", DEPLOYABLE)
def test_a_plan_on_every_skypilot_cloud_names_its_infra_and_validates(provider: str) -> None:
    row = _shipped_offer(provider)
    spec = LaunchSpec.from_plan(
        plan_doc(provider=provider, region=row["region"], instance_type=row["instance_type"], gpu=row["gpu"],
                 gpu_count=int(float(row["gpu_count"])))
    )  # fmt: skip
    files = by_path(generate(spec, "skypilot", LAUNCH))
    task = yaml.safe_load(files["task.yaml"])
    _validate(task)
    cloud = facts(provider).skypilot_cloud
    if facts(provider).skypilot_regions:
        assert task["resources"]["infra"] == f"{cloud}/{row['region']}"
    else:  # the catalog's region is not SkyPilot's name for it: the cloud only, and the README says so
        assert task["resources"]["infra"] == cloud
        assert f"The plan priced an offer in {row['region']}" in files["README.md"]
    # a cloud SkyPilot makes no bucket on (Lambda, RunPod, Vast.ai …): the checkpoints' bucket needs
    # another cloud's store enabled, said and installed (the README had installed skypilot[vast] alone,
    # with nowhere to make the bucket task.yaml names)
    if cloud in ("aws", "gcp", "azure", "oci", "nebius"):
        assert f'pip install "skypilot[{cloud}]"' in files["README.md"]
        assert "has no object store SkyPilot makes buckets in" not in files["README.md"]
    else:
        assert f'pip install "skypilot[{cloud},aws]"' in files["README.md"]
        assert f"{provider} has no object store SkyPilot makes buckets in" in " ".join(
            files["README.md"].split()
        )


@pytest.mark.parametrize("provider", NOT_DEPLOYABLE)
def test_a_provider_skypilot_cannot_launch_on_is_refused_in_one_line_naming_what_works(provider: str) -> None:
    spec = LaunchSpec.from_plan(plan_doc(provider=provider))
    with pytest.raises(DeployError) as e:
        generate(spec, "skypilot", LAUNCH)
    line = str(e.value)
    assert (
        line.startswith(f"SkyPilot has no {provider} cloud (of ours it supports aws, ") and "\n" not in line
    )
    assert line.endswith("use --target torchrun or --target docker or --target k8s")  # each writes it
    for p in DEPLOYABLE:
        assert p in line


def test_the_workdir_is_the_launch_folder_by_its_absolute_path(spot_plan: LaunchSpec) -> None:
    # SkyPilot resolves a relative workdir against the folder `sky` runs in ("Syncing Code, Git, and
    # Files", docs.skypilot.co): `workdir: .` run from a home folder would upload the home folder.
    assert _task(spot_plan)["workdir"] == "/srv/launch"
    with pytest.raises(DeployError, match=r"needs the absolute path of the folder its files will be in"):
        generate(spot_plan, "skypilot")
    with pytest.raises(DeployError, match="must be an absolute path"):
        GenerateOptions(out_dir="launch")
    # "/" would upload the whole file system, "/a/../../etc" /etc; a trailing "/" is the same folder
    with pytest.raises(DeployError, match="the output folder '/' is the root of the file system"):
        GenerateOptions(out_dir="/")
    for written, normal in (
        ("/a/../../etc", "/etc"),
        ("/srv/./launch", "/srv/launch"),
        ("/srv//launch", "/srv/launch"),
        ("//srv/launch", "//srv/launch"),  # POSIX keeps a leading "//"; refused as repeated all the same
    ):
        with pytest.raises(
            DeployError, match=re.escape(f"must be written without '.', '..' or repeated '/' (as {normal!r})")
        ):
            GenerateOptions(out_dir=written)
    assert GenerateOptions(out_dir="/srv/launch/").out_dir == "/srv/launch/"
    assert GenerateOptions(out_dir="/srv/a\\").out_dir == "/srv/a\\"  # a backslash is a name's on POSIX


def test_accelerator_names_are_skypilot_names_for_every_mapped_gpu() -> None:
    names = {g.id: g.skypilot_name for g in all_gpus() if g.skypilot_name}
    assert set(names.values()) <= SKYPILOT_COMMON_GPUS | SKYPILOT_CATALOG_GPUS
    assert names["A100-SXM4-80GB"] == "A100-80GB"
    assert names["H100-SXM"] == "H100"


def test_workload_without_gpu_or_provider() -> None:
    with pytest.raises(DeployError, match="needs a GPU type"):
        generate(LaunchSpec.from_workload(FIXTURES / "train.yaml"), "skypilot")
    task = _task(LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="L4", count=2))
    _validate(task)
    assert "infra" not in task["resources"]  # SkyPilot picks the cheapest cloud


@pytest.mark.parametrize(("gpu", "torch"), [("V100-SXM2-16GB", "torch==2.5.1"), ("H100-SXM", "torch==2.7.0")])
def test_a_vm_without_pytorch_gets_the_build_the_images_carry_for_its_gpu(
    spot_plan: LaunchSpec, gpu: str, torch: str
) -> None:
    # It installed an unpinned "torch>=2.6": on a V100, a CUDA 12.8 build with no sm_70 kernels.
    setup = _task(spot_plan.model_copy(update={"gpu": gpu}))["setup"]
    cuda = "cu124" if gpu.startswith("V100") else "cu128"
    assert f'pip install "{torch}" --index-url https://download.pytorch.org/whl/{cuda}' in setup, setup


@pytest.mark.parametrize(("gpu", "installed"), [("V100-SXM2-16GB", "2.5.1"), ("H100-SXM", "2.7.0")])
def test_the_readme_says_which_torch_the_setup_installs_and_that_the_estimate_traced_another(
    spot_plan: LaunchSpec, gpu: str, installed: str
) -> None:
    # was: the setup installed torch 2.7.0 and nothing said the estimate had been traced under 2.13.0
    files = by_path(generate(spot_plan.model_copy(update={"gpu": gpu}), "skypilot", LAUNCH))
    readme = " ".join(files["README.md"].split())
    assert f"where there is none it installs torch {installed}" in readme
    assert f"traced under torch {ESTIMATOR_TORCH}, the release gpuplan pins" in readme
    assert (
        f"`pip install torch=={ESTIMATOR_TORCH} --index-url https://download.pytorch.org/whl/cuXYZ`" in readme
    )
    setup = yaml.safe_load(files["task.yaml"])["setup"]
    assert f"traced under torch {ESTIMATOR_TORCH}, not {installed}" in setup
    assert "print('torch', torch.__version__" in setup  # the release that runs, in the log


def test_the_torch_a_readme_names_as_traced_is_the_one_gpuplan_pins() -> None:
    # the `torch` extra of pyproject.toml (read as text: tomllib is Python 3.11+)
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert re.findall(r'^torch = \["torch==([^"]+)"\]', pyproject, re.MULTILINE) == [ESTIMATOR_TORCH]


def test_a_batch_jobs_readme_says_which_torch_its_setup_installs(tmp_path: Path) -> None:
    p = tmp_path / "w.yaml"
    p.write_text(
        "name: cls\ntask: infer\nmodel: {preset: bert-large}\ninputs: {batch_size: 8, seq_len: 128}\n"
    )
    readme = by_path(generate(LaunchSpec.from_workload(p, gpu="L4", count=1), "skypilot", LAUNCH))[
        "README.md"
    ]
    said = " ".join(readme.split())
    assert "where there is none it installs torch 2.7.0" in said and f"torch {ESTIMATOR_TORCH}" in said


def test_a_batch_job_on_a_cloud_skypilot_lacks_is_pointed_only_at_the_targets_that_write_one() -> None:
    # it had named --target torchrun too, which refuses a batch job
    doc = plan_doc(provider="alibaba")
    doc["workload"] = {**doc["workload"], "task": "infer", "serving": None}
    with pytest.raises(DeployError) as e:
        generate(LaunchSpec.from_plan(doc), "skypilot", LAUNCH)
    assert str(e.value).endswith("use --target docker or --target k8s") and "torchrun" not in str(e.value)


def test_each_deploy_is_a_new_run_with_a_checkpoint_bucket_of_its_own(spot_plan: LaunchSpec) -> None:
    # The bucket was "<workload>-checkpoints": SkyPilot reuses a bucket of that name, so the
    # second run of the workload resumed the finished one's last checkpoint and stopped at once.
    # 2026-12-06 and 24 random bits: bert-large-squad-20261206-3fa9c1-checkpoints
    first, second = (GenerateOptions(out_dir="/srv/launch") for _ in range(2))
    assert first.run_id != second.run_id
    buckets = []
    for options in (first, second):
        files = by_path(generate(spot_plan, "skypilot", options))
        bucket = yaml.safe_load(files["task.yaml"])["file_mounts"]["/checkpoints"]["name"]
        assert bucket == f"{spot_plan.name}-{options.run_id}-checkpoints"
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", bucket) and 3 <= len(bucket) <= 63
        readme = files["README.md"]
        assert f"this one's checkpoints go to `{bucket}`" in readme
        assert "launch this task.yaml again" in readme and "billed as storage" in readme
        assert f"sky storage delete {bucket}" in readme
        buckets.append(bucket)
    assert buckets[0] != buckets[1]
    # The same run's files written again name the same bucket: relaunching them resumes that run.
    again = GenerateOptions(out_dir="/srv/launch", run_id=first.run_id)
    assert yaml.safe_load(by_path(generate(spot_plan, "skypilot", again))["task.yaml"]) == yaml.safe_load(
        by_path(generate(spot_plan, "skypilot", first))["task.yaml"]
    )


@pytest.mark.parametrize(
    ("name", "bucket"),
    [
        # 50 characters (the longest job name) cut to fit 63 with the run id and the suffix
        ("a" * 50, "a" * 35 + "-20261206-3fa9c1-checkpoints"),
        # GCS: no "google" in a bucket's name, nor a "goog" prefix; S3: no "sthree-" prefix
        ("google-bert-squad", "bert-squad-20261206-3fa9c1-checkpoints"),
        ("googly", "run-googly-20261206-3fa9c1-checkpoints"),
        ("sthree-job", "run-sthree-job-20261206-3fa9c1-checkpoints"),
        ("google", "gpuplan-20261206-3fa9c1-checkpoints"),
    ],
)
def test_a_checkpoint_bucket_name_keeps_s3s_and_gcss_naming_rules(name: str, bucket: str) -> None:
    from gpuplan.deploy.runs import bucket_name

    made = bucket_name(name, "20261206-3fa9c1", "checkpoints")
    assert made == bucket and len(made) <= 63


def test_a_run_id_is_a_date_and_hex_digits() -> None:
    with pytest.raises(DeployError, match="run id"):
        GenerateOptions(run_id="Run 1/../x")


def test_the_accelerator_is_the_name_skypilots_catalog_gives_the_gpu_on_the_offers_cloud() -> None:
    # was: "no SkyPilot accelerator name is known for RTX-A6000" for the recommended Lambda offer,
    # which SkyPilot's Lambda catalog names A6000 (and Cudo's H100 SXM is H100-SXM there, not H100)
    for provider, region, itype, gpu, name in (
        ("lambda", "us-east-1", "gpu_1x_a6000", "RTX-A6000", "A6000:1"),
        ("cudo", "se-stockholm-1", "ice-lake-rtx-a6000_1x2v4gb", "RTX-A6000", "RTXA6000:1"),
        ("gcp", "us-central1", "a3-megagpu-8g", "H100-SXM", "H100-MEGA:8"),
        ("aws", "us-east-1", "p5.48xlarge", "H100-SXM", "H100:8"),
    ):
        count = 8 if "8" in name else 1
        spec = LaunchSpec.from_plan(
            plan_doc(provider=provider, region=region, instance_type=itype, gpu=gpu, gpu_count=count)
        )
        task = _task(stock_model(spec))
        _validate(task)
        assert task["resources"]["accelerators"] == name, provider


def test_a_gpu_the_clouds_name_differently_needs_a_provider(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="RTX-A6000", count=1)
    with pytest.raises(DeployError) as e:
        generate(spec, "skypilot", LAUNCH)
    assert str(e.value).startswith(
        "SkyPilot's clouds name RTX-A6000 differently (RTXA6000 on cudo, A6000 on lambda"
    )
    assert "RTXA6000 on cudo" in str(e.value)
