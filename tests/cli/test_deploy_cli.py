"""`gpuplan deploy` end to end: files written, and bad input as one line with exit code 1."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpuplan.cli import main

FIXTURES = Path(__file__).parents[1] / "deploy" / "fixtures"
PLAN = FIXTURES / "plan_spot_aws.json"


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["gpuplan", *args])
    with pytest.raises(SystemExit) as e:
        main()
    out, err = capsys.readouterr()
    code = e.value.code if isinstance(e.value.code, int) else 1
    return code, out, err


@pytest.mark.parametrize("target", ["torchrun", "docker", "k8s", "skypilot"])
def test_deploy_writes_the_target_files_and_a_readme(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    code, out, err = _run(monkeypatch, capsys, "deploy", str(PLAN), "--target", target, "--out", str(out_dir))
    assert code == 0, err
    assert (out_dir / "README.md").is_file() and (out_dir / "train.py").is_file()
    assert f"for {target}" in out


def test_launch_script_is_executable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, capsys, "deploy", str(PLAN), "-t", "torchrun", "-o", str(tmp_path / "o"))
    assert (tmp_path / "o" / "launch.sh").stat().st_mode & 0o111


def test_unknown_target_is_one_line_with_did_you_mean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(PLAN), "--target", "dokcer", "--out", str(tmp_path / "o")
    )
    assert code == 1
    one_of = "(one of torchrun, docker, k8s, skypilot)"
    assert err == f"error: unknown deploy target 'dokcer'; did you mean 'docker'? {one_of}\n"
    assert not (tmp_path / "o").exists()


def test_a_mistyped_autoscaler_is_one_line_with_did_you_mean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "--autoscaler must be hpa or keda, not 'kada'" named the choices but not the one meant.
    args = ["deploy", str(PLAN), "-t", "k8s", "-o", str(tmp_path / "o"), "--autoscaler", "kada"]
    code, _, err = _run(monkeypatch, capsys, *args)
    assert code == 1
    assert err == "error: unknown --autoscaler 'kada'; did you mean 'keda'?\n"
    assert not (tmp_path / "o").exists()


def test_plan_of_another_schema_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(PLAN.read_text())
    doc["schema_version"] = 7
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    code, _, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", "k8s", "-o", str(tmp_path / "o"))
    assert code == 1
    assert (
        err == "error: plan file has schema version 7; this gpuplan reads versions 1 to 6: "
        "re-run `gpuplan plan`\n"
    )


def test_malformed_plan_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"schema_version": 1, "recommended": {"provider": "aws"')
    code, _, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", "k8s", "-o", str(tmp_path / "o"))
    assert code == 1 and err.startswith("error: ") and "not valid JSON" in err and err.count("\n") == 1


def test_non_empty_output_directory_needs_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    (out_dir / "train.py").write_text("# mine\n")
    (out_dir / "notes.txt").write_text("keep me\n")
    code, _, err = _run(monkeypatch, capsys, "deploy", str(PLAN), "-t", "torchrun", "-o", str(out_dir))
    assert code == 1 and "exists and is not empty" in err and "--force" in err
    assert (out_dir / "train.py").read_text() == "# mine\n"  # nothing overwritten
    code, _, _ = _run(
        monkeypatch, capsys, "deploy", str(PLAN), "-t", "torchrun", "-o", str(out_dir), "--force"
    )
    assert code == 0
    assert (out_dir / "train.py").read_text() != "# mine\n"
    assert (out_dir / "notes.txt").read_text() == "keep me\n"  # --force replaces, never deletes


def test_workload_options_on_a_plan_file_are_an_error_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The plan's GPU is what was planned (and priced): --gpu T4 beside it contradicts it.
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(PLAN), "-t", "docker", "-o", str(tmp_path / "o"), "--gpu", "T4"
    )
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("error: --gpu: only for workload files; the plan file already says where to run")
    assert not (tmp_path / "o").exists()


def test_workload_file_with_gpu_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(FIXTURES / "train.yaml"), "-t", "skypilot", "-o", str(out_dir),
        "--gpu", "h100-sxm", "--count", "8", "--provider", "gcp", "--spot",
    )  # fmt: skip
    assert code == 0, err
    task = (out_dir / "task.yaml").read_text()
    assert "accelerators: H100:8" in task and "use_spot: true" in task and "infra: gcp" in task
    # GCP sells 8 H100 SXM on one node (a3-highgpu-8g): no warning of the shape, and none of a
    # stand-in: train.py builds preset gpt2 from preset_model.py, for the whole run's 2 steps
    assert [line for line in err.splitlines() if "warning" in line] == []


def test_deploy_takes_minus_n_for_the_gpu_count_as_estimate_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `estimate -n 16` and `deploy --count 16` both count the GPUs in all; deploy refused `-n`.
    for count in ("-n", "--count"):
        out_dir = tmp_path / count
        args = ("deploy", str(FIXTURES / "train.yaml"), "-t", "skypilot", "-o", str(out_dir))
        code, _, err = _run(monkeypatch, capsys, *args, "--gpu", "h100-sxm", count, "16", "--provider", "gcp")
        assert code == 0, err
        task = (out_dir / "task.yaml").read_text()
        assert "accelerators: H100:8" in task and "num_nodes: 2" in task


@pytest.mark.parametrize(
    ("gpu", "count", "said"),
    [
        ("T4", "3", "no aws instance with 3 x T4 (it lists 1, 4, 8)"),
        ("H200-NVL", "1", "no aws instance with H200-NVL"),
    ],
)
def test_a_shape_the_provider_does_not_sell_is_warned_and_written_as_asked(
    gpu: str,
    count: str,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # SkyPilot would find no AWS machine for `T4:3`; a catalog can lag, so the files are written.
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(FIXTURES / "train.yaml"), "-t", "skypilot", "-o", str(out_dir),
        "--gpu", gpu, "--count", count, "--provider", "aws",
    )  # fmt: skip
    assert code == 0, err
    assert f"warning: the catalog lists {said}" in err
    assert (out_dir / "task.yaml").is_file()


#: A small image model: its launch files are what the pricing warning is checked beside.
VIT = (
    "name: vit\ntask: train\nmodel: {preset: vit-b16}\ninputs: {batch_size: 64, image_size: 224}\n"
    "precision: amp-bf16\n"
)


@pytest.mark.parametrize(
    ("region", "spot", "said"),
    [
        # `gpuplan offers --gpu A100-SXM4-80GB --provider alibaba --region cn-shanghai --pricing spot`: 0
        (
            "cn-shanghai",
            True,
            "warning: the catalog lists no spot offer of A100-SXM4-80GB from alibaba in cn-shanghai "
            "(it lists one in cn-beijing, ",
        ),
        ("cn-beijing", True, None),
        ("cn-shanghai", False, None),  # on demand there: nothing to say
    ],
)
def test_a_pricing_model_the_region_does_not_offer_is_warned_naming_the_regions_that_do(
    region: str,
    spot: bool,
    said: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The files are written (a catalog can lag), as for a shape the provider does not sell.
    workload = tmp_path / "vit.yaml"
    workload.write_text(VIT, encoding="utf-8")
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(workload), "-t", "torchrun", "-o", str(out_dir),
        "--gpu", "A100-SXM4-80GB", "--count", "8", "--provider", "alibaba", "--region", region,
        *(["--spot"] if spot else []),
    )  # fmt: skip
    assert code == 0, err
    assert (out_dir / "launch.sh").is_file()
    if said is None:
        assert "offer of" not in err
    else:
        assert said in err


@pytest.mark.parametrize(
    ("rules", "listed", "said"),
    [
        # Hong Kong (cn-hongkong, HK) is outside mainland China: never offered for a region in CN
        (
            "constraints: {countries: [CN]}\n",
            "cn-beijing, cn-hangzhou, cn-shanghai, cn-shenzhen, cn-wulanchabu",
            "",
        ),
        (
            "constraints: {countries: [中国]}\n",
            "cn-beijing, cn-hangzhou, cn-shanghai, cn-shenzhen, cn-wulanchabu",
            "",
        ),
        ("constraints: {regions: [cn-chengdu, cn-hongkong]}\n", "cn-hongkong", ""),
        ("", "cn-beijing, cn-hangzhou, cn-hongkong, cn-shanghai", ""),
        (
            "constraints: {regions: [cn-chengdu]}\n",
            "",
            "nor in any other region the workload's constraints (countries, regions) allow",
        ),
    ],
)
def test_the_regions_a_pricing_warning_names_are_those_the_workloads_place_rules_allow(
    rules: str,
    listed: str,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # L20 is sold by the hour in five mainland regions of Alibaba and in cn-hongkong, not cn-chengdu
    workload = tmp_path / "vit.yaml"
    workload.write_text(VIT + rules, encoding="utf-8")
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(workload), "-t", "torchrun", "-o", str(tmp_path / "o"),
        "--gpu", "L20", "--provider", "alibaba", "--region", "cn-chengdu",
    )  # fmt: skip
    assert code == 0, err
    line = next(x for x in err.splitlines() if "offer of L20" in x)
    if listed:
        assert f"(it lists one in {listed}" in line
    if said or rules:
        assert ("cn-hongkong" in line) == ("cn-hongkong" in rules)
    assert said in line


def test_deploy_help_does_not_import_torch() -> None:
    code = (
        "import sys\n"
        "from gpuplan.cli import main\n"
        "sys.argv = ['gpuplan', 'deploy', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "--target" in r.stdout


def test_json_output_lists_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        monkeypatch, capsys, "deploy", str(PLAN), "-t", "skypilot", "-o", str(tmp_path / "o"), "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["schema_version"] == 1 and doc["target"] == "skypilot"
    assert "task.yaml" in doc["files"] and all((tmp_path / "o" / f).is_file() for f in doc["files"])


def test_json_output_names_the_run_whose_storage_the_files_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # each deploy is a run with checkpoint storage of its own; --json had not said which, so a
    # script could not find this run's bucket
    from gpuplan.deploy.runs import RUN_ID

    runs = []
    for out_dir in ("a", "b"):
        code, out, _ = _run(
            monkeypatch,
            capsys,
            "deploy",
            str(PLAN),
            "-t",
            "skypilot",
            "-o",
            str(tmp_path / out_dir),
            "--json",
        )
        assert code == 0
        run_id = json.loads(out)["run_id"]
        assert (
            RUN_ID.fullmatch(run_id)
            and f"-{run_id}-checkpoints" in (tmp_path / out_dir / "task.yaml").read_text()
        )
        runs.append(run_id)
    assert runs[0] != runs[1]  # a deploy again is another run


def test_serving_flags_shape_the_kubernetes_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(FIXTURES / "serve.yaml"), "-t", "k8s", "-o", str(out_dir),
        "--gpu", "a100-sxm4-80gb", "--share-gpu", "1", "--mig-profile", "2g.20gb",
        "--utilization-target", "60", "--autoscaler", "keda",
    )  # fmt: skip
    assert code == 0, err
    assert "nvidia.com/mig-2g.20gb: 1" in (out_dir / "k8s" / "deployment.yaml").read_text()
    assert "threshold: '60'" in (out_dir / "k8s" / "keda-scaledobject.yaml").read_text()


def test_serving_flags_on_a_training_plan_are_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(PLAN), "-t", "k8s", "-o", str(tmp_path / "o"), "--share-gpu", "4"
    )
    assert code == 1 and "only for serving workloads" in err


def test_deploy_out_at_the_root_of_the_file_system_is_refused_before_writing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # SkyPilot's workdir is --out, which it uploads whole: "/" would be the whole file system
    code, _, err = _run(monkeypatch, capsys, "deploy", str(PLAN), "--target", "skypilot", "--out", "/")
    assert code == 1
    assert err == "error: the output folder '/' is the root of the file system; name a folder for the files\n"


def test_more_gpus_than_a_node_holds_are_laid_out_as_nodes_of_the_largest_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # No H100-SXM instance in the catalog has more than 8 GPUs: 16 are two nodes of 8, as `plan`
    # lays them out (an instance shape × a node count), never one node of 16.
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(FIXTURES / "train.yaml"), "-t", "torchrun", "-o", str(out_dir),
        "--gpu", "H100-SXM", "--count", "16",
    )  # fmt: skip
    assert code == 0, err
    assert "16 x H100-SXM (8 per node, 2 node(s))" in (out_dir / "README.md").read_text()
    launch = (out_dir / "launch.sh").read_text()
    assert 'NPROC_PER_NODE="${NPROC_PER_NODE:-8}"' in launch and 'NNODES="${NNODES:-2}"' in launch
    assert "note: 16 x H100-SXM laid out as 2 nodes of 8" in err


def test_a_count_that_is_no_whole_number_of_nodes_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Azure's H100-SXM instances all have 8 GPUs: 12 are neither one node nor whole nodes of 8.
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(FIXTURES / "train.yaml"), "-t", "torchrun", "-o", str(out_dir),
        "--gpu", "H100-SXM", "--count", "12", "--provider", "azure",
    )  # fmt: skip
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("error: --count 12:")
    assert "largest H100-SXM instance in the catalog has 8" in err and "--count 8 or 16" in err
    assert not out_dir.exists()


def test_a_provider_with_only_one_gpu_instances_says_the_job_runs_over_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Lambda lists A10 instances of one GPU only: 13 are 13 nodes of 1, which the note called "the
    # largest A10 instance in the catalog" (Tencent's has 16) and did not say meant the network.
    out_dir = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(FIXTURES / "train.yaml"), "-t", "torchrun", "-o", str(out_dir),
        "--gpu", "A10", "--count", "13", "--provider", "lambda",
    )  # fmt: skip
    assert code == 0, err
    launch = (out_dir / "launch.sh").read_text()
    assert 'NPROC_PER_NODE="${NPROC_PER_NODE:-1}"' in launch and 'NNODES="${NNODES:-13}"' in launch
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert notes[0] == (
        "note: 13 x A10 laid out as 13 nodes of 1 GPU (lambda's largest A10 instance has 1): "
        "GPUs on different nodes exchange data over the network between instances, which the catalog "
        "does not list for gpu_1x_a10"
    ), err
    assert (
        notes[1]
        == "note: tencent lists A10 instances of 16 GPUs: --provider tencent --count 16 fills whole ones"
    )
    # and warns of the rate gpuplan times it at, the flag that gives the real one, and the check
    # (was: the note alone)
    (warning,) = [line for line in err.splitlines() if "catalog lists no network" in line]
    assert warning.startswith(
        "warning: the catalog lists no network between the gpu_1x_a10 nodes: `gpuplan plan` times this "
        "job at 2.5 Gbit/s TCP"
    )
    assert "--network-gbps N" in warning and "all_reduce_perf" in warning and "NCCL_DEBUG=INFO" in warning


def _marketplace_plan(tmp_path: Path, *others: str) -> Path:
    doc = json.loads(PLAN.read_text())
    lam = doc["recommended"] | {"provider": "lambda", "instance_type": "gpu_8x_a100"}
    doc["options"] = [lam, *(doc["recommended"] | {"provider": p} for p in others)]
    doc["recommended"] = lam
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


def test_k8s_on_a_plan_with_no_managed_kubernetes_is_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, out = _marketplace_plan(tmp_path, "runpod"), tmp_path / "o"
    code, _, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", "k8s", "-o", str(out))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("error: --target k8s: the plan's option lambda us-east-1 gpu_8x_a100 is on lambda")
    assert "aws (EKS)" in err and not out.exists()
    # A cluster of the user's own on those machines: the recommended option, as planned.
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(plan), "-t", "k8s", "-o", str(out), "--own-cluster"
    )
    assert code == 0, err
    assert "node.kubernetes.io/instance-type: gpu_8x_a100" in (out / "k8s" / "job.yaml").read_text()


def test_k8s_deploys_the_plans_best_option_on_managed_kubernetes_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, out = _marketplace_plan(tmp_path, "runpod", "aws"), tmp_path / "o"
    code, _, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", "k8s", "-o", str(out))
    assert code == 0, err
    assert "deploying the plan's best option on one that has: aws us-east-1 p4d.24xlarge (EKS)" in err
    assert "node.kubernetes.io/instance-type: p4d.24xlarge" in (out / "k8s" / "job.yaml").read_text()


def test_k8s_refuses_a_workload_provider_without_managed_kubernetes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "deploy",
        str(FIXTURES / "train.yaml"),
        "-t",
        "k8s",
        "-o",
        str(tmp_path / "o"),
        "--gpu",
        "A100-SXM4-80GB",
    ]
    code, _, err = _run(monkeypatch, capsys, *args, "--provider", "runpod")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(
        "error: --target k8s: runpod has no managed Kubernetes known to gpuplan; providers with"
    )
    assert not (tmp_path / "o").exists()


def _serve_plan(tmp_path: Path, *, serving: bool) -> Path:
    """The served Llama plan, with its workload's serving: block or without it (batch inference)."""
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    if not serving:
        doc["workload"]["serving"] = None
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


