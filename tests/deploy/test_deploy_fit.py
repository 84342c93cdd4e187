"""`gpuplan deploy` of a workload file runs the estimator's memory verdict before writing anything, and
of a service time-sharing GPUs checks that one replica fits its share."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from gpuplan.cli import main
from gpuplan.documents.plan import workload_digest
from gpuplan.workload import Workload

#: GPT-2 (124 M params) trained in fp32, 16 × 1024 tokens: about 22 GiB by the estimate, which is
#: "no" on a T4 (15 GiB usable), "may not" on an L4 (22.5) and "yes" on an A100 80GB.
_WORKLOAD = (
    "name: big-lm\ntask: train\nmodel: {preset: gpt2}\ninputs: {batch_size: 16, seq_len: 1024}\n"
    "precision: fp32\noptimizer: adamw\nparallelism: ddp\ndata: {samples: 640, epochs: 1}\n"
)


#: What deploy says of memory (its fit checks' lines: "may not fit", "does not fit", "does not fit at
#: the estimate", "does not fit its share", "fits its share", "not checked that the job fits"), by its
#: words: stderr also echoes paths (the copies of the user's files), which may hold "fit" anywhere.
_OF_MEMORY = re.compile(r"\b(?:may not fit|does not fit|fits its share|not checked that the job fits)\b")


def _of_memory(err: str) -> list[str]:
    """The lines of ``err`` that say whether the job fits."""
    return [line for line in err.splitlines() if _OF_MEMORY.search(line)]


def _deploy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    job = tmp_path / "job.yaml"
    job.write_text(_WORKLOAD)
    argv = ["gpuplan", "deploy", str(job), "-t", "torchrun", "-o", str(tmp_path / "o"), *args]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 1), err


def test_a_job_that_does_not_fit_the_gpu_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "T4")
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("error: the job does not fit T4: it needs ")
    assert "] per GPU, 15 GiB usable; it fits with: micro-batch 8" in err and "--force-fit" in err
    assert not (tmp_path / "o").exists()


def test_force_fit_writes_the_files_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "T4", "--force-fit")
    assert code == 0, err
    assert "warning: the job does not fit T4" in err and "written anyway (--force-fit)" in err
    assert (tmp_path / "o" / "launch.sh").is_file()


def test_a_job_that_may_not_fit_is_written_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "L4")
    assert code == 0, err
    assert "warning: the job may not fit L4: it needs " in err and "22.5 GiB usable" in err
    assert (tmp_path / "o" / "launch.sh").is_file()


def test_a_job_whose_estimate_is_above_the_usable_memory_is_written_warned_it_will_most_likely_run_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # At batch 18 the estimate's point (23.2 GiB must fit, 20.8–26.6) is above the L4's 22.5 usable:
    # only the band's low end fits. Not refused (deploy refuses only where even the low end does
    # not fit), but said as plan says it, not as "may not fit".
    job = tmp_path / "job18.yaml"
    job.write_text(_WORKLOAD.replace("batch_size: 16", "batch_size: 18"))
    code, err = _run(
        monkeypatch, capsys, str(job), "--gpu", "L4", "-t", "torchrun", "-o", str(tmp_path / "o")
    )
    assert code == 0, err
    assert err.startswith(
        "warning: L4: the job does not fit at the estimate: needs 23.2 GiB of 22.5 usable (range up to "
        "26.6); it will most likely run out of memory; it fits with: "
    ), err
    assert "may not fit" not in err
    assert (tmp_path / "o" / "launch.sh").is_file()


def test_a_job_that_fits_says_nothing_of_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "A100-SXM4-80GB")
    assert code == 0, err
    assert not _of_memory(err), err


def test_a_pre_train_that_may_not_fit_is_told_the_change_that_keeps_its_method(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # ViT-B/16 pre-trained on ImageNet at batch 256 may not fit an A10: the warning's one change is
    # the micro-batch with accumulation (the same global batch), not LoRA (a pre-train has no base
    # to adapt), whose step was the fastest.
    job = tmp_path / "vit.yaml"
    job.write_text(
        "name: vit\ntask: train\nmodel: {preset: vit-b16}\ninputs: {batch_size: 256, image_size: 224}\n"
        "precision: amp-bf16\noptimizer: adamw\ndata: {samples: 1281167, epochs: 90}\n"
    )
    code, err = _run(
        monkeypatch, capsys, str(job), "--gpu", "A10", "-t", "torchrun", "-o", str(tmp_path / "o")
    )
    assert code == 0, err
    (fit,) = _of_memory(err)
    assert fit.startswith("warning: the job may not fit A10")
    assert "; it fits with: micro-batch 128 × 2 accumulation steps (global batch kept); use --gpu " in fit, (
        err
    )


#: GPT-2 served in fp32 (the default precision) by vLLM: about 0.5 GiB of weights, 0.2 GiB of
#: activations and 1.8 GiB outside PyTorch in each replica's engine, which takes 0.9 of its 1/n of a
#: T4's 15 GiB: four replicas fit it whole (0.9 × 15 / 4 = 3.4 GiB ≥ 3.0 at the high end), five may
#: not (2.7 GiB).
_SERVICE = (
    "name: lm-service\ntask: infer\nmodel: {preset: gpt2}\ninputs: {batch_size: 1, seq_len: 128}\n"
    "serving: {requests_per_s: 10, prompt_tokens: 100, output_tokens: 20%s}\n"
)


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", *args])
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 1), err


def _service_plan(tmp_path: Path, serving: str = "") -> Path:
    """A plan of the GPT-2 service on one T4 (its workload with ``serving`` fields added)."""
    doc = json.loads((Path(__file__).parent / "fixtures" / "plan_spot_aws.json").read_text())
    doc["workload"] = Workload.from_dict(yaml.safe_load(_SERVICE % serving)).to_dict()
    doc["recommended"] |= {
        "instance_type": "g4dn.xlarge",
        "gpu": "T4",
        "gpu_count": 1,
        "gpus_per_node": 1,
        "pricing": "on_demand",
    }
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


def test_a_replica_that_does_not_fit_its_share_of_the_gpu_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Whole, the T4 holds the service many times over: the fit check had not looked at the share.
    job, out = tmp_path / "job.yaml", tmp_path / "o"
    job.write_text(_SERVICE % "")
    for args, setting in (
        (["--share-gpu", "24"], "--share-gpu 24"),
        ([], "serving.share_gpu: 24"),
    ):
        if not args:
            job.write_text(_SERVICE % ", share_gpu: 24")
        code, err = _run(monkeypatch, capsys, str(job), "-t", "k8s", "-o", str(out), "--gpu", "T4", *args)
        # the estimator's verdict, as for the file's own share and as plan and estimate judge it:
        # one replica's engine in its 0.9 of 1/24 of the card (its memory outside PyTorch included)
        assert code == 1 and err.count("\n") == 1, (setting, err)
        assert err.startswith(
            "error: the job does not fit 1/24 of T4: it needs 2.5 GiB [0.9–3.0] per replica, "
            "0.6 GiB, the serving engine's share"
        )
        assert err.endswith(
            "; it fits with: share_gpu 4 instead of 24 (--force-fit writes the files anyway)\n"
        ), err
        assert not out.exists()
    code, err = _run(monkeypatch, capsys, str(job), "-t", "k8s", "-o", str(out), "--gpu", "T4", "--force-fit")
    assert code == 0 and err.count("written anyway (--force-fit)") == 2, err  # the estimate's, the share's
    # Both lines judge the replica by its engine's memory: they name the same largest share that fits
    # (the share check had said 18, by the KV cache alone beside one CUDA context).
    fit, share = err.splitlines()
    assert "; it fits with: share_gpu 4 instead of 24;" in fit, err
    assert share.startswith(
        "warning: one of 24 replicas time-sharing T4 (serving.share_gpu: 24) does not fit"
    )
    assert "its engine takes 0.9 of 1/24 of 15.0 GiB usable (0.6 GiB) and needs 0.9–3.0 GiB" in share, err
    assert "; 4 replicas to a GPU fit; written anyway (--force-fit)" in share, err
    code, err = _run(
        monkeypatch,
        capsys,
        str(job),
        "-t",
        "k8s",
        "-o",
        str(tmp_path / "o2"),
        "--gpu",
        "T4",
        "--share-gpu",
        "4",
    )
    assert code == 0 and not _of_memory(err), err


def test_a_plan_deployed_at_another_share_is_checked_and_says_its_figures_do_not_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, out = _service_plan(tmp_path), tmp_path / "o"
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "k8s", "-o", str(out), "--share-gpu", "24")
    assert (
        code == 1 and "; it fits with: share_gpu 4 instead of 24 (--force-fit" in err and not out.exists()
    ), err
    # It fits four to a T4, but the plan priced whole GPUs: its figures are not these replicas'.
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "k8s", "-o", str(out), "--share-gpu", "4")
    assert code == 0, err
    said = (
        "The plan was priced for whole GPUs, one replica each, and these files run 4 replicas "
        "time-sharing each GPU: its throughput, latency and cost figures do not apply to them (plan "
        "the workload with serving.share_gpu: 4 for figures that do)."
    )
    assert f"note: {said}\n" in err
    readme = (out / "README.md").read_text()
    assert said in readme and "The plan's throughput and latency figures are for" not in readme
    # A plan priced at the share it is deployed at keeps its figures, unchecked again.
    plan = _service_plan(tmp_path, ", share_gpu: 4")
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "k8s", "-o", str(tmp_path / "o2"))
    assert code == 0 and err == "", err
    assert "The plan's throughput and latency figures are for" in (tmp_path / "o2" / "README.md").read_text()
    code, err = _run(
        monkeypatch, capsys, str(plan), "-t", "k8s", "-o", str(tmp_path / "o3"), "--share-gpu", "1"
    )
    assert (
        code == 0
        and "The plan was priced for 4 replicas time-sharing each GPU, and these files run whole GPUs" in err
    )


def test_share_gpu_on_a_replica_of_several_gpus_is_one_line_naming_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    job, out = tmp_path / "job.yaml", tmp_path / "o"
    job.write_text("tensor_parallel: 2\n" + _SERVICE % "")
    args = [
        str(job),
        "-t",
        "k8s",
        "-o",
        str(out),
        "--gpu",
        "A100-SXM4-80GB",
        "--count",
        "2",
        "--share-gpu",
        "2",
    ]
    code, err = _run(monkeypatch, capsys, *args)
    assert code == 1 and not out.exists()
    assert err == (
        "error: --share-gpu 2: replicas time-share one GPU each, but one replica of this workload spans 2 "
        "GPUs (tensor_parallel × pipeline_parallel); leave --share-gpu out\n"
    )


def test_the_share_check_refuses_an_engine_replica_at_the_share_the_estimate_advises() -> None:
    from gpuplan.cli.deploy_checks import check_share_fit
    from gpuplan.errors import DeployError

    workload = Workload.from_dict(yaml.safe_load(_SERVICE % ""))
    # Alone (without check_fit before it), the share check refuses by the engine's memory and
    # names the share the estimate's advice names ("share_gpu 4 instead of 24"), not the 18 that
    # the KV cache alone beside one CUDA context had allowed.
    with pytest.raises(DeployError) as refused:
        check_share_fit(None, workload, "T4", 24, force=False, flag=True, engine=True)
    said = str(refused.value)
    assert said.startswith("one of 24 replicas time-sharing T4 (--share-gpu 24) does not fit its share")
    assert "; 4 replicas to a GPU fit (--force-fit writes the files anyway)" in said, said
    check_share_fit(None, workload, "T4", 4, force=False, flag=True, engine=True)  # fits: nothing said


def _training_plan(tmp_path: Path, workload: dict, **recommended: object) -> Path:
    """The fixture plan carrying ``workload``, on one T4 (g4dn.xlarge) unless ``recommended`` says."""
    doc = json.loads((Path(__file__).parent / "fixtures" / "plan_spot_aws.json").read_text())
    doc["workload"] = workload
    doc["recommended"] |= {
        "instance_type": "g4dn.xlarge",
        "gpu": "T4",
        "gpu_count": 1,
        "gpus_per_node": 1,
        "nodes": 1,
        "pricing": "on_demand",
        **recommended,
    }
    # as `gpuplan plan` records it: the digest of the workload planned for
    doc["workload_sha256"] = workload_digest(doc["workload"])
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


def test_a_plan_whose_batch_was_raised_by_hand_is_checked_as_its_workload_file_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # batch_size raised in the plan's workload wrote BATCH_SIZE = 16 with no word, on a GPU the job
    # does not fit (deploy of the workload file refuses it).
    planned = Workload.from_dict(yaml.safe_load(_WORKLOAD.replace("batch_size: 16", "batch_size: 2")))
    plan, out = _training_plan(tmp_path, planned.to_dict()), tmp_path / "o"
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "skypilot", "-o", str(out))
    assert code == 0, err
    assert not _of_memory(err)  # as planned: it fits, and nothing is said of memory
    edited = json.loads(plan.read_text())
    edited["workload"]["inputs"]["batch_size"] = 16
    plan.write_text(json.dumps(edited))
    out = tmp_path / "o2"
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "skypilot", "-o", str(out))
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("error: the job does not fit T4: it needs") and "(--force-fit writes" in err
    assert not out.exists()
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "skypilot", "-o", str(out), "--force-fit")
    assert code == 0 and "written anyway (--force-fit)" in err
    assert "BATCH_SIZE = 16" in (out / "train.py").read_text()


def test_a_plan_of_your_own_code_is_checked_on_its_cached_trace_and_refused_where_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # deploy never runs the code a plan names: the plan is checked on the trace `gpuplan plan` left
    # in the cache, and one edited by hand (no trace of it) is not taken to fit.
    from gpuplan.cli._profiles import load_profile
    from gpuplan.cli.deploy_checks import plan_workload

    project = tmp_path / "proj"
    shutil.copytree(Path(__file__).parent / "fixtures" / "userproj", project)
    job = Workload.from_dict(yaml.safe_load((project / "job.yaml").read_text()))
    workload = {**job.to_dict(), "model": {"python": "tinyuser.model:build", "project_dir": str(project)}}
    plan = _training_plan(project, workload)
    traced = plan_workload(plan, None, code=True)
    assert not isinstance(traced, str)
    load_profile(traced, None)  # what `gpuplan plan` of it left in the cache
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "docker", "-o", str(tmp_path / "o"))
    assert code == 0, err
    assert not _of_memory(err), err
    edited = json.loads(plan.read_text())
    edited["workload"]["inputs"]["batch_size"] = 64
    plan.write_text(json.dumps(edited))
    out = tmp_path / "o2"
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "docker", "-o", str(out))
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("error: not checked that the job fits T4: the plan's model is code")
    assert "no trace of the workload as the plan now holds it is cached here" in err
    assert "(--force-fit writes the files anyway)" in err and not out.exists()


def test_a_plan_naming_an_instance_type_the_catalog_does_not_list_is_refused_with_did_you_mean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # p5en.96xlarge (there is a p5en.48xlarge) was written into task.yaml, its EFA settings dropped.
    planned = Workload.from_dict(yaml.safe_load(_WORKLOAD.replace("batch_size: 16", "batch_size: 2")))
    plan = _training_plan(
        tmp_path,
        planned.to_dict(),
        instance_type="p5en.96xlarge",
        gpu="H200-SXM",
        gpu_count=16,
        gpus_per_node=8,
        nodes=2,
    )
    out = tmp_path / "o"
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "skypilot", "-o", str(out))
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("error: unknown instance type 'p5en.96xlarge'; did you mean 'p5en.48xlarge'")
    assert "the plan names it on aws, and the catalog lists no such instance" in err
    assert not out.exists()


def test_an_unedited_plan_keeps_its_own_verdict_and_an_old_plan_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A plan made with --profile (a saved or measured profile) judged the job to fit: deploy does not
    # overrule it with a fresh trace of its own while the workload is the one planned for. 16 x 1024
    # tokens of GPT-2 in fp32 on a T4 is "does not fit" by the trace.
    job = Workload.from_dict(yaml.safe_load(_WORKLOAD))
    plan = _training_plan(tmp_path, job.to_dict())
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "torchrun", "-o", str(tmp_path / "o"))
    assert code == 0, err
    assert not _of_memory(err), err
    # A plan written before plans recorded the digest cannot say it is unedited: checked again.
    doc = json.loads(plan.read_text())
    del doc["workload_sha256"]
    plan.write_text(json.dumps(doc))
    code, err = _run(monkeypatch, capsys, str(plan), "-t", "torchrun", "-o", str(tmp_path / "o2"))
    assert code == 1 and err.startswith("error: the job does not fit T4"), err


@pytest.mark.parametrize("target", ["torchrun", "skypilot", "docker", "k8s"])
def test_a_plan_with_a_malformed_data_location_is_refused_for_every_target_naming_the_field(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    # torchrun had refused it as a fit it could not check; skypilot, docker and k8s had written files
    doc = json.loads((Path(__file__).parent / "fixtures" / "plan_spot_aws.json").read_text())
    doc["workload"]["data"]["location"] = "aws/us-east-1$(id)"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    code, err = _run(monkeypatch, capsys, str(plan), "--target", target, "--out", str(tmp_path / "o"))
    assert code != 0
    assert err.startswith(f"error: {plan}: workload is invalid: data.location: expected provider/region"), err
    assert "not checked that the job fits" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_every_warning_is_said_in_one_place_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "o" / "keep.txt"
    kept.parent.mkdir()
    kept.write_text("x")
    # The fit check's warning is said at the check; what the files would hide (train.py's stand-in)
    # is said once they are written, before "wrote N files": a write refused (a folder that is not
    # empty) is the fit warning and the error's one line, nothing said of files never written.
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "T4", "--force-fit")
    assert code != 0 and list(kept.parent.iterdir()) == [kept]
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("warning: the job does not fit T4")
    assert lines[1].startswith("error: ") and "is not empty" in lines[1]
    # written: the fit warning is said all the same (before "wrote N files", on standard output)
    kept.unlink()
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "T4", "--force-fit")
    assert code == 0, err
    assert any(x.startswith("warning: the job does not fit T4") for x in err.splitlines()), err
