"""The words the dashboard's script is given (``window.T``): the catalog's codes it shows (pricing
models, price confidences) in the page's language, so that no page shows a raw key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpuplan.i18n import use_language
from gpuplan.web.pages import _page

APP_JS = Path(__file__).parents[2] / "src" / "gpuplan" / "web" / "static" / "app.js"


def _words(page: str, lang: str) -> dict[str, str]:
    with use_language(lang):
        html = _page(page, lang)
    found = re.search(r"<script>window\.T = (.*?);</script>", html)
    assert found, "the page gives its script no words"
    words: dict[str, str] = json.loads(found.group(1))
    return words


@pytest.mark.parametrize(
    ("lang", "on_demand", "secondary"), [("en", "on demand", "secondary"), ("zh", "按量付费", "转引来源")]
)
def test_the_simulate_page_gets_the_pricing_and_confidence_in_words(
    lang: str, on_demand: str, secondary: str
) -> None:
    words = _words("simulate", lang)
    # the basis line names the pricing model in words (not the key on_demand) …
    assert words["pricing:on_demand"] == on_demand
    # … and the confidence of the price it rests on
    assert words["confidence:secondary"] == secondary


def test_the_script_shows_pricing_and_confidence_through_the_words() -> None:
    script = APP_JS.read_text(encoding="utf-8")
    # every confidence the script shows goes through the words; none is shown as stored
    shown = [m.start() for m in re.finditer(r"\b\w+\.confidence\b", script)]
    assert shown, "the script shows no confidence"
    assert all(script[:at].endswith("confidence(") for at in shown), "a confidence shown as stored"
    assert "${t(k)}: ${b.given" not in script  # the basis line's pricing model, in words


def test_every_word_the_script_shows_is_given_it_in_chinese() -> None:
    # The saved plans' "Runs in the month", "Month's cost" and "Team" columns were in English on the
    # Chinese team page: the words were the form's, which the script is not given.
    script = APP_JS.read_text(encoding="utf-8")
    shown = set(re.findall(r"""\bt\((["'])((?:(?!\1).)+)\1\)""", script))
    assert len(shown) > 50, "the script's words were not found"
    given = _words("team", "zh")
    assert sorted(word for _quote, word in shown if word not in given) == []
