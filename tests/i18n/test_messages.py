"""The message catalog: every message has English and Chinese, placeholders agree, the .mo is fresh."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gpuplan.errors import NotFoundError
from gpuplan.i18n import Language, _, current_language, language_from_locale, ngettext, use_language

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def i18n_tool() -> ModuleType:
    pytest.importorskip("babel", reason="babel (a dev dependency) extracts the messages")
    spec = importlib.util.spec_from_file_location("i18n_tool", REPO / "tools" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["i18n_tool"] = module
    spec.loader.exec_module(module)
    return module


def test_every_message_in_the_code_has_a_chinese_translation(i18n_tool: ModuleType) -> None:
    template = i18n_tool.extract()
    catalog = i18n_tool.read("zh")
    translated = {m.id: m.string for m in catalog if m.id}
    ids = [m.id for m in template if m.id]
    assert len(ids) > 5
    missing = [i for i in ids if not translated.get(i)]
    assert not missing, f"run `python tools/i18n.py update` and translate: {missing[:10]}"


def test_no_chinese_message_is_fuzzy_or_left_over(i18n_tool: ModuleType) -> None:
    template_ids = {m.id for m in i18n_tool.extract() if m.id}
    catalog = i18n_tool.read("zh")
    assert not [m.id for m in catalog if m.id and m.fuzzy]
    assert not [m.id for m in catalog if m.id and m.id not in template_ids]


def _placeholders(text: str | tuple[str, ...]) -> set[str]:
    texts = (text,) if isinstance(text, str) else text
    return {p for t in texts for p in re.findall(r"\{(\w*)[^{}]*\}", t)}


def test_chinese_messages_keep_every_placeholder(i18n_tool: ModuleType) -> None:
    for m in i18n_tool.read("zh"):
        if m.id:
            assert _placeholders(m.string) == _placeholders(m.id), m.id


def test_shipped_mo_file_matches_the_po_source(i18n_tool: ModuleType) -> None:
    catalog = i18n_tool.read("zh")
    mo = i18n_tool.po_path("zh").with_suffix(".mo")
    assert mo.read_bytes() == i18n_tool.mo_bytes(catalog), "run `python tools/i18n.py compile`"


def test_package_data_ships_the_compiled_catalog() -> None:
    text = (REPO / "pyproject.toml").read_text()
    package_data = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    assert '"**/*.mo"' in package_data


def test_chinese_is_read_from_the_compiled_catalog() -> None:
    with use_language("zh"):
        assert _("{n} min").format(n=36) == "36 分钟"
        assert current_language() is Language.ZH
    assert _("{n} min").format(n=36) == "36 min"
    assert current_language() is Language.EN


def test_plural_forms_follow_the_language() -> None:
    assert ngettext("{n} option", "{n} options", 1) == "{n} option"
    assert ngettext("{n} option", "{n} options", 3) == "{n} options"
    with use_language("zh"):
        assert ngettext("{n} option", "{n} options", 3) == "{n} 个方案"


@pytest.mark.parametrize(
    ("value", "language"),
    [("zh", Language.ZH), ("zh_CN.UTF-8", Language.ZH), ("zh-Hans", Language.ZH), ("EN_us", Language.EN)],
)
def test_language_accepts_locale_names(value: str, language: Language) -> None:
    assert Language.cast(value) is language


def test_unknown_language_lists_the_known_ones() -> None:
    with pytest.raises(NotFoundError, match="en, zh"):
        Language.cast("fr")


@pytest.mark.parametrize("value", ["cn", "CN", "chinese", "中文"])
def test_the_countrys_code_or_the_languages_name_points_to_zh_not_to_the_nearest_spelling(value: str) -> None:
    # "cn" is one letter from "en": the nearest spelling had answered a Chinese reader with English.
    with pytest.raises(NotFoundError, match=r"did you mean 'zh'\?") as info:
        Language.cast(value)
    assert info.value.suggestions == ["zh"]


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "zh_CN.UTF-8"}, Language.ZH),
        ({"LANG": "C.UTF-8"}, Language.EN),
        ({}, Language.EN),
        ({"LANGUAGE": "fr:zh_TW", "LANG": "en_US.UTF-8"}, Language.ZH),
        ({"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}, Language.EN),
        ({"LANG": "de_DE.UTF-8"}, Language.EN),
    ],
)
def test_default_language_comes_from_the_locale(environ: dict[str, str], language: Language) -> None:
    assert language_from_locale(environ) is language


def test_no_message_hides_inside_an_f_string() -> None:
    # The extractor does not read f-string expressions: a _("...") there would never be translated.
    import ast

    hidden = []
    for path in (REPO / "src" / "gpuplan").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.JoinedStr):
                continue
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Name)
                    and inner.func.id in ("_", "N_", "ngettext")
                    and inner.args
                    and isinstance(inner.args[0], ast.Constant)
                ):
                    hidden.append(f"{path.relative_to(REPO)}:{inner.lineno}")
    assert not hidden, hidden


def test_every_chinese_message_is_a_valid_format_string(i18n_tool: ModuleType) -> None:
    # A stray or lost brace ("{" for "{n}") would raise at run time, in the middle of a command.
    import string

    broken = []
    for m in i18n_tool.read("zh"):
        if not m.id:
            continue
        for text in (m.string,) if isinstance(m.string, str) else m.string:
            try:
                list(string.Formatter().parse(text))
            except ValueError:
                broken.append(m.id)
    assert not broken, broken


def test_doctor_and_bench_texts_are_catalog_messages_not_english_literals() -> None:
    # A finding's message/fix or a bench skip reason written as a plain or f-string literal would stay
    # English under --lang zh; they must go through _() (or be built from messages that did).
    import ast

    literal = []
    for path in (REPO / "src" / "gpuplan" / "machine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ("Finding", "BenchSkip"):
                continue
            for kw in node.keywords:
                if kw.arg in ("message", "fix", "reason") and (
                    isinstance(kw.value, ast.JoinedStr)
                    or (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str))
                ):
                    literal.append(f"{path.relative_to(REPO)}:{kw.value.lineno}")
    assert not literal, literal


def test_a_message_names_the_options_as_its_reader_calls_them_in_either_language() -> None:
    from gpuplan.i18n import use_option_names

    message = "it keeps up (give --instance); `gpuplan catalog refresh --rates` fetches it"
    names = {"--instance": "instance", "--rates": "rates"}
    assert _(message) == message  # the command line's own flags
    with use_option_names(names):
        said = _(message)
        # an option the reader calls otherwise is named so; a command to run as written keeps its flags
        assert said == "it keeps up (give instance); `gpuplan catalog refresh --rates` fetches it"
        assert ngettext("give --instance", "give --instance twice", 2) == "give instance twice"
        assert _("give --network-gbps") == "give --network-gbps"  # one it does not know keeps its flag
    assert _(message) == message  # only inside the block
    zh = "give --network-gbps or --instance"  # a message of the catalog's (perf.stages.layout)
    with use_language("zh"):
        assert "--instance" in _(zh) and _(zh) != zh
        with use_option_names({"--instance": "instance", "--network-gbps": "network_gbps"}):
            assert "--" not in _(zh) and "network_gbps" in _(zh) and "instance" in _(zh)
