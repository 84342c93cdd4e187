"""Huawei Cloud, Volcano Engine and Alibaba Cloud (OpenAPI) fetchers with keys: signed requests,
list prices from the recorded response shapes, items a region does not sell left out, replay.

Shape fixtures (``*_shared_shape.json``, ``verbatim: false``) carry null amounts; where a test
needs a price it fills one in code (marked SYNTHETIC). The Alibaba DescribePrice and
DescribeSpotAdvice fixtures are real example responses.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from gpuplan.catalog import Store
from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers import Credentials, MissingCredentialsError, module
from gpuplan.catalog.providers.alibaba_openapi import instance_list_price, latest_spot_by_zone, spot_bands
from gpuplan.catalog.providers.http import Http
from gpuplan.catalog.providers.huawei_bss import on_demand_price, period_price
from gpuplan.catalog.providers.volcengine_billing import charge_item_code, total_original_amount
from gpuplan.catalog.refresh import RefreshOptions, refresh

from .conftest import NOW, recorded

HUAWEI_KEYS = Credentials(
    values={
        "HUAWEICLOUD_ACCESS_KEY": "HWAK",
        "HUAWEICLOUD_SECRET_KEY": "hwsk",
        "HUAWEICLOUD_PROJECT_ID": "p1",
    }
)
VOLC_KEYS = Credentials(values={"VOLCENGINE_ACCESS_KEY": "AKLT1", "VOLCENGINE_SECRET_KEY": "vs"})
ALI_KEYS = Credentials(
    values={"ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAI1", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "as"}
)


def fetch(provider: str, creds: Credentials) -> tuple[list[OfferRow], tuple[str, ...]]:
    http = Http(provider)
    try:
        result = module(provider).FETCHER.fetch(http, creds, NOW)
        return list(result.rows), result.notes
    finally:
        http.close()


# ------------------------------------------------------------------------------------------ Huawei
def _huawei(request: httpx.Request) -> httpx.Response:
    assert request.headers["Authorization"].startswith("SDK-HMAC-SHA256 Access=HWAK, SignedHeaders=")
    body = json.loads(request.content)
    [item] = body["product_infos"]
    sold = item["resource_spec"] == "p2s.2xlarge.8.linux" and item["region"] == "cn-north-4"
    if not sold:
        return httpx.Response(400, json={"error_code": "CBC.0150", "error_msg": "resource spec not found"})
    if request.url.path.endswith("/on-demand-resources"):
        return httpx.Response(200, json=recorded("huawei_on_demand_shared_shape.json")["response"])
    answer = copy.deepcopy(recorded("huawei_period_shared_shape.json")["response"])
    # SYNTHETIC amounts (the shape's are null): 3,000 CNY a month, 30,000 a year, 72,000 for 3 years.
    total = {(2, 1): 3000.0, (3, 1): 30000.0, (3, 3): 72000.0}[(item["period_type"], item["period_num"])]
    answer["official_website_rating_result"]["official_website_amount"] = total
    return httpx.Response(200, json=answer)


@pytest.fixture
def huawei() -> Any:
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as m:
        m.post(url__startswith="https://bss.myhuaweicloud.com/v2/bills/ratings/").mock(side_effect=_huawei)
        yield m


def test_huawei_parses_the_list_price_not_the_discounted_amount() -> None:
    shape = recorded("huawei_on_demand_shared_shape.json")["response"]
    # official_website_amount "1.12" with measure_id 1 (yuan); amount/discount_amount are null.
    assert on_demand_price(shape) == (1.12, "CNY")
    assert on_demand_price({**shape, "official_website_amount": "112", "measure_id": 3}) == (1.12, "CNY")
    assert period_price(recorded("huawei_period_shared_shape.json")["response"]) is None  # shape: null


def test_huawei_without_keys_is_skipped_naming_every_missing_setting() -> None:
    with pytest.raises(MissingCredentialsError, match="HUAWEICLOUD_PROJECT_ID"):
        fetch("huawei", Credentials(values={"HUAWEICLOUD_ACCESS_KEY": "a", "HUAWEICLOUD_SECRET_KEY": "b"}))


def test_huawei_prices_hourly_monthly_and_prepaid_years_and_leaves_out_what_is_not_sold(huawei: Any) -> None:
    rows, notes = fetch("huawei", HUAWEI_KEYS)
    [row] = rows
    assert (row.region, row.instance_type, row.gpu, row.gpu_count) == (
        "cn-north-4",
        "p2s.2xlarge.8",
        "V100-PCIE-32GB",
        1,
    )
    # 30000 / 12 = 2500 per month; 72000 / 36 = 2000 per month
    assert {p.pricing: p.amount for p in row.prices} == {
        "on_demand": 1.12,
        "monthly": 3000.0,
        "reserved_1y": 2500.0,
        "reserved_3y": 2000.0,
    }
    assert {p.currency for p in row.prices} == {"CNY"}
    # 14 regions x 7 flavors = 98 pairs, one sold
    assert tuple(map(str, notes)) == ("97 region x flavor pairs not rated (not sold there)",)


def test_huawei_says_why_when_every_request_is_refused() -> None:
    with respx.mock() as m:
        m.post(url__startswith="https://bss.myhuaweicloud.com/").mock(
            return_value=httpx.Response(400, json={"error_code": "CBC.0101", "error_msg": "invalid project"})
        )
        with pytest.raises(Exception, match=r"CBC\.0101: invalid project"):
            fetch("huawei", HUAWEI_KEYS)


def test_huawei_refresh_saved_then_replayed_gives_the_same_offers(
    store: Store, huawei: Any, tmp_path: Path
) -> None:
    [saved] = refresh(store, ["huawei"], RefreshOptions(now=NOW, credentials=HUAWEI_KEYS, save_dir=tmp_path))
    assert saved.status == "ok", saved.message
    huawei.reset()
    with respx.mock(assert_all_called=False) as m:
        m.route().mock(side_effect=httpx.ConnectError("no network"))
        [replayed] = refresh(
            store,
            ["huawei"],
            RefreshOptions(now="2026-12-02T08:00:00+00:00", credentials=HUAWEI_KEYS, replay_dir=tmp_path),
        )
        assert not m.calls
    assert (replayed.status, replayed.offers) == ("ok", 1)


# ------------------------------------------------------------------------------------------ Volcano
def test_volcengine_charge_item_code_follows_the_recorded_convention() -> None:
    shape = recorded("volcengine_pay_as_you_go_shared_shape.json")
    [config] = shape["request"]["ConfigList"]
    assert charge_item_code(config["ConfigurationCode"], "cn-beijing") == config["ChargeItemCode"]
    assert total_original_amount(shape["response"]) is None  # shape only: null amounts


def _volc(request: httpx.Request) -> httpx.Response:
    auth = request.headers["Authorization"]
    assert auth.startswith("HMAC-SHA256 Credential=AKLT1/") and "/cn-beijing/billing/request" in auth
    body = json.loads(request.content)
    [config] = body["ConfigList"]
    if config["ChargeItemCode"] != "ecs.gni2_3xlarge_cn-beijing":
        return httpx.Response(
            400, json={"ResponseMetadata": {"Error": {"Code": "InvalidParameter", "Message": "unknown code"}}}
        )
    answer = copy.deepcopy(recorded("volcengine_pay_as_you_go_shared_shape.json")["response"])
    # SYNTHETIC amounts: 6.5 CNY an hour; 3,200 CNY a month; 12 months 32,640; 36 months 86,400.
    action = request.url.params["Action"]
    total = (
        6.5
        if action == "QueryPriceForPayAsYouGo"
        else {1: 3200.0, 12: 32640.0, 36: 86400.0}[config["UseDuration"]]
    )
    answer["Result"].update(Currency="CNY", TotalOriginalAmount=total, TotalDiscountAmount=total * 0.9)
    return httpx.Response(200, json=answer)


def test_volcengine_prices_pay_as_you_go_and_subscriptions_with_signed_requests() -> None:
    with pytest.raises(MissingCredentialsError, match="VOLCENGINE_ACCESS_KEY"):
        fetch("volcengine", Credentials())
    with respx.mock(assert_all_mocked=True) as m:
        m.post(url__startswith="https://open.volcengineapi.com/").mock(side_effect=_volc)
        rows, notes = fetch("volcengine", VOLC_KEYS)
    [row] = rows
    assert (row.region, row.instance_type, row.gpu) == ("cn-beijing", "ecs.gni2.3xlarge", "A10")
    # 32640 / 12 = 2720 per month; 86400 / 36 = 2400 per month (list prices, not the discounted ones)
    assert {p.pricing: p.amount for p in row.prices} == {
        "on_demand": 6.5,
        "monthly": 3200.0,
        "reserved_1y": 2720.0,
        "reserved_3y": 2400.0,
    }
    assert tuple(map(str, notes)) == (
        "5 region x type pairs not priced (charge-item code unknown to the API or not sold)",
    )


def test_volcengine_refused_keys_fail_the_provider() -> None:
    with respx.mock() as m:
        m.post(url__startswith="https://open.volcengineapi.com/").mock(
            return_value=httpx.Response(
                403, json={"ResponseMetadata": {"Error": {"Code": "InvalidAccessKey", "Message": "bad"}}}
            )
        )
        with pytest.raises(Exception, match="refused the keys"):
            fetch("volcengine", VOLC_KEYS)


# ------------------------------------------------------------------------------------------ Alibaba
def test_alibaba_parses_the_instance_line_of_a_real_describe_price_answer() -> None:
    # Real answer: total OriginalPrice 0.109024 includes the system disk (0.005024); the
    # instanceType line's OriginalPrice is 0.104 (TradePrice 0.01976 is the spot discount).
    assert instance_list_price(recorded("alibaba_describe_price_shared.json")) == (0.104, "USD")


def test_alibaba_reads_the_zone_bands_of_a_real_spot_advice_answer() -> None:
    assert spot_bands(recorded("alibaba_spot_advice_shared.json")) == {
        ("eu-central-1a", "ecs.g7.large"): "3-5%",
        ("eu-central-1c", "ecs.g7.large"): "0-3%",
    }
    assert latest_spot_by_zone(recorded("alibaba_spot_history_shared_shape.json")) == {}  # shape: null


def _ecs(request: httpx.Request) -> httpx.Response:
    assert request.headers["Authorization"].startswith(
        "ACS3-HMAC-SHA256 Credential=LTAI1,SignedHeaders=host;"
    )
    action = request.headers["x-acs-action"]
    q = request.url.params
    sold = (
        q["RegionId"] == "cn-hangzhou"
        and q.get("InstanceType", "ecs.gn7i-c8g1.2xlarge") == "ecs.gn7i-c8g1.2xlarge"
    )
    if not sold:
        return httpx.Response(404, json={"Code": "InvalidInstanceType.NotFound", "Message": "not sold"})
    if action == "DescribePrice":
        assert q["SystemDisk.Category"] == "cloud_essd"
        answer = copy.deepcopy(recorded("alibaba_describe_price_shared.json"))
        # SYNTHETIC: the real answer's USD figures replaced by CNY ones per price unit.
        amount = {
            ("Hour", "1"): 11.98,
            ("Month", "1"): 5400.0,
            ("Year", "1"): 55080.0,
            ("Year", "3"): 129600.0,
        }[(q["PriceUnit"], q["Period"])]
        answer["PriceInfo"]["Price"]["Currency"] = "CNY"
        answer["PriceInfo"]["Price"]["DetailInfos"]["DetailInfo"][3]["OriginalPrice"] = amount
        return httpx.Response(200, json=answer)
    if action == "DescribeSpotAdvice":
        answer = copy.deepcopy(recorded("alibaba_spot_advice_shared.json"))
        for zone in answer["AvailableSpotZones"]["AvailableSpotZone"]:  # SYNTHETIC: moved to Hangzhou
            zone["ZoneId"] = zone["ZoneId"].replace("eu-central-1", "cn-hangzhou-")
            zone["AvailableSpotResources"]["AvailableSpotResource"][0]["InstanceType"] = (
                "ecs.gn7i-c8g1.2xlarge"
            )
        return httpx.Response(200, json=answer)
    assert "StartTime" in q and "EndTime" in q
    history = copy.deepcopy(recorded("alibaba_spot_history_shared_shape.json"))
    item = history["SpotPrices"]["SpotPriceType"][0]
    history["Currency"] = "CNY"
    history["SpotPrices"]["SpotPriceType"] = [  # SYNTHETIC values in the shape's fields
        {
            **item,
            "ZoneId": "cn-hangzhou-a",
            "SpotPrice": 2.9,
            "OriginPrice": 11.98,
            "Timestamp": "2026-11-30T10:00:00Z",
        },
        {
            **item,
            "ZoneId": "cn-hangzhou-a",
            "SpotPrice": 2.4,
            "OriginPrice": 11.98,
            "Timestamp": "2026-11-30T11:00:00Z",
        },
    ]
    return httpx.Response(200, json=history)


def test_alibaba_with_keys_adds_mainland_hourly_subscription_and_zone_spot_prices(
    api: respx.MockRouter,
) -> None:
    api.post(url__regex=r"https://ecs\.cn-[a-z]+\.aliyuncs\.com/").mock(side_effect=_ecs)
    rows, notes = fetch("alibaba", ALI_KEYS)
    mainland = [r for r in rows if r.region == "cn-hangzhou"]
    regional = [r for r in mainland if r.zone is None]
    [spot] = [r for r in mainland if r.zone is not None]
    [row] = regional
    # 55080 / 12 = 4590 per month; 129600 / 36 = 3600 per month
    assert {p.pricing: p.amount for p in row.prices} == {
        "on_demand": 11.98,
        "monthly": 5400.0,
        "reserved_1y": 4590.0,
        "reserved_3y": 3600.0,
    }
    [p] = spot.prices
    assert (spot.zone, p.pricing, p.amount, p.currency, p.interruption_band) == (
        "cn-hangzhou-a",
        "spot",
        2.4,  # the latest of the zone's history
        "CNY",
        "3-5%",
    )
    assert any("OpenAPI requests refused" in str(n) for n in notes)
    assert ("us-west-1", "ecs.gn7i-c8g1.2xlarge") in {(r.region, r.instance_type) for r in rows}  # intl list
