"""The catalog's listing words in Chinese: clauses joined with the full-width semicolon, the
snapshot's notes on missing prices in the reader's language."""

from __future__ import annotations

from gpuplan.catalog import Store
from gpuplan.catalog.query import OfferQuery, list_offers


def test_why_the_catalog_holds_no_price_joins_its_clauses_in_the_users_language(store: Store) -> None:
    from gpuplan.i18n import use_language

    with use_language("zh"):
        text = list_offers(store, OfferQuery(pricing="reserved_1y", provider="azure")).empty_reason
    assert text is not None
    lead = "`gpuplan catalog refresh` 会读取"
    assert lead + "；azure " in text, text[:200]


def test_the_family_notes_on_missing_prices_read_in_chinese(store: Store) -> None:
    # was: "alibaba gn8is/gn8ia/ebmgn8is: reserved terms, subscriptions: these families carry an
    # NVIDIA L20 (…)" in English inside the Chinese listing
    from gpuplan.i18n import use_language

    with use_language("zh"):
        text = list_offers(store, OfferQuery(gpu="L20", pricing="monthly")).empty_reason
    assert text is not None
    assert "gn8is/gn8ia/ebmgn8is：预留期限、包年包月：这些实例规格族搭载 NVIDIA L20" in text, text
    assert "these families" not in text and "reserved terms" not in text
