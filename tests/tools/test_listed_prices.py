"""The Chinese clouds' transcribed list prices (tools/cn_list_prices.csv): every row sourced, dated or
marked undated, the reader refuses incomplete rows, undated figures never ship, and the article
quotes stay low-confidence claims on pseudo-instances."""

from __future__ import annotations

import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "src" / "gpuplan" / "catalog" / "data"
sys.path.insert(0, str(REPO / "tools"))

from listed_prices import LISTED_PRICES_CSV, NO_PUBLIC_PRICE, read_listed_prices  # noqa: E402

_HEADER = (
    "provider,instance_type,region,pricing,amount,currency,unit,as_of,confidence,source_url,source,quote"
)
_GOOD = (
    "tencent,GN7.2XLARGE32,unspecified,monthly,2500,CNY,month,2026-06-15,secondary,"
    "https://buy.cloud.tencent.com/price/cvm/overview,a page,月付¥2500/GPU"
)


def _table(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _write(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "prices.csv"
    path.write_text("\n".join((_HEADER, *rows)) + "\n", encoding="utf-8")
    return path


def test_every_listed_price_carries_source_url_quote_date_and_confidence() -> None:
    rows = read_listed_prices()
    assert rows
    for p in rows:
        assert p.source and p.source_url.startswith("https://") and p.quote, p
        assert p.confidence in ("high", "secondary", "low"), p
        assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", p.as_of) or (
            p.as_of == "undated" and p.confidence == "low"
        )
        assert f"{p.amount:g}" in p.quote


@pytest.mark.parametrize("column", ["source", "source_url", "as_of", "confidence", "quote"])
def test_reader_refuses_a_row_without_source_date_or_confidence(tmp_path: Path, column: str) -> None:
    cells = dict(zip(_HEADER.split(","), _GOOD.split(","), strict=True))
    cells[column] = ""
    path = _write(tmp_path, ",".join(cells.values()))
    with pytest.raises(SystemExit, match=rf"prices.csv:2: .*{column}"):
        read_listed_prices(path)


def test_reader_refuses_a_figure_the_quote_does_not_show(tmp_path: Path) -> None:
    path = _write(tmp_path, _GOOD.replace("monthly,2500", "monthly,2600"))
    with pytest.raises(SystemExit, match="2600 does not appear in the quote"):
        read_listed_prices(path)


def test_reader_refuses_an_undated_row_above_low_confidence(tmp_path: Path) -> None:
    path = _write(tmp_path, _GOOD.replace("2026-06-15,secondary", "undated,secondary"))
    with pytest.raises(SystemExit, match="undated price must have confidence 'low'"):
        read_listed_prices(path)


def test_dated_rows_ship_with_their_url_and_undated_rows_only_in_the_skip_report() -> None:
    prices = {
        (r["provider"], r["instance_type"], r["pricing"], float(r["amount"])): r for r in _table("prices.csv")
    }
    skipped = (DATA / "skipped.csv").read_text(encoding="utf-8")
    for p in read_listed_prices():
        key = (p.provider, p.instance_type, p.pricing, p.amount)
        if p.as_of == "undated":
            assert key not in prices, p
            assert f"{LISTED_PRICES_CSV.name}:{p.line} " in skipped
        else:
            shipped = prices[key]
            assert (shipped["as_of"], shipped["currency"], shipped["confidence"]) == (
                p.as_of,
                p.currency,
                p.confidence,
            )
            assert p.source_url in shipped["source"]


def test_priced_offers_of_the_chinese_clouds_are_pinned() -> None:
    priced: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in _table("prices.csv"):
        if r["confidence"] != "low":
            priced[r["provider"]].add((r["region"], r["instance_type"]))
    counts = {p: len(priced[p]) for p in ("alibaba", "tencent", "huawei", "volcengine")}
    # Alibaba: 187 (region, type) pairs of the SkyPilot-format catalog (27 of them its L20 families),
    # 12 types of 2023-06 in cn-shanghai (the monthly price only, where that catalog has the type);
    # Tencent: 169 pairs of that catalog and 2 monthly list prices.
    assert counts == {"alibaba": 192, "tencent": 169, "huawei": 0, "volcengine": 0}
    assert {("unspecified", "GN7.2XLARGE32"), ("unspecified", "GT4.4XLARGE96")} <= priced["tencent"]


def test_unpriced_chinese_offers_say_why_no_public_price() -> None:
    for r in _table("offers.csv"):
        if r["provider"] in ("huawei", "volcengine") and "guide table" not in r["instance_type"]:
            assert r["price_reason"] == NO_PUBLIC_PRICE[r["provider"]], r["instance_type"]


def test_article_quotes_stay_low_confidence_claims_on_pseudo_instances() -> None:
    for r in _table("prices.csv"):
        from_article = "undated Chinese web article" in r["source"]
        assert from_article == ("guide table)" in r["instance_type"]), r["instance_type"]
        if from_article:
            assert r["confidence"] == "low"


def test_undated_official_figures_stay_out_of_the_prices_and_in_skipped() -> None:
    skipped = {r["what"]: r["reason"] for r in _table("skipped.csv")}
    what = "tools/cn_list_prices.csv:8 tencent GN10Xp.2XLARGE40 monthly 5750 CNY/month (unspecified)"
    assert "the page states no date: not shipped as a price" in skipped[what]
    assert not any(
        r["instance_type"] == "GN10Xp.2XLARGE40" and r["amount"] == "5750" for r in _table("prices.csv")
    )


def test_the_family_notes_agree_with_the_sources_they_cite() -> None:
    # The family notes are catalog messages (one literal each): the spec-only reason of the Huawei
    # and Volcano Engine offers and the SkyPilot-format catalogs' commits are written out in them.
    from snapshot_manifest import SKYPILOT_FORK

    from gpuplan.catalog.family_gaps import FAMILY_GAPS

    cited = 0
    for gap in FAMILY_GAPS:
        if gap.provider in ("huawei", "volcengine"):
            assert gap.reason.startswith(NO_PUBLIC_PRICE[gap.provider]), gap.what
        for fork in SKYPILOT_FORK:
            if fork.upstream in gap.reason:
                assert f"{fork.upstream} @{fork.commit[:7]}" in gap.reason, gap.what
                cited += 1
    assert cited == 4  # Alibaba's three notes and Tencent's
