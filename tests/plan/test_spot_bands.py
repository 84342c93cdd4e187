"""Spot interruption bands: the feed's published bounds, and two sources that disagree."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer
from rich.console import Console

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.spot import (
    OTHER_BANDS_KEY,
    PUBLISHED_BAND_MAX,
    band_rate_per_hour,
    offer_band,
    offer_rate,
    rates_shown,
)
from gpuplan.report.plan import option_json, plan_view
from gpuplan.units import HOURS_PER_MONTH

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("GPUPLAN_SHARED_DATA") or REPO.parent / "shared" / "data")
ADVISOR = SHARED / "aws_spot_advisor" / "spot-advisor-data.json"

#: The two sources of the shipped snapshot, as its price rows name them.
VANTAGE = (
    "instances.vantage.sh AWS list prices of 2025-11-30 (github.com/tsaol/aws-gpu "
    "data/gpu_instances_raw.json @2d0108c)"
)
ADVISOR_SRC = (
    "AWS Spot Instance Advisor feed of 2025-06-28 (github.com/alexei-led/spotinfo "
    "internal/spot/data/spot-advisor-data.json @5bdc33c)"
)
#: us-east-2 g6e.xlarge's spot term as the snapshot writes it: the newer compilation's '5-10%', the
#: advisor's '>20%' beside it.
TERM = {
    "interruption_band_source": VANTAGE,
    "interruption_band_as_of": "2025-11-30",
    OTHER_BANDS_KEY: [{"band": ">20%", "source": ADVISOR_SRC, "as_of": "2025-06-28"}],
}


def test_a_closed_band_is_costed_at_the_feeds_published_max() -> None:
    # AWS's advisor feed, ranges: '5-10%' max 11, '10-15%' max 16, '15-20%' max 22 (not 10, 15, 20)
    for band, p in (("<5%", 0.05), ("5-10%", 0.11), ("10-15%", 0.16), ("15-20%", 0.22)):
        rate = band_rate_per_hour(band)
        assert rate is not None and not rate.assumed
        assert rate.per_hour == pytest.approx(-math.log(1 - p) / HOURS_PER_MONTH, rel=1e-12), band
        assert f"costed at {p:.0%} a month" in rate.source
    # "5-10%": λ = −ln(0.89) / 730 = 0.1165338 / 730 = 1.596354e-4 per hour
    five = band_rate_per_hour("5-10%")
    assert five is not None and five.per_hour == pytest.approx(1.596354e-4, rel=1e-6)
    # a label the feed does not publish (Alibaba's '0-3%'): its own largest figure
    other = band_rate_per_hour("0-3%")
    assert other is not None and other.per_hour == pytest.approx(-math.log(0.97) / HOURS_PER_MONTH)


@pytest.mark.skipif(not ADVISOR.exists(), reason="the shared data folder is not beside the repository")
def test_the_published_maxima_are_the_feeds_own() -> None:
    feed = json.loads(ADVISOR.read_text(encoding="utf-8"))
    published = {r["label"]: float(r["max"]) for r in feed["ranges"] if r["label"] != ">20%"}
    assert published == PUBLISHED_BAND_MAX


def test_the_bands_shown_state_the_published_bounds() -> None:
    rates = [band_rate_per_hour(b, VANTAGE) for b in ("5-10%", "15-20%")]
    (shown,) = rates_shown([r for r in rates if r is not None])
    assert "'15-20%': 22%, '5-10%': 11%" in shown, shown


def test_two_disagreeing_bands_cost_the_worse_and_name_both() -> None:
    band, source = offer_band("5-10%", TERM, "SkyPilot catalog", "2025-06/2026-12-02")
    assert band == ">20%"
    rate = band_rate_per_hour(band, source)
    assert rate is not None and rate.per_hour == pytest.approx(1 / 24)  # the open band's unknown rate
    assert rate.band_source == ADVISOR_SRC
    assert rate.other_bands == (("5-10%", VANTAGE),)
    # the JSON's rate_source names both, with their dates
    assert ADVISOR_SRC in rate.source and VANTAGE in rate.source and "'5-10%'" in rate.source
    # the plan's note too
    joined = "; ".join(rates_shown([rate]))
    assert "the worse is costed" in joined and "'>20%' for '5-10%'" in joined
    assert "2025-06-28" in joined and "2025-11-30" in joined
    # the same through offer_rate (simulate, commit)
    assert offer_rate("5-10%", TERM, None, None, "aws").per_hour == pytest.approx(1 / 24)


def test_the_worse_is_the_rows_own_band_where_the_other_source_is_better() -> None:
    term = {**TERM, OTHER_BANDS_KEY: [{"band": "<5%", "source": ADVISOR_SRC, "as_of": "2025-06-28"}]}
    band, source = offer_band("10-15%", term, None, None)
    assert band == "10-15%"
    rate = band_rate_per_hour(band, source)
    assert rate is not None and rate.band_source == VANTAGE
    assert rate.other_bands == (("<5%", ADVISOR_SRC),)
    assert rate.per_hour == pytest.approx(-math.log(0.84) / HOURS_PER_MONTH)


def test_one_band_keeps_its_own_source() -> None:
    term = {"interruption_band_source": VANTAGE, "interruption_band_as_of": "2025-11-30"}
    assert offer_band("5-10%", term, None, None) == ("5-10%", VANTAGE)
    assert offer_band(None, TERM, None, None) == ("", "")


def test_the_shipped_snapshot_keeps_both_bands_of_us_east_2_g6e_xlarge() -> None:
    path = REPO / "src" / "gpuplan" / "catalog" / "data" / "prices.csv"
    with path.open(encoding="utf-8") as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if r["region"] == "us-east-2" and r["instance_type"] == "g6e.xlarge" and r["pricing"] == "spot"
        ]
    assert rows
    for r in rows:
        term = json.loads(r["term_json"])
        assert r["interruption_band"] == "5-10%"  # the newer source's band stays the row's own
        assert term[OTHER_BANDS_KEY] == [{"as_of": "2025-06-28", "band": ">20%", "source": ADVISOR_SRC}]
        assert offer_band(r["interruption_band"], term, r["source"], r["as_of"])[0] == ">20%"


SERVICE = JobFacts(
    task="infer",
    checkpoint_write_gbps=0.5,
    data_location=("aws", "us-east-1"),
    calendar_months=1.0,
    tensor_parallel=4,
    weights_gb=16.0,
    served_tokens_per_hour=(9.2e6, 4.6e6),
)


def _serving_estimator(key: EstimateKey) -> EstimateRow:
    h = HOURS_PER_MONTH
    return EstimateRow(fits=True, job_time_h=h, job_time_h_low=h, job_time_h_high=h, peak_memory_gib=20.0)


def _spot_option(rows):  # type: ignore[no-untyped-def]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        SERVICE,
        _serving_estimator,
        Constraints(max_gpus=8),
    )
    return plan, next(o for o in plan.options if o.pricing == "spot")


def test_a_spot_service_costed_at_the_worse_band_says_both_in_its_note_and_json() -> None:
    band, source = offer_band("5-10%", TERM, None, None)
    plan, spot = _spot_option(
        [
            offer(pricing="on_demand", price_usd=21.96),
            offer(pricing="spot", price_usd=6.0, interruption_band=band, interruption_band_source=source),
        ]
    )
    assert spot.spot is not None and spot.spot.interruptions_per_instance_hour == pytest.approx(1 / 24)
    doc = option_json(spot).model_dump(mode="json")
    bands = doc["spot"]["interruption_bands"]
    assert [(b["band"], b["costed"]) for b in bands] == [(">20%", True), ("5-10%", False)]
    assert "2025-11-30" in bands[1]["source"] and "2025-06-28" in bands[0]["source"]
    # what an on-demand fallback instance costs, from the catalog's on-demand price of the same type
    assert doc["spot"]["service"]["on_demand_usd_per_instance_hour"] == pytest.approx(21.96)
    out = io.StringIO()
    Console(file=out, width=400, color_system=None).print(plan_view(plan))
    text = out.getvalue()
    assert "spot interruption band: '>20%' costed" in text and "'5-10%' from " + VANTAGE in text
    assert "on-demand fallback: an on-demand p4d.24xlarge in us-east-1 costs $21.96/h against $6.00/h" in text


def test_a_spot_service_without_an_on_demand_price_says_the_fallback_cost_is_unknown() -> None:
    plan, spot = _spot_option([offer(pricing="spot", price_usd=6.0, interruption_band="<5%")])
    assert spot.spot is not None and spot.spot.service is not None
    assert spot.spot.service.on_demand_usd_per_instance_hour is None
    assert option_json(spot).model_dump(mode="json")["spot"]["interruption_bands"] == []
    out = io.StringIO()
    Console(file=out, width=400, color_system=None).print(plan_view(plan))
    assert "an on-demand replica's instance costs is unknown" in out.getvalue()


def test_two_sources_each_worse_somewhere_are_said_in_one_sentence_each_named_once() -> None:
    # was: "… the worse is costed: <advisor> over <vantage> (…)" then "… the worse is costed: <vantage>
    # over <advisor> (…)": right instance type by instance type, but read as contradicting each other
    advisor_worse = band_rate_per_hour(*offer_band("5-10%", TERM, None, None))
    term = {**TERM, OTHER_BANDS_KEY: [{"band": "<5%", "source": ADVISOR_SRC, "as_of": "2025-06-28"}]}
    vantage_worse = band_rate_per_hour(*offer_band("10-15%", term, None, None))
    assert advisor_worse is not None and vantage_worse is not None
    shown = [s for s in rates_shown([advisor_worse, vantage_worse]) if "the worse is costed" in s]
    assert shown == [
        "where the catalog's sources disagree on an instance type's band in a region, the worse is costed, "
        f"each instance type and region on its own: {ADVISOR_SRC} over {VANTAGE} for some "
        "('>20%' for '5-10%'), and the other way round for others ('10-15%' for '<5%')"
    ]
    # one direction only: one sentence, as before
    (alone,) = [s for s in rates_shown([advisor_worse]) if "the worse is costed" in s]
    assert alone.endswith(f"the worse is costed: {ADVISOR_SRC} over {VANTAGE} ('>20%' for '5-10%')")
