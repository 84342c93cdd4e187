"""The shipped snapshot: every provider, several pricing models, no zero price, every price dated
and sourced, and the builder reproduces the committed files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuplan.catalog import PROVIDERS, Store
from gpuplan.catalog.snapshot import COLUMNS, read_table
from gpuplan.hardware import all_gpus

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"


def test_all_seven_providers_have_offers(store: Store) -> None:
    offers = store.offers(include_unpriced=True)
    assert {o.provider for o in offers} == set(PROVIDERS)


def test_at_least_four_pricing_models_and_no_zero_price(store: Store) -> None:
    offers = store.offers()
    assert len({o.pricing for o in offers}) >= 4
    assert all(o.price is not None and o.price > 0 for o in offers)
    assert all(o.price_usd_per_hour is None or o.price_usd_per_hour > 0 for o in offers)


def test_every_price_has_as_of_source_and_confidence(store: Store) -> None:
    for o in store.offers():
        assert o.as_of and o.source and o.confidence in ("high", "secondary", "low"), o


def test_every_gpu_is_a_hardware_id(store: Store) -> None:
    ids = {g.id for g in all_gpus()}
    assert {o.gpu for o in store.offers(include_unpriced=True)} <= ids


def test_spot_is_below_on_demand_where_both_exist(store: Store) -> None:
    offers = store.offers()
    od = {(o.provider, o.region, o.instance_type): o.price for o in offers if o.pricing == "on_demand"}
    spots = [o for o in offers if o.pricing == "spot"]
    assert spots
    for s in spots:
        ref = od.get((s.provider, s.region, s.instance_type))
        if ref is not None:
            assert s.price is not None and s.price < ref


def test_article_prices_are_low_confidence_and_skip_the_1y_reserved_column(store: Store) -> None:
    article = [o for o in store.offers() if "article" in o.instance_type]
    assert article and all(o.confidence == "low" for o in article)
    assert {o.provider for o in article} == {"aws", "azure", "alibaba", "tencent", "huawei", "volcengine"}
    assert not any(o.pricing == "reserved_1y" for o in article)
    r3 = [o for o in article if o.pricing == "reserved_3y"]
    # seeds/000: AWS 3-year reserved $1,200/month -> 1200 / 730 = 1.6438 USD/h
    aws = next(o for o in r3 if o.provider == "aws")
    assert (aws.price, aws.unit) == (1200.0, "month")
    assert aws.price_usd_per_hour == pytest.approx(1200 / 730)
    assert aws.term is not None and aws.term["years"] == 3


def test_known_prices_carried_from_the_shared_data(store: Store) -> None:
    [p5] = store.offers(provider="aws", region="us-east-1", gpu="H100-SXM", pricing="on_demand", count=8)
    assert (p5.instance_type, p5.price, p5.as_of) == ("p5.48xlarge", 55.04, "2026-11-09")
    nv6 = [o for o in store.offers(provider="azure") if o.instance_type == "Standard_NV6ads_A10_v5"]
    assert nv6 and nv6[0].gpu_count == pytest.approx(0.167)
    # a3-ultragpu-8g: 6.2607 USD/GPU-h spot x 8 = 50.0856; europe-west1 on-demand 11.4934 x 8 = 91.9472
    a3 = {
        (o.region, o.pricing): o.price
        for o in store.offers(provider="gcp")
        if o.instance_type == "a3-ultragpu-8g"
    }
    assert a3[("us-central1", "spot")] == pytest.approx(50.0856)
    assert a3[("europe-west1", "on_demand")] == pytest.approx(91.9472)


def test_shipped_files_have_their_declared_headers() -> None:
    for name in COLUMNS:
        list(read_table(name))  # raises DataError on a header mismatch


def test_skip_report_names_the_a800_and_the_reserved_column() -> None:
    text = (REPO / "src/gpuplan/catalog/data/skipped.csv").read_text(encoding="utf-8")
    assert "A800" in text
    assert "1-year reserved" in text


@pytest.mark.skipif(not (SHARED / "instance_types.csv").is_file(), reason="needs ../shared/data")
def test_builder_reproduces_the_committed_snapshot() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "tools/build_snapshot.py"), "--shared", str(SHARED), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skipped:" in result.stdout  # nothing is dropped silently


def test_term_json_is_valid() -> None:
    for row in read_table("prices.csv"):
        if row["term_json"]:
            assert isinstance(json.loads(row["term_json"]), dict)


def test_every_shipped_licence_item_is_a_message_with_its_chinese() -> None:
    from gpuplan.catalog.model import LICENCE_ITEMS
    from gpuplan.i18n import _, use_language

    items = {row["item"] for row in read_table("licences.csv")}
    assert items and items <= set(LICENCE_ITEMS)
    with use_language("zh"):
        assert all(_(item) != item for item in items)