@pytest.mark.parametrize("target", ["torchrun"])
def test_batch_inference_is_refused_in_one_line_and_nothing_is_written(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An inference plan whose workload has no serving: block is a batch job run once: a target that
    # does not write one refuses it, naming those that do (k8s had written a Deployment of 4–8
    # replicas up around the clock).
    out_dir = tmp_path / "out"
    plan = _serve_plan(tmp_path, serving=False)
    code, _out, err = _run(
        monkeypatch, capsys, "deploy", str(plan), "--target", target, "--out", str(out_dir)
    )
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err
    assert "batch inference (task: infer without a serving: block)" in lines[0]
    assert "add a serving: block" in lines[0]
    assert "exits: use --target docker or --target k8s or --target skypilot; or add" in lines[0]
    assert not out_dir.exists()


@pytest.mark.parametrize(
    ("target", "runner"), [("k8s", "k8s/job.yaml"), ("docker", "Dockerfile"), ("skypilot", "task.yaml")]
)
def test_batch_inference_is_written_as_a_job_that_runs_once_by_docker_k8s_and_skypilot(
    target: str,
    runner: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The plan's model is a Hub LLM: every target runs it on vLLM (vllm_batch.py), skypilot on
    # vLLM's image as a managed job (it had refused: its batch.py would have run a stand-in).
    out_dir = tmp_path / "out"
    plan = _serve_plan(tmp_path, serving=False)
    code, _out, err = _run(
        monkeypatch, capsys, "deploy", str(plan), "--target", target, "--out", str(out_dir)
    )
    assert code == 0, err
    assert (out_dir / "vllm_batch.py").is_file() and (out_dir / runner).is_file()
    assert not (out_dir / "serve.py").exists() and not (out_dir / "k8s" / "deployment.yaml").exists()


def test_the_same_plan_with_a_serving_block_is_deployed_as_a_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    plan = _serve_plan(tmp_path, serving=True)
    code, _out, err = _run(monkeypatch, capsys, "deploy", str(plan), "--target", "k8s", "--out", str(out_dir))
    assert code == 0, err
    assert (out_dir / "k8s").is_dir()


def _files_under(out_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out_dir)): p.read_bytes() for p in sorted(out_dir.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("target", ["k8s", "docker"])
def test_a_plan_of_a_preset_copied_to_another_folder_deploys_the_same_files(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `gpuplan plan` writes the folder it planned in as the workload's model.project_dir; a preset
    # reads nothing from it. A copy of the plan elsewhere had been refused that folder and deployed
    # without its engine sized: the model's whole 131,072-token limit, which one replica's KV cache
    # on an A10G does not hold (vLLM would not start), and, on k8s, GPU utilisation.
    made = tmp_path / "made"
    made.mkdir()
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["recommended"].update(gpu="A10G", instance_type="g5.xlarge")
    doc["workload"]["model"]["project_dir"] = str(made)
    written = {}
    for folder in (made, tmp_path / "copied"):
        folder.mkdir(exist_ok=True)
        (folder / "plan.json").write_text(json.dumps(doc))
        monkeypatch.chdir(folder)  # as the user runs it: in the plan's folder, --out relative
        code, _out, err = _run(monkeypatch, capsys, "deploy", "plan.json", "--target", target, "--out", "o")
        assert code == 0, err
        assert "project_dir" not in err and "not known" not in err
        written[folder.name] = _files_under(folder / "o")
    assert written["copied"] == written["made"]
    engine = "k8s/deployment.yaml" if target == "k8s" else "Dockerfile"
    sized = written["made"][engine].decode()
    assert "--max-model-len" in sized and "131072" not in sized  # capped at the KV cache
    if target == "k8s":
        assert "k8s/podmonitor.yaml" in written["copied"]
        assert b"DCGM" not in written["copied"]["k8s/hpa.yaml"]


def test_only_a_model_read_from_its_folder_keeps_the_plans_project_dir(tmp_path: Path) -> None:
    # model.python is imported from project_dir and a relative hf_config resolved from it: they keep
    # it, to be checked against the folder the user named; a preset or an absolute config reads
    # nothing from it.
    from gpuplan.cli.deploy_checks import plan_workload
    from gpuplan.deploy import LaunchSpec
    from gpuplan.workload.paths import unread_project_dir

    elsewhere = str(tmp_path / "elsewhere")
    kept = [{"python": "mymodel:build"}, {"hf_config": "config.json"}]
    dropped = [{"preset": "gpt2"}, {"hf_config": str(tmp_path / "config.json")}]
    for model in kept + dropped:
        data = {"model": {**model, "project_dir": elsewhere}}
        assert ("project_dir" in unread_project_dir(data)["model"]) == (model in kept), model
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["model"] = {"python": "mymodel:build", "project_dir": elsewhere}
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "here").mkdir()
    plan = tmp_path / "here" / "plan.json"
    plan.write_text(json.dumps(doc))
    assert plan_workload(plan, None) == (
        "the plan's model is code (model.python), which deploy does not run from a plan"
    )
    assert LaunchSpec.from_plan_json(plan).project_dir is None  # nothing copied from elsewhere


@pytest.mark.parametrize("target", ["docker", "k8s"])
def test_an_engine_whose_kv_cache_is_not_counted_is_not_started_at_the_models_whole_limit(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # No GPU named: one replica's KV cache is unknown. The model's 1,024 tokens had been written with
    # a note that an engine whose cache cannot hold them refuses to start; the engine now takes the
    # serving block's 100 + 20 tokens, and deploy and the README say so.
    served = tmp_path / "serve.yaml"
    served.write_text(
        "name: s\ntask: infer\nmodel: {preset: gpt2}\ninputs: {batch_size: 1, seq_len: 128}\n"
        "serving: {requests_per_s: 10, prompt_tokens: 100, output_tokens: 20, engine: vllm}\n"
    )
    out_dir = tmp_path / "o"
    code, _out, err = _run(
        monkeypatch, capsys, "deploy", str(served), "--target", target, "--out", str(out_dir)
    )
    assert code == 0, err
    assert (
        "note: the engine takes requests of up to 120 tokens (the serving block's prompt + answer), not "
        "the model's own 1,024: what one replica's KV cache holds is not known (no GPU named (--gpu))"
    ) in err
    engine = (out_dir / ("k8s/deployment.yaml" if target == "k8s" else "Dockerfile")).read_text()
    assert ("'120'" if target == "k8s" else '"--max-model-len", "120"') in engine and "1024" not in engine
    readme = " ".join((out_dir / "README.md").read_text().split())
    said = "up to 120 tokens, prompt and answer together: the serving block's prompt + answer tokens"
    assert said in readme


def test_deploy_warns_in_one_line_where_a_plans_config_is_gone_and_it_recorded_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A plan of an hf_config batch job made before plans recorded the model, its config moved:
    # deploy had written batch.py's random stand-in and said nothing.
    gone = tmp_path / "project" / "config.json"
    doc = json.loads(PLAN.read_text())
    doc["workload"] = {
        "name": "summaries",
        "task": "infer",
        "model": {"hf_config": str(gone)},
        "inputs": {"batch_size": 8, "seq_len": 512, "output_tokens": 64},
        "data": {"samples": 1000},
    }
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    code, _out, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", "k8s", "-o", str(tmp_path / "o"))
    assert code == 0, err
    (line,) = [w for w in err.splitlines() if w.startswith("warning:")]
    assert f"hf_config {gone} is not here" in line and "batch.py's randomly initialised stand-in" in line
    assert (tmp_path / "o" / "batch.py").is_file()


def test_a_service_short_of_the_gpus_its_load_needs_is_refused_at_the_default_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: a 30 req/s service deployed from its workload file got one replica the autoscaler took to
    # two, written without a word; `gpuplan estimate` said the same load needs several GPUs
    served = tmp_path / "svc.yaml"
    served.write_text(
        "name: s\ntask: infer\nmodel: {preset: gpt2}\ninputs: {batch_size: 1, seq_len: 128}\n"
        "serving: {requests_per_s: 10, prompt_tokens: 600, output_tokens: 300, engine: vllm}\n",
        encoding="utf-8",
    )
    args = ["deploy", str(served), "-t", "k8s", "--gpu", "T4"]
    code, _, err = _run(monkeypatch, capsys, *args, "-o", str(tmp_path / "a"))
    assert code == 1 and err.count("\n") == 1, err
    assert "error: the service's load, 10 req/s, needs " in err and "x T4 by gpuplan's estimate" in err
    needed = int(err.split("give --count ")[1].split()[0])
    assert needed > 1 and not (tmp_path / "a").exists()
    # was: "(N req/s a replica at the utilisation plans size for)", where N was the full-load figure
    import re

    said = re.search(
        r"\(a replica carries ([0-9.]+) req/s at full load, ([0-9.]+) at the 80 % plans size", err
    )
    assert said is not None, err
    assert float(said[2]) == pytest.approx(float(said[1]) * 0.8, rel=1e-2)  # both to 3 figures
    # a count given is the team's choice: written, and warned of where it is short
    code, _, err = _run(monkeypatch, capsys, *args, "--count", "1", "-o", str(tmp_path / "b"))
    assert code == 0 and f"warning: --count 1 is short of the {needed} x T4" in err, err
    assert "req/s at full load, " in err and " at the 80 % plans size fleets for" in err
    code, _, err = _run(monkeypatch, capsys, *args, "--count", str(needed), "-o", str(tmp_path / "c"))
    assert code == 0 and "is short of" not in err, err


def test_deploy_short_of_a_latency_targets_gpus_names_the_target_and_its_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "needs 20 x A100 … (a replica carries 2.78 req/s at full load, 2.23 at the 80 % plans size
    # fleets for)" for 40 req/s and a 50 ms time per output token: 40 / 2.23 is 18, the 20 unexplained
    served = tmp_path / "long.yaml"
    served.write_text(
        "name: s\ntask: infer\nmodel: {preset: gpt2}\ninputs: {batch_size: 1, seq_len: 128}\n"
        "serving: {requests_per_s: 10, prompt_tokens: 600, output_tokens: 300, engine: vllm,\n"
        "  tpot_p95_ms: 12}\n",
        encoding="utf-8",
    )
    args = ["deploy", str(served), "-t", "k8s", "--gpu", "T4", "--count", "1", "-o", str(tmp_path / "a")]
    code, _, err = _run(monkeypatch, capsys, *args)
    assert code == 0, err
    said = " ".join(err.split())
    # 10 req/s over replicas of 6.48 at 80 %: 2; the 12 ms step needs 3 (14.0 ms at 2: the step at the
    # 21 sequences each runs; 15 ms needed 3 while the step was taken on the line from 1 sequence to
    # the full cache, 17.5 ms at 2), each at 10 / 3 / 6.48 = 51 %
    found = re.search(
        r"short of the 3 x T4 the service's load, 10 req/s, needs by gpuplan's estimate \(for its "
        r"serving\.tpot_p95_ms target of 12 ms per output token: 3 replicas, each at ([0-9]+) % of the "
        r"([0-9.]+) req/s it carries at full load, where 2 x T4 would carry the load at the 80 %",
        said,
    )
    assert found is not None, said
    assert int(found[1]) == round(10 / 3 / float(found[2]) * 100)


def test_k8s_pods_request_their_share_of_the_catalogs_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    code, _, err = _run(monkeypatch, capsys, "deploy", str(PLAN), "-t", "k8s", "-o", str(out))
    assert code == 0, err
    job = yaml.safe_load((out / "k8s" / "job.yaml").read_text())
    resources = job["spec"]["template"]["spec"]["containers"][0]["resources"]
    # the catalog's p4d.24xlarge: 96 vCPUs and 1,152 GiB for its 8 GPUs, all the pod's
    # (96 - 1.06 - 1 = 93.94; 1152 x 0.925 - 29.8 - 0.1 - 2 = 1033.7: the kubelet's capacity, see
    # tests/deploy/test_deploy_k8s_host.py)
    assert resources["requests"] == {"cpu": "93", "memory": "1033Gi"}
    assert resources["limits"] == {"nvidia.com/gpu": 8, "memory": "1033Gi"}


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["-t", "k8s", "--model-cache-pvc", "Llama_Weights"],
            "error: --model-cache-pvc 'Llama_Weights' is not a Kubernetes object name (lower-case letters, "
            "digits, '-' and '.', beginning and ending with a letter or digit, at most 253 characters); "
            "did you mean 'llama-weights'?\n",
        ),
        (
            ["-t", "docker", "--model-cache-pvc", "llama-weights"],
            "error: --model-cache-pvc: only for --target k8s\n",
        ),
    ],
)
def test_a_bad_model_cache_pvc_is_one_line_and_writes_nothing(
    args: list[str],
    line: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "o"
    code, _, err = _run(monkeypatch, capsys, "deploy", str(PLAN), "-o", str(out), *args)
    assert (code, err) == (1, line)
    assert not out.exists()


def test_a_model_cache_pvc_without_an_engine_is_said_to_have_no_effect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    code, _, err = _run(
        monkeypatch, capsys, "deploy", str(PLAN), "-t", "k8s", "-o", str(out), "--model-cache-pvc", "w"
    )
    assert code == 0, err
    assert "warning: --model-cache-pvc has no effect" in err
    assert "claimName: w\n" not in (out / "k8s" / "job.yaml").read_text()


def test_deploying_a_workload_of_your_own_code_never_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `deploy code.yaml --dry-run` imported the module to check its fit (a file written, a command run,
    # a socket opened at import), where SECURITY.md says deploy never imports it.
    marker = tmp_path / "ran"
    (tmp_path / "mymodel.py").write_text(
        "import pathlib\n"
        f"p = pathlib.Path({str(marker)!r})\n"
        "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n"
        "import torch\n"
        "def build():\n"
        "    return torch.nn.Linear(8, 8), (lambda b, **k: torch.randn(b, 8))\n"
    )
    wl = tmp_path / "code.yaml"
    wl.write_text(
        "name: own\ntask: train\nmodel: {python: 'mymodel:build'}\ninputs: {batch_size: 4, seq_len: 8}\n"
        "precision: fp32\ndata: {samples: 100, epochs: 1}\n"
    )
    db = str(tmp_path / "c.sqlite")
    monkeypatch.chdir(tmp_path)
    args = ["--db", db, "deploy", str(wl), "--gpu", "T4", "--target", "torchrun"]
    code, _out, err = _run(monkeypatch, capsys, *args, "--out", str(tmp_path / "a"), "--dry-run")
    assert code != 0 and "deploy does not run your model's code" in err and "gpuplan estimate" in err, err
    assert not marker.exists()
    code, _out, err = _run(monkeypatch, capsys, *args, "--out", str(tmp_path / "b"), "--force-fit")
    assert code == 0 and "written anyway (--force-fit)" in err and not marker.exists(), err
    # `gpuplan estimate` runs it (that is its job) and keeps the trace that deploy then checks on
    code, _out, err = _run(monkeypatch, capsys, "--db", db, "estimate", str(wl), "--gpu", "T4")
    assert code == 0 and marker.exists(), err
    ran = marker.read_text()
    code, _out, err = _run(monkeypatch, capsys, *args, "--out", str(tmp_path / "c"))
    assert code == 0, err
    assert marker.read_text() == ran  # checked on the cached trace, not imported again
