"""Lists of names inside an error line: joined as the English always was, and in Chinese with the
catalog's separators; the names themselves unchanged."""

from __future__ import annotations

from gpuplan.errors import InputError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.i18n.phrases import either, listed


def test_a_list_and_alternatives_read_as_the_old_english_joins() -> None:
    assert str(listed(["csv", "json", "yaml"])) == ", ".join(["csv", "json", "yaml"])
    assert str(either(["'a'", "'b'"])) == "'a' or 'b'"
    assert str(listed([])) == ""
    assert str(listed(["only"])) == "only"


def test_inside_an_error_the_separators_are_chinese_and_the_names_stay() -> None:
    e = InputError.worded(
        "{names} | {alternatives}", names=listed(["a{0}", "b"]), alternatives=either(["x", "y"])
    )
    assert str(e) == "a{0}, b | x or y"
    with use_language("zh"):
        assert error_text(e) == "a{0}，b | x 或 y"


def test_a_long_list_is_flat_not_nested_one_deep_per_name() -> None:
    names = [f"n{i}" for i in range(5000)]
    e = InputError.worded("{names}", names=listed(names))
    with use_language("zh"):
        assert error_text(e) == "，".join(names)
