"""The command line's own refusals (flag combinations, formats, output paths, rates) as the user
reads them: one line on stderr, exit 1, the English byte for byte as before, and in Chinese under
``--lang zh`` with no English sentence left."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuplan.cli import main
from i18n.english_left import english_left

#: (arguments after ``--db DB``, ``{tmp}`` standing for a folder that exists; the English line as
#: printed before the catalog)
CASES = [
    (["catalog", "export", "--format", "xml"], "error: unknown --format 'xml'; use one of: csv, json"),
    (["catalog", "export", "--format", "jsno"], "error: unknown --format 'jsno'; did you mean 'json'?"),
    (
        ["catalog", "import", "{tmp}/x.csv", "--provider", "aws", "--format", "xml"],
        "error: unknown --format 'xml'; use one of: skypilot, gpuplan",
    ),
    (["offers", "--gpu", "a100:x"], "error: --gpu 'a100:x': write NAME:COUNT with a count of 1 or more"),
    (
        ["offers", "--gpu", "a100:\u00b2"],
        "error: --gpu 'a100:\u00b2': write NAME:COUNT with a count of 1 or more",
    ),
    (
        ["offers", "--usd-per-cny", "0.14", "--cny-per-usd", "7.1"],
        "error: give the rate once: --usd-per-cny or --cny-per-usd, not both",
    ),
    (["offers", "--cny-per-usd", "-1"], "error: --cny-per-usd must be a positive number, got -1.0"),
    (["offers", "--sort", "prise"], "error: unknown sort key 'prise'; did you mean 'price'?"),
    (
        ["offers", "--sort", "price-per-gpuu"],
        "error: unknown sort key 'price-per-gpuu'; did you mean 'price-per-gpu' or 'price'?",
    ),
    (
        ["offers", "--sort", "speed"],
        "error: unknown sort key 'speed'; use one of: price, price-per-gpu, gpu-memory",
    ),
    (["plan", "job.yaml", "--out", "report.txt"], "error: --out report.txt: write a .html or .md file"),
    (
        ["plan", "job.yaml", "--budget-usd", "100", "--budget-cny", "700"],
        "error: give the budget once: --budget-usd or --budget-cny, not both",
    ),
    (["tco", "usage.yaml", "--out", "report.txt"], "error: --out report.txt: write a .html file"),
    (
        ["catalog", "refresh", "--save", "{tmp}", "--from", "{tmp}"],
        "error: --save and --from exclude each other: save a live refresh, or replay a saved one",
    ),
]


def _stderr(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> str:
    (tmp_path / "x.csv").touch()
    given = [a.replace("{tmp}", str(tmp_path)) for a in args]
    argv = ["gpuplan", "--db", str(tmp_path / "catalog.db"), *given, "--lang", lang]
    old = sys.argv
    sys.argv = argv
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        sys.argv = old
    assert info.value.code == 1
    return capsys.readouterr().err


@pytest.mark.parametrize(("args", "english"), CASES, ids=[" ".join(c[0][:3]) for c in CASES])
def test_a_refused_command_line_is_the_old_english_and_reads_in_chinese(
    args: list[str], english: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _stderr(args, tmp_path, capsys, "en") == english + "\n"
    chinese = _stderr(args, tmp_path, capsys, "zh")
    assert chinese.startswith("错误：")
    assert english_left(chinese) == []


def test_the_rate_given_twice_reads_in_chinese_word_for_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["offers", "--usd-per-cny", "0.14", "--cny-per-usd", "7.1"]
    assert _stderr(args, tmp_path, capsys, "zh") == (
        "错误：汇率只需给出一次：--usd-per-cny 或 --cny-per-usd，不能同时给出\n"
    )


def test_an_output_file_that_cannot_be_written_reads_in_chinese(tmp_path: Path) -> None:
    from gpuplan.cli._files import write_text_atomic
    from gpuplan.errors import InputError
    from gpuplan.i18n import use_language
    from gpuplan.i18n.error_text import error_text

    with pytest.raises(InputError) as folder:
        write_text_atomic(tmp_path, "x")
    with pytest.raises(InputError) as missing:
        write_text_atomic(tmp_path / "no" / "t.csv", "x", what="trace")
    assert str(folder.value) == f"cannot write report {tmp_path}: it is a folder; give a file name"
    assert str(missing.value) == f"cannot write trace {tmp_path / 'no' / 't.csv'}: its folder is not there"
    with use_language("zh"):
        assert error_text(folder.value) == f"无法写入报告 {tmp_path}：这是一个文件夹；请给出文件名"
        # no C-library English ("No such file or directory") inside the Chinese line
        assert error_text(missing.value) == f"无法写入请求轨迹 {tmp_path / 'no' / 't.csv'}：所在文件夹不存在"
