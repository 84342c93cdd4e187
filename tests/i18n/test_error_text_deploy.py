"""Error lines of deploy/ in Chinese: raised through the real code, English unchanged.

Each case raises a real error the way `gpuplan deploy` does (a plan file that may come from someone
else, a workload, an output folder, a target); the test pins a piece of the English line as it was
before the messages went through the catalog, and that under ``zh`` the line is Chinese with no run
of English words left outside the data it quotes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from error_lines import check_line, raised, write, zh

from gpuplan.deploy import GeneratedFile, GenerateOptions, LaunchSpec, generate, get_generator, write_files
from gpuplan.deploy.images import base_image_for
from gpuplan.hardware import get_gpu

FIXTURES = Path(__file__).parent.parent / "deploy" / "fixtures"
SPOT_PLAN = FIXTURES / "plan_spot_aws.json"


def _plan(**recommended: Any) -> dict[str, Any]:
    doc = json.loads(SPOT_PLAN.read_text())
    doc["recommended"].update(recommended)
    return doc


def _serve() -> LaunchSpec:
    return LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="A100-SXM4-40GB")


def _non_empty(tmp_path: Path) -> Path:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    return tmp_path / "out"


def _folder_where_file_goes(tmp_path: Path) -> None:
    write_files([GeneratedFile(path="a/b", content="x")], tmp_path / "o")
    write_files([GeneratedFile(path="a", content="x")], tmp_path / "o", force=True)


#: (what is wrong, how to raise it in a tmp folder, a piece of the English line as it always was).
CASES: list[tuple[str, Callable[[Path], object], str]] = [
    (
        "steps 0",
        lambda t: GenerateOptions(steps=0),
        "--steps must be a whole number from 1 to 10,000,000,000, or full (got 0)",
    ),
    ("bad image", lambda t: GenerateOptions(image="Bad Image"), "is not a container image reference"),
    ("target typo", lambda t: get_generator("k8z"), "(one of torchrun, docker, k8s, skypilot)"),
    (
        "not a plan",
        lambda t: LaunchSpec.from_plan({}, source="p.json"),
        "is not a gpuplan plan file (no schema_version)",
    ),
    (
        "plan version 9",
        lambda t: LaunchSpec.from_plan({"schema_version": 9}, source="p.json"),
        "this gpuplan reads versions 1 to 6",
    ),
    (
        "plan without option",
        lambda t: LaunchSpec.from_plan({"schema_version": 2}, source="p.json"),
        "has no recommended option",
    ),
    (
        "plan name too long",
        lambda t: LaunchSpec.from_plan(_plan(region="x" * 200), source="p.json"),
        "is 200 characters long (at most 128)",
    ),
    (
        "plan option malformed",
        lambda t: LaunchSpec.from_plan(_plan(gpu_count="many"), source="p.json"),
        "recommended option is malformed",
    ),
    (
        "plan region unsafe",
        lambda t: LaunchSpec.from_plan(_plan(region="us east;rm"), source="p.json"),
        "is not valid (expected something like 'us-east-1')",
    ),
    (
        "plan instance type unsafe",
        lambda t: LaunchSpec.from_plan(_plan(instance_type="$(touch x)"), source="p.json"),
        "is not valid (expected something like 'p4d.24xlarge')",
    ),
    (
        "plan GPU unknown",
        lambda t: LaunchSpec.from_plan(_plan(gpu="A9000"), source="p.json"),
        "p.json: unknown GPU 'A9000'",
    ),
    (
        "plan provider unknown",
        lambda t: LaunchSpec.from_plan(_plan(provider="awz"), source="p.json"),
        "cannot build a launch from it: provider: unknown provider 'awz'",
    ),
    (
        "plan workload invalid",
        lambda t: LaunchSpec.from_plan(
            {**_plan(), "workload": {"name": "x", "inputs": {"batch_size": 0}}}, source="p.json"
        ),
        "workload is invalid",
    ),
    (
        "plan not JSON",
        lambda t: LaunchSpec.from_plan_json(write(t, "bad.json", "[1, 2")),
        "write it with `gpuplan plan --json`",
    ),
    (
        "workload a list",
        lambda t: LaunchSpec.from_workload(write(t, "w.yaml", "- a\n")),
        "expected a mapping at the top level",
    ),
    (
        "sharing a training job",
        lambda t: LaunchSpec.from_plan_json(SPOT_PLAN).with_serving(share_gpu=2),
        "only for serving workloads",
    ),
    (
        "share_gpu 100",
        lambda t: _serve().with_serving(share_gpu=100),
        "serving: share_gpu: Input should be less than or equal to 48",
    ),
    (
        "MIG and sharing",
        lambda t: _serve().with_serving(mig_profile="1g.10gb"),
        "choose either mig_profile or share_gpu",
    ),
    (
        "MIG profile shape",
        lambda t: _serve().with_serving(share_gpu=1, mig_profile="big"),
        "NVIDIA's profiles are <compute slices, 1 to 7>g.<memory>gb",
    ),
    (
        "MIG profile of 9 slices",  # of the form 1g.10gb, said the line: it is, but no GPU has 9
        lambda t: _serve().with_serving(share_gpu=1, mig_profile="9g.99gb"),
        "MIG profile '9g.99gb': NVIDIA's profiles are <compute slices, 1 to 7>g.<memory>gb, as 1g.10gb",
    ),
    (
        "MIG on a T4",
        lambda t: LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="T4").with_serving(
            share_gpu=1, mig_profile="1g.10gb"
        ),
        "T4 does not support MIG",
    ),
    (
        "AMD GPU image",
        lambda t: base_image_for(get_gpu("MI300X")),
        "is not an NVIDIA GPU: no CUDA image fits",
    ),
    (
        "SkyPilot without GPU",
        lambda t: generate(LaunchSpec.from_workload(FIXTURES / "train.yaml"), "skypilot"),
        "SkyPilot needs a GPU type",
    ),
    (
        "SkyPilot serving",
        lambda t: generate(_serve(), "skypilot"),
        "the skypilot target writes training tasks",
    ),
    (
        "SkyPilot cloud",
        lambda t: generate(
            LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="A100-SXM4-40GB", provider="alibaba"),
            "skypilot",
        ),
        "SkyPilot has no alibaba cloud",
    ),
    ("torchrun serving", lambda t: generate(_serve(), "torchrun"), "torchrun launches training"),
    (
        "out not empty",
        lambda t: write_files([GeneratedFile(path="a", content="x")], _non_empty(t)),
        "exists and is not empty",
    ),
    (
        "out a file",
        lambda t: write_files([GeneratedFile(path="a", content="x")], write(t, "f", "x")),
        "is a file, not a directory",
    ),
    (
        "path out of --out",
        lambda t: write_files([GeneratedFile(path="../a", content="x")], t / "o"),
        "refusing to write outside",
    ),
    ("folder where a file goes", _folder_where_file_goes, "is a folder where the file must go"),
]


@pytest.mark.parametrize(("raise_it", "english"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_error_keeps_its_english_and_reads_in_chinese(
    tmp_path: Path, raise_it: Callable[[Path], object], english: str
) -> None:
    check_line(raised(lambda: raise_it(tmp_path)), english)


# ---- whole lines, both languages, for the shapes that are built from several parts ----------------


def test_a_full_output_folder_is_refused_in_both_languages(tmp_path: Path) -> None:
    out = _non_empty(tmp_path)
    error = raised(lambda: write_files([GeneratedFile(path="a", content="x")], out))
    assert str(error) == (
        f"output directory {out} exists and is not empty: choose another --out, or pass --force to overwrite"
    )
    assert zh(error) == f"输出目录 {out} 已存在且不为空：请换一个 --out，或传入 --force 覆盖"


def test_a_plan_of_another_version_says_which_ones_deploy_reads() -> None:
    error = raised(lambda: LaunchSpec.from_plan({"schema_version": 9}, source="p.json"))
    assert str(error) == (
        "plan file has schema version 9; this gpuplan reads versions 1 to 6: re-run `gpuplan plan`"
    )
    assert zh(error) == (
        "方案文件的 schema 版本为 9；此版本的 gpuplan 只能读取 1 至 6 版：请重新运行 `gpuplan plan`"
    )


def test_a_validator_reason_inside_pydantic_is_translated_with_its_field() -> None:
    error = raised(lambda: LaunchSpec.from_plan(_plan(region="us east;rm"), source="p.json"))
    assert str(error) == (
        "p.json: cannot build a launch from it: region 'us east;rm' is not valid "
        "(expected something like 'us-east-1')"
    )
    assert zh(error) == "p.json：无法据此生成启动配置：region 'us east;rm' 无效（应形如 'us-east-1'）"


def test_pydantic_s_own_reason_is_translated_with_its_path() -> None:
    error = raised(lambda: _serve().with_serving(share_gpu=100))
    assert str(error) == "serving: share_gpu: Input should be less than or equal to 48"
    assert zh(error) == "serving：share_gpu：应不大于 48"
    workload = {**_plan(), "workload": {"name": "x", "inputs": {"batch_size": 0}}}
    error = raised(lambda: LaunchSpec.from_plan(workload, source="p.json"))
    assert (
        str(error)
        == "p.json: workload is invalid: inputs.batch_size: Input should be greater than or equal to 1"
    )
    assert zh(error) == "p.json：工作负载无效：inputs.batch_size：应不小于 1"


def test_an_unknown_name_inside_a_plan_option_is_translated_inside_the_line() -> None:
    error = raised(lambda: LaunchSpec.from_plan(_plan(provider="awz"), source="p.json"))
    assert str(error) == (
        "p.json: cannot build a launch from it: provider: unknown provider 'awz'; did you mean 'aws'?"
    )  # a provider's did-you-mean names only close codes ('azure' is two letters off)
    assert zh(error) == "p.json：无法据此生成启动配置：provider：云厂商 'awz' 无法识别；您是不是指 'aws'？"


def test_an_error_wrapped_by_deploy_is_translated_inside_it(tmp_path: Path) -> None:
    error = raised(lambda: LaunchSpec.from_plan(_plan(gpu="A9000"), source="p.json"))
    assert str(error).startswith("p.json: unknown GPU 'A9000'")
    assert zh(error).startswith("p.json：GPU 'A9000' 无法识别")
    bad = write(tmp_path, "bad.json", "[1, 2")
    error = raised(lambda: LaunchSpec.from_plan_json(bad))
    assert (
        str(error)
        == f"{bad} is not valid JSON (Expecting ',' delimiter at line 1): write it with `gpuplan plan --json`"
    )
    assert (
        zh(error)
        == f"{bad} 不是有效的 JSON（第 1 行：此处应为分隔符 ','）：请用 `gpuplan plan --json` 生成它"
    )


def test_a_target_hint_with_the_target_list_is_translated_around_it() -> None:
    error = raised(lambda: get_generator("k8z"))
    assert (
        str(error)
        == "unknown deploy target 'k8z'; did you mean 'k8s'? (one of torchrun, docker, k8s, skypilot)"
    )
    assert zh(error) == "部署目标 'k8z' 无法识别；您是不是指 'k8s'？（可选：torchrun、docker、k8s、skypilot）"
