"""The notes on the prices an instance family lacks: shown for the families that carry the GPU
asked for, sourced the way a reader can follow, and written into the snapshot as they are shown."""

from __future__ import annotations

import csv
import io
import re

from gpuplan.catalog import Store
from gpuplan.catalog.family_gaps import FAMILY_GAPS, GAP_SUFFIX
from gpuplan.catalog.query import OfferQuery, list_offers
from gpuplan.catalog.snapshot import shipped_text


def _reason(store: Store, **query: object) -> str:
    listing = list_offers(store, OfferQuery(**query))  # type: ignore[arg-type]
    assert not listing.views and listing.empty_reason is not None
    return listing.empty_reason


def test_an_empty_pricing_listing_names_the_gpu_and_only_the_families_that_carry_it(store: Store) -> None:
    # was: "no monthly price of any provider in the catalog …" followed by the notes on Tencent's
    # GN7/GT4 and Alibaba's gn6i/gn7i families, none of which carries an L20
    text = _reason(store, gpu="L20", pricing="monthly")
    assert text.startswith("no monthly price of L20 from any provider in the catalog"), text[:120]
    assert "alibaba gn8is/gn8ia/ebmgn8is" in text
    assert "tencent" not in text and "gn6i" not in text


def test_a_note_on_every_size_of_a_provider_applies_to_each_of_its_gpus(store: Store) -> None:
    text = _reason(store, gpu="H100-SXM", provider="azure", pricing="reserved_1y")
    assert text.startswith("no reserved_1y price of H100-SXM from azure in the catalog")
    assert "azure reserved 1y/3y (every size): " in text


def test_a_provider_without_the_gpu_says_who_lists_it(store: Store) -> None:
    # was: "no offer of L20 in the catalog: none of the price sources it ships lists one", with
    # Alibaba's L20 rows in the catalog
    text = _reason(store, gpu="L20", provider="aws")
    assert text == "no offer of L20 from aws in the catalog; it lists L20 from alibaba"


def test_the_notes_name_no_working_material_of_ours() -> None:
    for gap in FAMILY_GAPS:
        text = gap.family + " " + gap.reason
        assert not re.search(r"tools/|this file|skypilot_fork|shared/", text), gap.what


def test_the_snapshot_carries_each_note_as_written() -> None:
    rows = {
        r["what"]: r["reason"]
        for r in csv.DictReader(io.StringIO(shipped_text("skipped.csv")))
        if r["what"].endswith(GAP_SUFFIX)
    }
    assert rows == {g.what: g.reason for g in FAMILY_GAPS}


def test_every_family_pattern_matches_a_shipped_offer_or_names_its_gpu(store: Store) -> None:
    carried = {(o.provider, o.instance_type) for o in store.offers(include_unpriced=True)}
    for gap in FAMILY_GAPS:
        assert gap.applies(carried) or gap.gpus, gap.what


def test_an_empty_listing_in_one_region_names_the_regions_that_have_the_offers(store: Store) -> None:
    # "--region us-east-1 --gpu L20 --pricing spot" had said no source publishes an L20 spot price
    # at all; the catalog has them in six Chinese regions.
    said = _reason(store, gpu="L20", pricing="spot", region="us-east-1")
    assert said.startswith("none in us-east-1; the catalog has these offers in 6 other regions: cn-beijing,")
    assert said.endswith("(leave out --region to list them)")
