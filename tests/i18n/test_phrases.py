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
        assert error_text(e) == "a{0}、b | x 或 y"


def test_a_long_list_is_flat_not_nested_one_deep_per_name() -> None:
    names = [f"n{i}" for i in range(5000)]
    e = InputError.worded("{names}", names=listed(names))
    with use_language("zh"):
        assert error_text(e) == "、".join(names)


def test_the_items_of_a_list_are_parted_by_the_enumeration_comma_in_chinese() -> None:
    # One joiner for the items of every list: error lines joined the names of an unknown one with
    # 、 but a list of keys, targets or presets with ，, and the reports' lists with ， or an ASCII
    # ", " ("支持的 GPU：T4, L4"); ， parts clauses, 、 the items of a list.
    from gpuplan.catalog.providers.common import key_list
    from gpuplan.i18n.error_text import phrase_text
    from gpuplan.i18n.phrases import item_list

    assert item_list(["aws", "gcp", "azure"]) == "aws, gcp, azure"
    assert str(key_list(["A", "B", "C"])) == "A, B and C"
    with use_language("zh"):
        assert item_list(["aws", "gcp", "azure"]) == "aws、gcp、azure"
        assert item_list([]) == "" and item_list(["aws"]) == "aws"
        assert phrase_text(key_list(["A", "B", "C"])) == "A、B 和 C"
