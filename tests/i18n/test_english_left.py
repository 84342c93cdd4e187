"""The english_left test helper: finds untranslated English phrases in a Chinese line, and leaves
alone the data a translated line keeps (names, paths, flags, numbers, identifiers)."""

from __future__ import annotations

from english_left import english_left


def test_an_untranslated_sentence_is_found_among_chinese() -> None:
    line = "错误：no option meets 36 秒 under $3,000.00: every offer is too slow"
    assert english_left(line) == ["no option meets", "every offer is too slow"]


def test_a_fully_chinese_line_with_data_has_no_english_left() -> None:
    line = "云厂商 'amzon' 无法识别；您是不是指 'aws'？请用 --provider aws 或查看 https://x.org/a b"
    assert english_left(line) == []


def test_quoted_names_paths_flags_and_identifiers_do_not_count() -> None:
    line = '工作负载 "my big model" 的 gpu_memory 在 ./runs/a.yaml 中，用 --lang zh -n 2 和 H100-80GB `a b`'
    assert english_left(line) == []


def test_two_words_are_not_a_run_and_punctuation_ends_one() -> None:
    assert english_left("请设置 batch size 后重试") == []
    assert english_left("too slow, too dear") == []
    assert english_left("it is not. found here") == ["it is not"]


def test_words_joined_by_an_apostrophe_or_hyphen_count_as_one() -> None:
    assert english_left("出错：doesn't fit 显存 up-to-date") == []
    assert english_left("出错：it doesn't fit") == ["it doesn't fit"]


def test_allowed_data_is_taken_out_first() -> None:
    line = "云厂商返回错误：connection refused by host；请稍后重试"
    assert english_left(line) == ["connection refused by host"]
    assert english_left(line, allow=["connection refused by host"]) == []


def test_a_parenthesis_starts_a_new_run() -> None:
    assert english_left("see the (docs for it)") == ["docs for it"]
