"""Dockerfile: a PyTorch CUDA image that has kernels for the GPU; the files it copies exist."""

from __future__ import annotations

import re

import pytest
from deploy_helpers import FIXTURES, by_path, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.images import base_image_for
from gpuplan.errors import DeployError
from gpuplan.hardware import get_gpu


@pytest.mark.parametrize(
    ("gpu", "cuda"),
    [
        ("V100-SXM2-16GB", "12.4"),  # Volta: not in PyTorch's CUDA 12.8+ builds, dropped by CUDA 13
        ("T4", "12.8"),
        ("A100-SXM4-80GB", "12.8"),
        ("H100-SXM", "12.8"),  # Hopper needs CUDA >= 11.8
        ("B200", "12.8"),  # Blackwell needs CUDA >= 12.8
    ],
)
def test_base_image_follows_compute_capability(gpu: str, cuda: str) -> None:
    image = base_image_for(get_gpu(gpu))
    assert image.cuda == cuda and f"cuda{cuda}" in image.image


def test_dockerfile_copies_what_it_ships_and_names_its_reasons(spot_plan: LaunchSpec) -> None:
    files = by_path(generate(spot_plan, "docker"))
    df = files["Dockerfile"]
    assert re.search(r"^FROM pytorch/pytorch:2\.7\.0-cuda12\.8-cudnn9-runtime$", df, re.M)
    copied = re.search(r"^COPY (.+) /workspace/$", df, re.M)
    assert copied and all(name in files for name in copied.group(1).split())
    assert "compute capability 8.0" in df and "driver" in df
    assert "checkpoints/" in files[".dockerignore"]
    assert "--ipc=host" in files["README.md"]


def test_base_image_override(spot_plan: LaunchSpec) -> None:
    files = by_path(
        generate(spot_plan, "docker", GenerateOptions(base_image="nvcr.io/nvidia/pytorch:25.01-py3"))
    )
    assert "FROM nvcr.io/nvidia/pytorch:25.01-py3" in files["Dockerfile"]


def test_amd_gpu_asks_for_a_rocm_image() -> None:
    spec = LaunchSpec.from_plan(plan_doc(gpu="MI300X"))
    with pytest.raises(DeployError, match="not an NVIDIA GPU"):
        generate(spec, "docker")


def test_a_launch_in_mainland_china_says_where_to_put_the_image(spot_plan: LaunchSpec) -> None:
    # was: a plan on alibaba/cn-beijing pulled pytorch/pytorch from Docker Hub with no word that it
    # is often unreachable there
    from deploy_helpers import k8s_options

    cn = spot_plan.model_copy(update={"provider": "alibaba", "region": "cn-beijing"})
    for files in (by_path(generate(cn, "docker")), by_path(generate(cn, "k8s", k8s_options(cn)))):
        assert "This plan runs in mainland China (alibaba cn-beijing)" in files["README.md"]
        assert "--image (k8s)" in files["README.md"]
        # The Dockerfile that pulls it says so too, in its comment on the base image (it said
        # nothing there).
        above_from = files["Dockerfile"].split("\nFROM pytorch/pytorch:", 1)[0]
        assert "\n# This plan runs in mainland China (alibaba cn-beijing)" in above_from
        assert "Huawei Cloud SWR" in above_from and "--base-image (docker)" in above_from
    assert "mainland China" not in by_path(generate(spot_plan, "docker"))["README.md"]  # us-east-1
    assert "mainland China" not in by_path(generate(spot_plan, "docker"))["Dockerfile"]
    # An image the user chose (a copy in their registry) needs no such word above its FROM.
    own = by_path(
        generate(cn, "docker", GenerateOptions(base_image="registry.cn-beijing.aliyuncs.com/me/pt:2.7"))
    )
    assert "mainland China" not in own["Dockerfile"]
    hk = spot_plan.model_copy(update={"provider": "alibaba", "region": "cn-hongkong"})
    assert "mainland China" not in by_path(generate(hk, "docker"))["README.md"]


def test_a_docker_service_or_batch_job_in_mainland_china_says_where_its_image_and_weights_come_from() -> None:
    # was: the k8s README of the same plan said Docker Hub and huggingface.co are often unreachable
    # from mainland China; the docker READMEs of the engine service and the batch jobs said nothing
    import json

    from deploy_helpers import FIXTURES

    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    service = LaunchSpec.from_plan(doc).model_copy(update={"provider": "alibaba", "region": "cn-beijing"})
    doc["workload"]["serving"] = None
    batch = LaunchSpec.from_plan(doc).model_copy(update={"provider": "alibaba", "region": "cn-beijing"})
    stand_in = batch.model_copy(update={"hf_model_id": None})  # batch.py, no Hub weights
    for spec, hub in ((service, True), (batch, True), (stand_in, False)):
        readme = " ".join(by_path(generate(spec, "docker"))["README.md"].split())
        assert "This plan runs in mainland China (alibaba cn-beijing)" in readme, readme
        assert ("huggingface.co" in readme) == hub, readme


def test_the_readmes_of_a_checkpoint_folder_the_user_names_say_a_new_run_needs_its_own() -> None:
    # train.py resumes from the newest checkpoint in its folder: a second run given the first one's
    # folder resumed the finished run. SkyPilot and Kubernetes name a bucket or PVC per deploy.
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    for target in ("torchrun", "docker"):
        readme = by_path(generate(spec, target))["README.md"]
        assert "A new run needs a checkpoint folder of its own" in readme, target


