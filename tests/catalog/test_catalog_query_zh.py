"""The catalog's listing words in Chinese: clauses joined with the full-width semicolon."""

from __future__ import annotations


def test_why_the_catalog_holds_no_price_joins_its_clauses_in_the_users_language() -> None:
    from gpuplan.catalog.query import _empty_reason
    from gpuplan.i18n import use_language

    with use_language("zh"):
        text = _empty_reason(None, "reserved_1y")
    # The catalog's own notes are English data; the clauses are joined in the user's language.
    lead = "`gpuplan catalog refresh` 会读取"
    assert lead + "；aws " in text, text[:200]
