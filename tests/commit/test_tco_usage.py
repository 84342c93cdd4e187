"""The usage description: validation errors in one line, demand arithmetic, month labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.commit import Usage, load_usage
from gpuplan.errors import InputError


def usage(**kw: object) -> Usage:
    data: dict[str, object] = {
        "horizon_months": 12,
        "demands": [{"name": "s", "gpu": "L4", "gpus": 2, "hours_per_month": 730}],
    }
    data.update(kw)
    return load_usage(data)


def test_direct_demand_grows_by_compound_percent_per_month() -> None:
    u = usage(
        demands=[{"name": "s", "gpu": "L4", "gpus": 2, "hours_per_month": 100, "growth_pct_per_month": 10}]
    )
    # 2 GPUs × 100 h × 1.1^m
    assert u.direct_gpu_hours(u.demands[0])[:3] == pytest.approx((200.0, 220.0, 242.0))


def test_hours_by_month_repeats_from_the_demands_own_start_and_stops_at_its_end() -> None:
    u = usage(
        demands=[
            {"name": "t", "gpu": "L4", "gpus": 1, "hours_by_month": [10, 0], "start_month": 3, "end_month": 6}
        ]
    )
    assert u.direct_gpu_hours(u.demands[0]) == (0, 0, 10, 0, 10, 0, 0, 0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("written", "code"), [("RMB", "CNY"), ("yuan", "CNY"), ("人民币", "CNY"), ("usd", "USD")]
)
def test_a_usage_files_currency_is_written_as_the_command_line_takes_it(written: str, code: str) -> None:
    # was: `--currency RMB` worked for plan and tco, `currency: RMB` in a usage file was refused
    assert usage(currency=written).currency == code


def test_month_labels_cross_the_year() -> None:
    u = usage(start="2027-11")
    assert [u.month_label(m) for m in (0, 1, 2, 14)] == ["2027-11", "2027-12", "2028-01", "2029-01"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"horizon_month": 12}, "unknown key 'horizon_month'; did you mean 'horizon_months'"),
        ({"start": "Jan 2027"}, "start: write the first month as YYYY-MM, e.g. 2027-01"),
        ({"currency": "EUR"}, "currency: unknown currency 'EUR'"),
        ({"past_horizon": "prorata"}, "past_horizon: unknown past_horizon rule 'prorata'"),
        ({"constraints": {"pricing": ["reserved-1y", "spto"]}}, "did you mean 'spot'?"),
        (
            {"constraints": {"providers": ["aws", "azrue"]}},
            "constraints.providers: unknown provider 'azrue'; did you mean 'azure'?",
        ),
        (
            {"constraints": {"countries": ["CN", "Chian"]}},
            "constraints.countries: unknown country 'Chian'; did you mean 'china'",
        ),
        ({"demands": []}, "demands: list at least one demand"),
        (
            {"demands": [{"name": "a", "workload": "w.yaml", "gpu": "L4"}]},
            "give either workload (+ runs_per_month) or gpu/gpus/hours, not both (gpu)",
        ),
        (
            {"demands": [{"name": "a", "gpu": "L4", "gpus": 1}]},
            "give exactly one of hours_per_month or hours_by_month",
        ),
        (
            {"demands": [{"name": "a", "gpu": "L4", "gpus": 1, "hours_per_month": 800}]},
            "hours_per_month: must be ≤ 730",
        ),
        (
            {"demands": [{"name": "a", "gpu": "L4", "gpus": 1, "hours_per_month": 1, "start_month": 13}]},
            "demands[0].start_month: 13 is after the horizon (12 months)",
        ),
    ],
)
def test_bad_usage_is_one_line_naming_the_field_and_the_fix(change: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as e:
        usage(**change)
    text = str(e.value)
    assert message in text and "\n" not in text


@pytest.mark.parametrize(
    "demands",
    [
        [{"name": "a", "gpu": "L4", "gpus": 8, "hours_per_month": 0}],
        [{"name": "a", "gpu": "L4", "gpus": 8, "hours_by_month": [0, 0]}],
        [{"name": "w", "workload": "w.yaml", "runs_per_month": 0}],
        [
            {"name": "a", "gpu": "L4", "gpus": 1, "hours_per_month": 0},
            {"name": "w", "workload": "w.yaml", "runs_by_month": [0]},
        ],
    ],
)
def test_a_usage_whose_demands_ask_for_no_hours_is_refused(demands: list[dict[str, object]]) -> None:
    # hours_per_month: 0 (a typo, a placeholder) was costed as a horizon of $0.00 with "no saving"
    # and break-even lines: an answer to a question that asks nothing.
    with pytest.raises(InputError) as e:
        usage(demands=demands)
    text = str(e.value)
    assert "demands: every demand asks for 0 hours in every month" in text and "\n" not in text, text


def test_a_demand_idle_beside_one_that_works_is_taken() -> None:
    u = usage(
        demands=[
            {"name": "off", "gpu": "L4", "gpus": 1, "hours_per_month": 0},
            {"name": "on", "gpu": "L4", "gpus": 1, "hours_by_month": [0, 5]},
        ]
    )
    assert sum(u.direct_gpu_hours(u.demands[1])) == 30.0  # 5 h in 6 of the 12 months


def test_providers_are_the_catalogs_codes() -> None:
    assert usage(constraints={"providers": ["Aliyun", "aws"]}).constraints.providers == ("alibaba", "aws")


def test_countries_are_iso_codes_by_code_or_name() -> None:
    # as the plan's constraint reads them: "China", "中国" and "cn" all mean CN, once
    u = usage(constraints={"countries": ["China", "中国", "cn", "us"]})
    assert u.constraints.countries == ("CN", "US")


def test_yaml_file_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "u.yaml"
    f.write_text("horizon_months: [\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"u\.yaml:\d+:\d+: invalid YAML"):
        load_usage(f)
    with pytest.raises(InputError, match="cannot read usage file"):
        load_usage(tmp_path / "missing.yaml")


def test_a_workload_file_given_to_tco_is_named_as_one(tmp_path: Path) -> None:
    # was: "unknown key 'name' here; it belongs in demands: (demands.name)", which sent the user to
    # edit the workload file rather than to write a usage file naming it
    chat = tmp_path / "chat.yaml"
    chat.write_text("name: chat\ntask: infer\nmodel: {preset: llama-8b}\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_usage(chat)
    said = str(e.value)
    assert "is a workload file (it has model:); tco takes a usage file" in said
    assert "workload: chat.yaml" in said and "belongs in" not in said


def test_a_usage_file_that_is_a_fifo_or_an_alias_bomb_is_refused_not_waited_on(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "u.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_usage(fifo)  # before: blocked forever waiting for a writer
    bomb = tmp_path / "bomb.yaml"
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
    bomb.write_text("\n".join([*lines, "horizon_months: 3", "demands: *i"]) + "\n")
    with pytest.raises(InputError, match="aliases expand"):
        load_usage(bomb)


def test_workload_paths_are_relative_to_the_usage_file(tmp_path: Path) -> None:
    f = tmp_path / "u.yaml"
    f.write_text(
        "horizon_months: 3\ndemands: [{name: w, workload: job.yaml, runs_per_month: 2}]\n", encoding="utf-8"
    )
    assert load_usage(f).base_dir == str(tmp_path.resolve())


def test_tco_is_public_api() -> None:
    import gpuplan

    # the API's: a service's day sized by the load its launch holds a replica at (api.launch_replica_load)
    assert gpuplan.tco is gpuplan.api.tco and gpuplan.load_usage is load_usage
