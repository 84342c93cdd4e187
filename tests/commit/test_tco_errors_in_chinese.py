"""``gpuplan tco`` error lines (the usage file, demands, the optimiser) read in Chinese under zh and
stay the English they always were under en."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.commit import Demand, PricedOffer, TcoProblem, load_usage, optimise
from gpuplan.errors import GpuplanError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from i18n.english_left import english_left


def _usage(**kw: object) -> dict[str, object]:
    data: dict[str, object] = {
        "horizon_months": 12,
        "demands": [{"name": "s", "gpu": "L4", "gpus": 2, "hours_per_month": 730}],
    }
    return data | kw


def _demand(**kw: object) -> dict[str, object]:
    return _usage(demands=[{"name": "s", **kw}])


def _raised(call: Callable[[], object]) -> GpuplanError:
    with pytest.raises(GpuplanError) as info:
        call()
    return info.value


#: (usage data, its English line as it always was, its Chinese line)
USAGE_CASES: list[tuple[dict[str, object], str, str]] = [
    (
        _usage(constraints={"pricing": ["on_demnd"]}),
        "constraints.pricing: unknown pricing model 'on_demnd'; did you mean 'on_demand'?",
        "constraints.pricing: 计费方式 'on_demnd' 无法识别；您是不是指 'on_demand'？",
    ),
    (
        _usage(constraints={"pricing": []}),
        "constraints.pricing: list at least one pricing model, e.g. [on_demand, reserved_1y]",
        "constraints.pricing: 请至少列出一种计费方式，如 [on_demand, reserved_1y]",
    ),
    (
        _usage(currency="EUR"),
        "currency: unknown currency 'EUR'; use one of: usd, cny",
        "currency: 货币 'EUR' 无法识别；请使用以下之一：usd、cny",
    ),
    (
        _usage(past_horizon="never"),
        "past_horizon: unknown past_horizon rule 'never'; use one of: full, remaining_value",
        "past_horizon: past_horizon 规则 'never' 无法识别；请使用以下之一：full、remaining_value",
    ),
    (
        _usage(start="Jan 2027"),
        "start: write the first month as YYYY-MM, e.g. 2027-01 (got 'Jan 2027')",
        "start: 请把第一个月写成 YYYY-MM，如 2027-01（实际为 'Jan 2027'）",
    ),
    (
        _usage(demands=[]),
        "demands: list at least one demand (a workload, or gpu + gpus + hours_per_month)",
        "demands: 请至少列出一个需求（一个 workload，或 gpu + gpus + hours_per_month）",
    ),
    (
        _demand(workload="w.yaml", runs_per_month=2, gpu="L4"),
        "demands[0]: give either workload (+ runs_per_month) or gpu/gpus/hours, not both (gpu)",
        "demands[0]: 请给出 workload（+ runs_per_month）或 gpu/gpus/hours 之一，不要同时给出（gpu）",
    ),
    (
        _demand(workload="w.yaml"),
        # a service's run is its month: the refusal says so (only an example file had shown it)
        "demands[0]: a workload demand needs one of runs_per_month (e.g. 4; 1 for a service, whose run "
        "is its month) or runs_by_month",
        "demands[0]: 工作负载需求需要 runs_per_month（如 4；服务为 1，它的一次运行即整个月）"
        "或 runs_by_month 二者之一",
    ),
    (
        _demand(gpu="L4", gpus=1, runs_per_month=3),
        "demands[0]: runs_per_month goes with workload; a direct demand gives gpu, gpus and hours",
        "demands[0]: runs_per_month 只与 workload 一起使用；直接需求请给出 gpu、gpus 和小时数",
    ),
    (  # it had named runs_per_month for runs_by_month
        _demand(gpu="L4", gpus=1, runs_by_month=[3, 4]),
        "demands[0]: runs_by_month goes with workload; a direct demand gives gpu, gpus and hours",
        "demands[0]: runs_by_month 只与 workload 一起使用；直接需求请给出 gpu、gpus 和小时数",
    ),
    (
        _demand(gpu="L4"),
        "demands[0]: give workload + runs_per_month, or gpu, gpus and hours_per_month",
        "demands[0]: 请给出 workload + runs_per_month，或 gpu、gpus 和 hours_per_month",
    ),
    (
        _demand(gpu="L4", gpus=1),
        "demands[0]: give exactly one of hours_per_month or hours_by_month",
        "demands[0]: 请只给出 hours_per_month 或 hours_by_month 中的一个",
    ),
    (
        _demand(gpu="L4", gpus=1, hours_per_month=5, start_month=4, end_month=2),
        "demands[0]: end_month 2 is before start_month 4",
        "demands[0]: end_month 2 早于 start_month 4",
    ),
    (
        _demand(gpu="L4", gpus=1, hours_by_month=[800]),
        "demands[0].hours_by_month: list hours per GPU per month, each between 0 and 730",
        "demands[0].hours_by_month: 请列出每块 GPU 每月的小时数，每项在 0 到 730 之间",
    ),
    (
        _demand(gpu="L4", gpus=4, hours_per_month=730, growth_pct_per_month=1e300),
        "demands[0].growth_pct_per_month: 1e+300 % a month for 11 months multiplies the demand more than "
        "1,000,000-fold; check the figure",
        "demands[0].growth_pct_per_month：每月 1e+300%，持续 11 个月，"
        "需求会增长到 1,000,000 倍以上；请核对这个数字",
    ),
    (
        _demand(workload="w.yaml", runs_by_month=[-1]),
        "demands[0].runs_by_month: list runs per month, each from 0 to 10,000, e.g. [20, 2, 2]",
        "demands[0].runs_by_month: 请列出每月运行次数，每项在 0 到 10,000 之间，如 [20, 2, 2]",
    ),
    (
        _usage(
            demands=[
                {"name": "a", "gpu": "L4", "gpus": 1, "hours_per_month": 5},
                {"name": "a", "gpu": "L4", "gpus": 1, "hours_per_month": 5},
            ]
        ),
        "demands[1].name: 'a' is used twice; give each demand its own name",
        "demands[1].name：'a' 用了两次；请给每个需求起不同的名字",
    ),
    (
        _demand(gpu="L4", gpus=1, hours_per_month=5, start_month=13),
        "demands[0].start_month: 13 is after the horizon (12 months)",
        "demands[0].start_month：13 在规划期（12 个月）之后",
    ),
    (
        # The two values past the horizon were silently never used.
        _usage(
            horizon_months=3,
            demands=[{"name": "s", "gpu": "L4", "gpus": 1, "hours_by_month": [1, 2, 3, 4, 5]}],
        ),
        "demands[0].hours_by_month lists 5 months but the demand runs 3 of the horizon; list at most 3 "
        "(a shorter list repeats)",
        "demands[0].hours_by_month 列出了 5 个月，但该需求在规划期内只持续 3 个月；"
        "最多列出 3 个（较短的列表会循环使用）",
    ),
    (
        _usage(constraints={"providers": ["amzon"]}),
        "constraints.providers: unknown provider 'amzon'; did you mean 'aws'?",
        "constraints.providers: 云厂商 'amzon' 无法识别；您是不是指 'aws'？",
    ),
]


@pytest.mark.parametrize(("data", "english", "chinese"), USAGE_CASES, ids=[c[1][:40] for c in USAGE_CASES])
def test_a_usage_problem_keeps_its_english_and_reads_in_chinese(
    data: dict[str, object], english: str, chinese: str
) -> None:
    e = _raised(lambda: load_usage(data))
    assert str(e) == english
    with use_language("en"):
        assert error_text(e) == english
    with use_language("zh"):
        line = error_text(e)
    assert line == chinese
    assert english_left(line) == []


def test_a_usage_file_that_is_not_a_mapping_is_refused_in_chinese(tmp_path: Path) -> None:
    path = tmp_path / "usage.yaml"
    path.write_text("- 1\n- 2\n")
    e = _raised(lambda: load_usage(path))
    assert str(e) == f"{path}: expected a mapping with horizon_months and demands (got list)"
    with use_language("zh"):
        assert error_text(e) == f"{path}：应为包含 horizon_months 和 demands 的映射（实际为 list）"


def test_a_demand_on_an_unknown_gpu_names_the_demand_and_the_gpu_in_chinese() -> None:
    from gpuplan.commit.adapters import demands_from_usage

    usage = load_usage(_demand(gpu="H900", gpus=1, hours_per_month=5))
    e = _raised(lambda: demands_from_usage(usage, None))  # type: ignore[arg-type]
    assert str(e).startswith("demand 's': unknown GPU 'H900'")
    with use_language("zh"):
        line = error_text(e)
    assert line.startswith("需求 's'：GPU 'H900' 无法识别")
    assert english_left(line) == []


def test_demand_that_nothing_can_serve_is_infeasible_in_chinese() -> None:
    offer = PricedOffer(
        provider="p",
        region="r",
        instance_type="i1",
        gpu="G",
        gpus_per_unit=1.0,
        pricing="spot",
        usd_per_unit_hour=0.5,
        term_months=0,
        interruptions_per_hour=0.01,
    )
    problem = TcoProblem(
        horizon_months=2, demands=(Demand(name="d", gpu="G", gpu_hours=(10, 10)),), offers=(offer,)
    )
    e = _raised(lambda: optimise(problem))
    assert str(e) == (
        "the demand for G in month 1 cannot be met: no on-demand price for it within the constraints "
        "(spot serves interruptible demand only); allow on_demand, or more providers or regions"
    )
    with use_language("zh"):
        assert error_text(e) == (
            "第 1 个月对 G 的需求无法满足：在约束范围内没有按量付费价格（抢占式只用于可中断的需求）；"
            "请在 constraints.pricing 中允许按量付费，或放开更多云厂商或地域"
        )


def test_the_solver_note_and_its_status_are_written_in_chinese() -> None:
    offer = PricedOffer(
        provider="p",
        region="r",
        instance_type="i1",
        gpu="G",
        gpus_per_unit=1.0,
        pricing="on_demand",
        usd_per_unit_hour=1.0,
        term_months=0,
    )
    problem = TcoProblem(
        horizon_months=2, demands=(Demand(name="d", gpu="G", gpu_hours=(10, 10)),), offers=(offer,)
    )
    with use_language("en"):
        english = optimise(problem).solver
    assert english.startswith("HiGHS via scipy.optimize.milp: ") and english.endswith("; optimal"), english
    with use_language("zh"):
        solver = optimise(problem).solver
    assert solver.startswith("HiGHS（经 scipy.optimize.milp）：")
    # the solver's status in words ("optimal"), not scipy's "Optimization terminated successfully…"
    assert english_left(solver) == [] and "optimal" not in solver and "Optimization" not in solver
