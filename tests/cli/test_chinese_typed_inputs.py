"""What a Chinese input method types, read where it is unambiguous: full-width digits, letters and
commas (``１２ｈ``, ``A100，L4``, ``３００``), the enumeration comma 、, durations in Chinese numerals
(``三天``, ``两周``), the Chinese words for a pricing model, a term and an objective, and a city in
``data.location``."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.commit import load_usage
from gpuplan.plan.constraints import parse_duration_h
from gpuplan.units import split_list, with_digits
from gpuplan.vocab import Commitment, Objective, PricingModel
from gpuplan.workload import parse_duration_hours
from one_line import refused

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WORKLOAD = str(EXAMPLES / "bert-large-squad.yaml")


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("１２ｈ", 12.0),
        ("１．５ｄ", 36.0),
        ("三天", 72.0),
        ("一周", 168.0),
        ("两周", 336.0),
        ("十二小时", 12.0),
        ("三个小时", 3.0),
        ("二十天", 480.0),
        ("1天12小时", 36.0),
    ],
)
def test_a_duration_typed_full_width_or_in_chinese_numerals_is_read(text: str, hours: float) -> None:
    assert parse_duration_hours(text) == hours
    assert parse_duration_h(text) == hours  # --deadline's parser


@pytest.mark.parametrize("text", ["三三天", "十百天", "半天"])
def test_chinese_numerals_that_write_no_number_are_still_refused(text: str) -> None:
    with pytest.raises(ValueError, match="expected a duration"):
        parse_duration_hours(text)


@pytest.mark.parametrize(
    ("text", "digits"),
    [("十", "10"), ("十二", "12"), ("二十", "20"), ("一百零五", "105"), ("两百", "200"), ("三三", "三三")],
)
def test_chinese_numerals_become_digits(text: str, digits: str) -> None:
    assert with_digits(text) == digits


def test_a_full_width_bare_number_as_a_deadline_asks_for_its_unit() -> None:
    with pytest.raises(Exception, match="has no unit: write 12h"):
        parse_duration_h("１２")


@pytest.mark.parametrize("text", ["A100,L4", "A100，L4", "A100、L4", "Ａ１００， L4 ,"])
def test_a_comma_list_takes_the_full_width_and_the_enumeration_comma(text: str) -> None:
    assert split_list(text) == ("A100", "L4")


@pytest.mark.parametrize("word", ["抢占", "抢占实例", "抢占式", "竞价", "竞价实例"])
def test_every_chinese_word_for_spot_is_spot(word: str) -> None:
    assert PricingModel.cast(word) is PricingModel.SPOT


@pytest.mark.parametrize(
    ("term", "commitment"),
    [("一年", "1y"), ("三年", "3y"), ("1年", "1y"), ("３年", "3y"), ("一个月", "monthly")],
)
def test_a_term_in_chinese_numerals_is_the_term(term: str, commitment: str) -> None:
    assert Commitment.cast(term).value == commitment


@pytest.mark.parametrize(("word", "objective"), [("成本", "cost"), ("时间", "time"), ("均衡", "balanced")])
def test_the_objectives_answer_to_their_chinese_names(word: str, objective: str) -> None:
    assert Objective.cast(word).value == objective


def test_a_usage_file_reads_chinese_pricing_words_and_full_width_hours() -> None:
    # It was "计费方式 '按量' 无法识别" while `plan --pricing 按量` took it, and ３００ "not a number".
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "L4", "gpus": 2, "hours_per_month": "３００"}],
            "constraints": {"pricing": ["按量", "抢占", "包年包月"]},
        }
    )
    assert usage.constraints.pricing == ("on_demand", "spot", "monthly")
    assert usage.demands[0].hours_per_month == 300.0


def test_a_full_width_zero_top_is_a_range_error(
    fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was "Input should be a valid integer": ０ read as no number at all.
    line = refused(["--db", str(fresh_catalog), "plan", WORKLOAD, "--top", "０"], capsys, code=2)
    assert "greater than or equal to 1" in line, line


@pytest.mark.parametrize("comma", ["，", "、"])
def test_plan_splits_a_gpu_and_a_region_list_at_a_chinese_comma(
    comma: str, fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The list had been one name, "unknown GPU 'T4，A100-NOPE'": now its second name is the one refused.
    db = ["--db", str(fresh_catalog)]
    line = refused([*db, "plan", WORKLOAD, "--gpus", f"T4{comma}A100-NOPE"], capsys)
    assert "'A100-NOPE'" in line and "T4" not in line.split("'A100-NOPE'")[0], line
    line = refused([*db, "plan", WORKLOAD, "--regions", f"cn-beijing{comma}cn-nowhere"], capsys)
    assert "'cn-nowhere'" in line and "cn-beijing，" not in line, line


@pytest.mark.parametrize(
    ("location", "said"),
    [
        (
            "阿里云/杭州",
            "data.location alibaba/杭州: '杭州' is a city, not a region; write alibaba/cn-hangzhou",
        ),
        ("aws/tokyo", "data.location aws/tokyo: 'tokyo' is a city, not a region; write aws/ap-northeast-1"),
        (
            "aws/杭州",
            "data.location aws/杭州: '杭州' is a city, not a region, and aws has no region there (other "
            "clouds' regions there: alibaba/cn-hangzhou)",
        ),
    ],
)
def test_a_city_in_data_location_is_answered_with_its_regions(
    location: str, said: str, tmp_path: Path, fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was "unknown region '杭州'" with the provider's region list.
    text = (EXAMPLES / "bert-large-squad.yaml").read_text(encoding="utf-8")
    w = tmp_path / "w.yaml"
    w.write_text(text.replace("location: aws/us-east-1", f"location: {location}"), encoding="utf-8")
    assert refused(["--db", str(fresh_catalog), "plan", str(w)], capsys) == f"error: {said}"