@pytest.mark.parametrize("target", ["docker", "torchrun"])
def test_the_readme_says_how_big_the_checkpoint_folders_disk_must_be(target: str) -> None:
    # 2 checkpoints of 96.36 GB at once at the most (train.py's KEEP_CHECKPOINTS, the one being
    # written included): 192.72 GB; x 1.15 headroom = 206.4 GiB, up to 210
    spec = LaunchSpec.from_plan({**plan_doc(), "checkpoint_gb": 96.36, "checkpoint_write_min": 3.2})
    readme = by_path(generate(spec, target))["README.md"]
    assert "One checkpoint is 96.36 GB" in readme
    assert "its disk needs 193 GB free, 210 GiB with room for the filesystem" in readme


def test_docker_stop_is_given_the_time_to_save_the_plans_checkpoint() -> None:
    # 60 s for the step in flight + twice the plan's 3.212 min write = 445.5 s, up to 450
    spec = LaunchSpec.from_plan({**plan_doc(), "checkpoint_gb": 96.36, "checkpoint_write_min": 3.212})
    readme = by_path(generate(spec, "docker"))["README.md"]
    assert "`docker stop -t 450`" in readme and "-t 120" not in readme
    assert "The spot notice of Amazon Web Services is 120 s" in readme  # shorter than 253 s
    # without the plan's write time: the least grace
    assert (
        "`docker stop -t 120`" in by_path(generate(LaunchSpec.from_plan(plan_doc()), "docker"))["README.md"]
    )


def test_the_torchrun_readme_says_a_reclaim_on_a_short_notice_falls_back_to_the_periodic_checkpoint() -> None:
    spec = LaunchSpec.from_plan({**plan_doc(), "checkpoint_gb": 96.36, "checkpoint_write_min": 3.212})
    readme = by_path(generate(spec, "torchrun"))["README.md"]
    assert "the run resumes from the last periodic checkpoint, up to one interval (12.5 min)" in readme


@pytest.mark.parametrize("region", ["unspecified", None])
def test_a_service_of_a_chinese_cloud_in_no_named_region_is_told_the_china_notes_as_conditions(
    region: str | None,
) -> None:
    # was: a plan option tencent/"unspecified" (the price source names no region) deployed with no
    # word on Docker Hub or huggingface.co, which are often unreachable from mainland China, nor
    # that the region is not known: tencent, alibaba, huawei and volcengine have mainland regions.
    import json

    from deploy_helpers import k8s_options

    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    served = LaunchSpec.from_plan(doc)
    for provider in ("tencent", "alibaba", "huawei", "volcengine"):
        spec = served.model_copy(update={"provider": provider, "region": region})
        for files in (by_path(generate(spec, "docker")), by_path(generate(spec, "k8s", k8s_options(spec)))):
            readme = " ".join(files["README.md"].split())
            assert (
                f"No region of {provider} is named: pick one before applying. If it is in mainland China"
                in readme
            )
            assert f"If this runs in a mainland China region of {provider} (no region is named)" in readme
            assert "VLLM_USE_MODELSCOPE=True" in readme
    # A provider without mainland regions, or a region that is known, is not told it may be there.
    for provider, where in (("aws", region), ("alibaba", "cn-hongkong"), ("alibaba", "cn-beijing")):
        spec = served.model_copy(update={"provider": provider, "region": where})
        readme = by_path(generate(spec, "docker"))["README.md"]
        assert "No region of" not in readme and "If this runs in a mainland China region" not in readme


def test_a_docker_service_priced_at_spot_rates_says_to_run_on_spot_hosts() -> None:
    # was: nothing on spot in the docker README of a spot service plan, run as written on
    # on-demand hosts at the on-demand price (3.2x for ecs.gn7e-c16g1.4xlarge in cn-beijing)
    import json

    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    on_demand = LaunchSpec.from_plan(doc)
    doc["recommended"]["pricing"] = "spot"
    spot = LaunchSpec.from_plan(doc)
    said = "The plan is priced at spot rates (aws us-east-1 g6e.xlarge): run these containers on spot"
    assert said in " ".join(by_path(generate(spot, "docker"))["README.md"].split())
    assert "spot rates" not in by_path(generate(on_demand, "docker"))["README.md"]


def test_a_docker_launch_on_a_community_host_copies_its_checkpoints_off_the_host() -> None:
    # was: "the same `docker run` resumes from /checkpoints" only, where those sit on the host's disk
    doc = plan_doc(provider="vast", region="DE", instance_type="1x-RTX_4090-32-65536")
    readme = by_path(generate(LaunchSpec.from_plan(doc), "docker"))["README.md"]
    assert "**Checkpoints on a community host:**" in readme and "go with it" in readme
    loop = r"while sleep \d+; do aws s3 sync \"\$PWD/checkpoints\" s3://YOUR-BUCKET/PREFIX "
    assert re.search(loop, readme) and "--exclude '*.tmp'" in readme
    assert 'aws s3 sync s3://YOUR-BUCKET/PREFIX "$PWD/checkpoints"' in readme
    assert "rclone sync" in readme
    # a machine its provider runs keeps the README as it was
    cloud = by_path(generate(LaunchSpec.from_plan(plan_doc()), "docker"))["README.md"]
    assert "community host" not in cloud and "s3://YOUR-BUCKET" not in cloud
