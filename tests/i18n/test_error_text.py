"""Error lines in the user's language: unknown names and unreadable files in Chinese under zh,
English byte for byte as raised."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.bounded import read_text
from gpuplan.catalog import PROVIDERS
from gpuplan.errors import AmbiguousNameError, DeployError, GpuplanError, InputError, NotFoundError, Phrase
from gpuplan.i18n import _, use_language
from gpuplan.i18n.error_text import KIND_WORDS, error_text
from gpuplan.plan.constraints import NO_OFFER_IN_REGION
from gpuplan.vocab import Currency


def _raised(call: Callable[..., object], *args: object) -> GpuplanError:
    with pytest.raises(GpuplanError) as info:
        call(*args)
    return info.value


def _not_found_cases() -> list[NotFoundError]:
    return [
        NotFoundError("sort key", "prise", ["price", "price_per_gpu", "gpu_memory"]),
        NotFoundError("sort key", "cheapest", ["price", "price_per_gpu", "gpu_memory"]),
        NotFoundError("GPU", "zzz", [f"gpu{i}" for i in range(40)]),
        NotFoundError("region", "mars-1", ["us-east-1", "eu-west-1"], hint=NO_OFFER_IN_REGION),
        NotFoundError("preset", "bert", [], hint="known presets: a, b", suggestions=["bert-large", "x"]),
        NotFoundError("", "x", ["a"]),
        AmbiguousNameError("GPU", "a100", ["A100-40GB", "A100-80GB"]),
        _raised(PROVIDERS.cast, "amzon"),
        _raised(Currency.cast, "eur"),
    ]


def test_english_is_the_raised_text_byte_for_byte() -> None:
    for e in _not_found_cases():
        with use_language("en"):
            assert error_text(e) == str(e)


def test_an_unknown_provider_is_named_in_chinese_with_its_suggestion_unchanged() -> None:
    e = _raised(PROVIDERS.cast, "amzon")
    assert str(e) == "unknown provider 'amzon'; did you mean 'aws'?"
    with use_language("zh"):
        assert error_text(e) == "云厂商 'amzon' 无法识别；您是不是指 'aws'？"


def test_an_unknown_currency_lists_the_known_ones_in_chinese() -> None:
    e = _raised(Currency.cast, "doge")
    assert isinstance(e, NotFoundError)
    with use_language("zh"):
        assert error_text(e) == f"货币 'doge' 无法识别；请使用以下之一：{'、'.join(e.known)}"


def test_suggestions_hints_and_ambiguity_read_in_chinese() -> None:
    with use_language("zh"):
        several = error_text(NotFoundError("GPU", "h1", [], suggestions=["H100-SXM", "H100-PCIe"]))
        hinted = error_text(NotFoundError("region", "mars-1", ["us-east-1"], hint=NO_OFFER_IN_REGION))
        ambiguous = error_text(AmbiguousNameError("GPU", "a100", ["A100-40GB", "A100-80GB"]))
    assert several == "GPU 'h1' 无法识别；您是不是指 'H100-SXM' 或 'H100-PCIe'？"
    # had read "（其中没有报价）", "there are no offers in it", of a region it did not know
    assert (
        hinted
        == "地域 'mars-1' 无法识别；请使用以下之一：us-east-1（目录中没有任何报价位于叫这个名称的地域）"
    )
    assert ambiguous == "GPU 'a100' 有歧义；请指明是哪一个：A100-40GB、A100-80GB"


def test_a_kind_or_hint_outside_the_catalog_is_kept_as_written() -> None:
    with use_language("zh"):
        text = error_text(NotFoundError("widget kind", "zz", ["price"], hint="see `gpuplan offers`"))
    assert text == "widget kind 'zz' 无法识别；请使用以下之一：price（see `gpuplan offers`）"


def test_an_error_whose_text_is_not_its_parts_is_shown_as_raised() -> None:
    e = NotFoundError("provider", "amzon", ["aws"])
    e.args = ("something else entirely",)
    with use_language("zh"):
        assert error_text(e) == "something else entirely"
        assert error_text(InputError("batch size must be positive")) == "batch size must be positive"


def test_every_kind_word_has_its_chinese() -> None:
    with use_language("zh"):
        assert [k for k in KIND_WORDS if _(k) == k and k != "GPU"] == []


def test_a_missing_workload_file_is_reported_in_chinese(tmp_path: Path) -> None:
    missing = tmp_path / "job.yaml"
    e = _raised(lambda: read_text(missing, what="workload file", max_bytes=10))
    assert str(e) == f"cannot read workload file {str(missing)!r}: no such file"
    with use_language("en"):
        assert error_text(e) == str(e)
    with use_language("zh"):
        # the most common slip in Chinese too, not the C library's English strerror
        assert error_text(e) == f"无法读取工作负载文件 {str(missing)!r}：文件不存在"


def test_unreadable_files_keep_their_error_class_and_english_text(tmp_path: Path) -> None:
    big = tmp_path / "plan.json"
    big.write_bytes(b"x" * 2000)
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"\xff\xfe")
    too_big = _raised(lambda: read_text(big, what="plan file", max_bytes=1000, error=DeployError))
    folder = _raised(lambda: read_text(tmp_path, what="plan file", max_bytes=10))
    not_utf8 = _raised(lambda: read_text(bad, what="workload file", max_bytes=10))
    assert isinstance(too_big, DeployError)
    assert str(too_big) == f"plan file {str(big)!r} is 2,000 bytes, more than the 1,000 accepted"
    assert str(folder) == f"cannot read plan file {str(tmp_path)!r}: it is a folder; give the path of a file"
    assert str(not_utf8) == f"workload file {str(bad)!r} is not UTF-8 text (byte 0)"
    with use_language("zh"):
        assert error_text(too_big) == f"方案文件 {str(big)!r} 有 2,000 字节，超过了可接受的 1,000 字节"
        assert error_text(folder).startswith("无法读取方案文件 ")
        assert error_text(not_utf8) == f"工作负载文件 {str(bad)!r} 不是 UTF-8 文本（第 0 字节）"


def test_the_command_line_writes_the_error_in_the_chosen_language(tmp_path: Path) -> None:
    def run(lang: str) -> str:
        cmd = [sys.executable, "-c", "from gpuplan.cli import main; main()", "--db",
               str(tmp_path / "db.sqlite"), "offers", "--currency", "eur", "--lang", lang]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 1
        return done.stderr

    # a currency gpuplan does not take is said to be one (it had been "unknown currency 'eur'")
    assert run("en") == (
        "error: EUR is not a currency gpuplan prices in (the catalog has no dated EUR rate): use USD or CNY\n"
    )
    assert (
        run("zh")
        == "错误：EUR 不是 gpuplan 计价所用的货币（目录中没有带日期的 EUR 汇率）：请使用 USD 或 CNY\n"
    )


def test_workload_validation_lines_read_in_chinese_with_the_field_path_kept() -> None:
    from gpuplan.workload.spec import load_workload

    cases = {
        # (workload, English as raised, Chinese)
        "missing": (
            {"model": {"preset": "resnet50"}, "inputs": {"batch_size": -1, "image_size": 0}},
            "name: required field is missing (also inputs.batch_size: must be ≥ 1 (got -1); "
            "inputs.image_size: must be ≥ 1 (got 0))",
            "name: 缺少必填字段（另外：inputs.batch_size: 必须 ≥ 1（实际为 -1）；"
            "inputs.image_size: 必须 ≥ 1（实际为 0））",
        ),
        "bound": (
            {"name": "x", "model": {"preset": "resnet50"}, "inputs": {"batch_size": 0, "image_size": 224}},
            "inputs.batch_size: must be ≥ 1 (got 0)",
            "inputs.batch_size: 必须 ≥ 1（实际为 0）",
        ),
    }
    for workload, english, chinese in cases.values():
        e = _raised(load_workload, workload)
        assert str(e) == english
        with use_language("en"):
            assert error_text(e) == english
        with use_language("zh"):
            assert error_text(e) == chinese


def test_a_second_problem_is_named_not_counted() -> None:
    from gpuplan.workload.spec import load_workload

    e = _raised(
        load_workload, {"model": {"preset": "resnet50"}, "inputs": {"batch_size": -1, "image_size": 224}}
    )
    assert str(e) == "name: required field is missing (also inputs.batch_size: must be ≥ 1 (got -1))"


def test_bad_yaml_and_json_and_a_rate_the_wrong_way_round_read_in_chinese() -> None:
    from gpuplan.bounded import load_json, load_yaml
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.catalog.open_catalog import check_rate

    shipped = ExchangeRate(currency="CNY", usd_per_unit=0.139, as_of="2024-11-25", source="test")
    with pytest.raises(GpuplanError) as yaml_error:
        load_yaml("model: [1\n", source="w.yaml")
    with pytest.raises(GpuplanError) as json_error:
        load_json('{"a": }', source="p.json")
    rate_error = _raised(check_rate, 7.2, shipped)
    assert str(rate_error) == (
        "--usd-per-cny 7.2 looks like the rate the wrong way round (7.2 CNY per USD); "
        "write --cny-per-usd 7.2 (or --usd-per-cny 0.1389)"
    )
    with use_language("zh"):
        assert error_text(yaml_error.value).startswith("w.yaml:2:1：YAML 格式错误：")
        # the JSON reader's own words read in Chinese too
        assert error_text(json_error.value) == "p.json 不是有效的 JSON（第 1 行：此处应为一个值）"
        assert error_text(rate_error) == (
            "--usd-per-cny 7.2 看起来把汇率写反了（这是 1 美元 = 7.2 元）；"
            "请写 --cny-per-usd 7.2（或 --usd-per-cny 0.1389）"
        )


def test_phrases_inside_phrases_and_a_wrapped_error_are_written_in_the_language_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chinese = {
        "{path}: {problem}": "{path}：{problem}",
        "must be {op} {bound}": "必须{op} {bound}",
        "at least": "至少为",
        "cannot use {what}: {why}": "无法使用{what}：{why}",
    }
    monkeypatch.setattr("gpuplan.i18n.error_text._", lambda m: chinese.get(m, m))
    inner = InputError.worded(
        "{path}: {problem}",
        path="a.b",
        problem=Phrase("must be {op} {bound}", op=Phrase("at least"), bound=1),
    )
    outer = DeployError.worded("cannot use {what}: {why}", what="plan.json", why=inner)
    assert str(outer) == "cannot use plan.json: a.b: must be at least 1"
    with use_language("en"):
        assert error_text(outer) == str(outer)
    with use_language("zh"):
        assert error_text(outer) == "无法使用plan.json：a.b：必须至少为 1"


def test_a_validators_phrase_wrapped_by_the_caller_is_translated_too() -> None:
    # "deadline: {why}" is given the parser's ValueError(Phrase): its words stayed English under zh
    from gpuplan.plan import parse_duration_h

    e = _raised(parse_duration_h, "forever")
    assert str(e) == "deadline: expected a duration like 12h, 2d, 90m, 1h30m or 3 weeks (got 'forever')"
    with use_language("en"):
        assert error_text(e) == str(e)
    with use_language("zh"):
        zh = "截止时间（deadline）：应为时长，例如 12h、2d、90m、1h30m 或 3周（实际为 'forever'）"
        assert error_text(e) == zh


_FIELDS = {"--gpu": "gpu", "--slo": "slo", "--spot-price": "spot_price"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_options_are_named_as_the_caller_names_them_where_names_are_given(lang: str) -> None:
    from gpuplan.errors import Option
    from gpuplan.simulate.inputs import fleet_prices

    # in the error's words, and an option given as a field ("{flag} must be …")
    mismatch = InputError.worded(
        "--gpu {gpu} is not the GPU of {instance} ({own}): give one of them",
        gpu="L4",
        instance="x",
        own="A100",
    )
    price = _raised(lambda: fleet_prices([], "L4", spot_usd=-1.0))
    assert isinstance(price.fields["flag"], Option)
    with use_language(lang):
        assert error_text(mismatch, _FIELDS).startswith("gpu L4 ")
        assert error_text(price, _FIELDS).startswith("spot_price ")
        # without names: the command's own line, the flag as the command line takes it
        assert error_text(mismatch).startswith("--gpu L4 ")
        assert error_text(price).startswith("--spot-price ")


def test_a_command_to_run_and_the_errors_data_keep_their_flags() -> None:
    # `gpuplan offers --gpu H100` is a command the reader runs; "--slo" is what they sent
    run = InputError.worded("no price of {gpu}: `gpuplan offers --gpu {gpu}` lists who sells it", gpu="H100")
    sent = InputError.worded("--slo {item!r}: the threshold must be a positive time", item="--slo=0")
    assert error_text(run, _FIELDS) == str(run)
    assert error_text(sent, _FIELDS) == "slo '--slo=0': the threshold must be a positive time"


def test_an_option_right_after_a_chinese_character_is_named_too() -> None:
    from gpuplan.i18n import options_named

    assert options_named("请给出--slo或--slo-ms", _FIELDS) == "请给出slo或--slo-ms"
    assert options_named("x--slo --slow", _FIELDS) == "x--slo --slow"  # inside a word: not an option


def test_a_rate_refused_is_quoted_as_the_user_wrote_it() -> None:
    # was: "--usd-per-cny 0.0333333 is 4.29× away …" for --cny-per-usd 30
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.catalog.open_catalog import CnyPerUsd, check_rate

    shipped = ExchangeRate(currency="CNY", usd_per_unit=0.139, as_of="2024-11-25", source="test")
    assert str(_raised(check_rate, CnyPerUsd(30), shipped)).startswith(
        "--cny-per-usd 30 is 4.17× away from the catalog's rate (7.1942 CNY per USD, 2024-11-25)"
    )
    assert str(_raised(check_rate, CnyPerUsd(0.14), shipped)) == (
        "--cny-per-usd 0.14 looks like the rate the wrong way round (0.14 USD per CNY); "
        "write --usd-per-cny 0.14 (or --cny-per-usd 7.1429)"
    )
    check_rate(CnyPerUsd(7.2), shipped)  # within 3× of the catalog's: kept
