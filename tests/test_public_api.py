"""The public surface: what ``gpuplan`` exports, that it stays light, and that the API works end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gpuplan

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_all_lists_exactly_the_public_names_and_each_resolves() -> None:
    assert set(gpuplan.__all__) == set(gpuplan._EXPORTS) | {"__version__"}
    for name in gpuplan.__all__:
        assert getattr(gpuplan, name) is not None
        assert name in dir(gpuplan)
    with pytest.raises(AttributeError):
        _ = gpuplan.no_such_name  # type: ignore[attr-defined]


def test_plan_stays_the_function_after_the_subpackage_is_imported() -> None:
    # Loading any module of the subpackage gpuplan.plan must not replace the function.
    import gpuplan.plan.candidates

    assert callable(gpuplan.plan) and gpuplan.plan is gpuplan.api.plan


def test_importing_gpuplan_and_its_cli_imports_no_heavy_library() -> None:
    # pyarrow too: only reading a trace CSV loads it; the service's libraries only `gpuplan serve`.
    heavy = ("torch", "sqlalchemy", "pydantic", "pyarrow", "fastapi", "uvicorn", "starlette", "huey")
    imports = "import sys, gpuplan, gpuplan.cli, gpuplan.simulate"
    code = f"{imports}; print(*[m in sys.modules for m in {heavy!r}])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"] * len(heavy)


@pytest.fixture(scope="module")
def small_workload() -> gpuplan.Workload:
    return gpuplan.Workload.from_dict(
        {
            "name": "gpt2-tiny-batch",
            "task": "train",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 2, "seq_len": 128},
            "precision": "amp-bf16",
            "optimizer": "adamw",
            "data": {"samples": 10_000, "epochs": 1, "size_gb": 0.1, "location": "aws/us-east-1"},
        }
    )


def test_estimate_returns_one_outcome_per_gpu_asked(small_workload: gpuplan.Workload) -> None:
    report = gpuplan.estimate(small_workload, ["A100-SXM4-80GB", "l4", "T4:2"])
    assert [o.gpu for o in report.outcomes] == ["A100-SXM4-80GB", "L4", "T4"]
    a100, l4, t4 = report.outcomes
    assert a100.estimate is not None and l4.estimate is not None
    # 312 dense BF16 TFLOP/s vs 121: the A100 is the faster of the two at the same step.
    assert a100.estimate.step_time_s < l4.estimate.step_time_s
    # The T4 has no BF16 tensor cores: an explicit error row, not a made-up figure.
    assert t4.error is not None and "bf16" in t4.error.lower()
    assert report.profile.params == pytest.approx(124.4e6, rel=0.01)


def test_a_gpu_measured_slow_by_bench_is_estimated_slower(small_workload: gpuplan.Workload) -> None:
    from gpuplan.catalog import BenchResult

    # Batch large enough that the step is GPU-bound, not host-bound.
    big = gpuplan.Workload.from_dict(
        {**small_workload.to_dict(), "inputs": {"batch_size": 8, "seq_len": 1024}}
    )
    base = gpuplan.estimate(big, ["A100-SXM4-80GB"])
    # A power-capped card: bf16 matmuls at 93.6 of 312 TFLOP/s (30 %), below the fitted efficiency.
    slow = BenchResult(
        gpu_id="A100-SXM4-80GB", device_name="NVIDIA A100-SXM4-80GB", host="node-1",
        measured_at="2026-11-30T10:00:00+00:00", metric="matmul_tflops", dtype="bf16",
        value=93.6, unit="TFLOP/s", datasheet_value=312.0, details={},
    )  # fmt: skip
    measured = gpuplan.estimate(big, ["A100-SXM4-80GB"], profile=base.profile, measurements=[slow])
    before, after = base.outcomes[0].estimate, measured.outcomes[0].estimate
    assert before is not None and after is not None
    assert after.step_time_s > before.step_time_s
    assert any("measured on this GPU" in n for n in after.notes)


def test_plan_recommends_a_priced_fitting_option(small_workload: gpuplan.Workload, tmp_path: Path) -> None:
    result = gpuplan.plan(small_workload, db=str(tmp_path / "c.sqlite"), providers=["aws", "gcp"])
    best = result.recommended
    assert best.provider in {"aws", "gcp"}
    assert best.total_cost_usd > 0 and best.job_time_h > 0


def test_without_pytorch_tracing_is_one_line_saying_how_to_install_it(tmp_path: Path) -> None:
    # sys.modules["torch"] = None makes `import torch` fail as on an install without the extra.
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from gpuplan.cli import main\n"
        "sys.argv = ['gpuplan', '--db', sys.argv[1], 'estimate', sys.argv[2], '--gpu', 'L4']\n"
        "main()\n"
    )
    example = EXAMPLES / "bert-large-squad.yaml"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "c.sqlite"), str(example)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "error: tracing a workload needs PyTorch, which is not installed: pip install 'gpuplan[torch]'"
    ]


def test_estimate_takes_a_bare_price_per_gpu_hour_and_says_it_was_given() -> None:
    # offered_gpus carries each price with its offer (catalog.query.on_demand_gpu_hours); a caller's
    # bare number, as the API took it before, is still a price, of no stated place or date.
    workload = gpuplan.load_workload(EXAMPLES / "bert-large-squad.yaml")
    report = gpuplan.estimate(workload, ["T4"], offered_gpus={"A100-SXM4-80GB": 1.5, "L4": None})
    bigger = next(a for a in report.outcomes[0].advice if a.action == "bigger_gpu")
    assert bigger.gpu == "A100-SXM4-80GB" and bigger.gpu_price is not None
    assert bigger.gpu_price.price_usd_per_gpu_hour == 1.5
    assert "$1.50/GPU-h on demand (given by the caller; place and date not stated)" in bigger.summary


def test_estimate_prices_each_gpu_count_once_whatever_the_number_of_gpus_and_levels() -> None:
    # offered_gpus(count) reads the whole catalog; it had been called again for every GPU estimated
    # (dict.setdefault evaluates its default first), some 100 catalog passes for `gpuplan estimate`
    from stand_in_profiles import bert_large_profile

    workload = gpuplan.load_workload(EXAMPLES / "bert-large-squad.yaml")
    profile = bert_large_profile("k")
    asked: list[int] = []

    def offered(count: int) -> dict[str, Any]:
        asked.append(count)
        return {}

    report = gpuplan.estimate(
        workload, profile=profile, offered_gpus=offered, levels=True, level_profile=lambda _w: profile
    )
    assert len(report.outcomes) > 10 and report.levels  # every GPU, and the stack's levels
    assert asked == [1]
    asked.clear()
    gpuplan.estimate(workload, ["T4", "L4:2", "A10G:2"], profile=profile, offered_gpus=offered)
    assert sorted(asked) == [1, 2]
