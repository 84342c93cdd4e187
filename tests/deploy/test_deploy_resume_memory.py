"""train.py resumes by broadcasting its full checkpoint to every rank: deploy says where a node's
memory cannot hold that (or is not known for a large checkpoint), on stderr and in the README."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from deploy_helpers import FIXTURES, by_path

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.resume_memory import resume_memory_gib, resume_memory_warning
from gpuplan.documents.plan import workload_digest
from gpuplan.i18n import use_language
from gpuplan.workload import Workload

#: A 14.8 B-parameter full fine-tune, its checkpoints written whole (ZeRO-3), AdamW, 8 x A100-40GB a node.
_QWEN = (
    "name: qwen14b-full-ft\ntask: finetune\nmodel: {preset: qwen2.5-14b}\n"
    "inputs: {batch_size: 2, seq_len: 4096}\n"
    "precision: amp-bf16\noptimizer: adamw\ngradient_checkpointing: true\nparallelism: zero3\n"
    "data: {tokens: 2B, epochs: 1, size_gb: 20}\n"
)
#: Its plan's checkpoint, GB (fp32 weights + AdamW's two moments: 12 bytes a parameter).
_CKPT_GB = 177.236498432
_OPTIONS = GenerateOptions(out_dir="/tmp/launch")  # the skypilot target needs its folder


def _plan(tmp_path: Path, checkpoint_gb: float = _CKPT_GB) -> Path:
    doc = json.loads((FIXTURES / "plan_spot_aws.json").read_text())
    doc["workload"] = Workload.from_dict(yaml.safe_load(_QWEN)).to_dict()
    doc["workload_sha256"] = workload_digest(doc["workload"])
    doc["recommended"] |= {"instance_type": "p4d.24xlarge", "gpu": "A100-SXM4-40GB", "gpu_count": 8}
    doc["recommended"] |= {"gpus_per_node": 8, "nodes": 1}
    doc["checkpoint_gb"] = checkpoint_gb
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


def test_a_resume_needs_a_checkpoint_per_gpu_process_and_one_more(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path))
    # 9 copies (8 ranks + rank 0's file) of 177.24 GB, in GiB
    assert resume_memory_gib(spec, "torchrun") == pytest.approx(9 * _CKPT_GB * 1e9 / 2**30)
    assert round(resume_memory_gib(spec, "torchrun") or 0) == 1486


def test_a_resume_beyond_the_instances_memory_is_said_in_the_readme_in_both_languages(tmp_path: Path) -> None:
    # p4d.24xlarge: 1,152 GiB, the catalog's
    spec = LaunchSpec.from_plan_json(_plan(tmp_path)).with_host(96, 1152)
    line = resume_memory_warning(spec, "torchrun")
    assert line is not None
    assert "9 x 177.24 GB" in line and "1,486 GiB" in line and "p4d.24xlarge has 1152 GiB" in line
    assert "set parallelism: fsdp" in line and "torch.distributed.checkpoint" in line
    for target in ("torchrun", "docker", "k8s", "skypilot"):
        readme = by_path(generate(spec, target, _OPTIONS))["README.md"]
        assert "1,486 GiB a node, but p4d.24xlarge has 1152 GiB" in readme, target
    with use_language("zh"):
        readme = by_path(generate(spec, "torchrun"))["README.md"]
    assert "1,486 GiB" in readme and "1152 GiB" in readme
    assert "to resume, train.py holds" not in readme  # translated


def test_fsdps_sharded_checkpoints_hold_no_full_state_and_say_nothing(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path)).with_host(96, 1152)
    fsdp = spec.model_copy(update={"parallelism": "fsdp"})
    assert resume_memory_gib(fsdp, "torchrun") is None and resume_memory_warning(fsdp, "torchrun") is None
    readme = by_path(generate(fsdp, "torchrun", _OPTIONS))["README.md"]
    assert "GiB a node" not in readme
    assert "checkpointed in parts with torch.distributed.checkpoint" in readme
    # on two nodes the parts need a folder both see, which torchrun's and Docker's files leave to
    # the user: still said, with the targets that set one up
    two = fsdp.model_copy(update={"nodes": 2})
    for target in ("torchrun", "docker"):
        line = resume_memory_warning(two, target)
        assert line is not None and "1,486 GiB a node, but p4d.24xlarge has 1152 GiB" in line
        assert "only where CKPT_DIR is storage every node sees" in line
        assert "(--target k8s and --target skypilot do)" in line
        assert "GiB a node" in by_path(generate(two, target, _OPTIONS))["README.md"], target


def test_fsdp_on_nodes_is_not_warned_where_the_files_give_every_node_one_checkpoint_folder(
    tmp_path: Path,
) -> None:
    # k8s mounts one ReadWriteMany claim in every pod (its class set first, as its README asks), and
    # SkyPilot the run's bucket on every node: train.py writes in parts there, no rank holds it whole
    spec = LaunchSpec.from_plan_json(_plan(tmp_path)).with_host(96, 1152)
    two = spec.model_copy(update={"parallelism": "fsdp", "nodes": 2})
    for target in ("k8s", "skypilot"):
        assert resume_memory_gib(two, target) is None and resume_memory_warning(two, target) is None
        assert "GiB a node" not in by_path(generate(two, target, _OPTIONS))["README.md"], target
    # DDP on the same nodes resumes from a whole checkpoint on every target
    ddp = two.model_copy(update={"parallelism": "ddp"})
    assert all(resume_memory_warning(ddp, t) is not None for t in ("torchrun", "docker", "k8s", "skypilot"))


def test_a_resume_that_fits_says_nothing(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path)).with_host(96, 2048)
    assert resume_memory_warning(spec, "torchrun") is None
    assert "1,486 GiB" not in by_path(generate(spec, "torchrun"))["README.md"]


def test_an_unknown_memory_is_never_taken_to_hold_a_large_checkpoint(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path))
    assert spec.host_memory_gib is None
    line = resume_memory_warning(spec, "torchrun")
    assert line is not None and "the memory of p4d.24xlarge is not known" in line and "1,486 GiB" in line
    # a small checkpoint (under the template's ~10 B parameters at 4 bytes each) is not said
    small = LaunchSpec.from_plan_json(_plan(tmp_path, checkpoint_gb=4.0))
    assert resume_memory_warning(small, "torchrun") is None


def test_deploy_says_it_on_stderr_with_the_catalogs_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    argv = ["gpuplan", "deploy", str(_plan(tmp_path)), "-t", "torchrun", "-o", str(out), "--force"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code in (0, None), err
    # the shipped catalog lists p4d.24xlarge with 1,152 GiB
    (warning,) = [line for line in err.splitlines() if "GiB a node" in line]
    assert warning.startswith("warning: to resume, train.py holds the whole checkpoint")
    assert "p4d.24xlarge has 1152 GiB (the catalog's)" in warning
    assert "1,486 GiB a node" in (out / "README.md").read_text()
