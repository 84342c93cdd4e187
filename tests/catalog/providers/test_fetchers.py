"""Each fetcher parses its provider's recorded responses: prices, filters, paging, facts, sources."""

from __future__ import annotations

import pytest
import respx

from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers import Credentials, MissingCredentialsError, module
from gpuplan.catalog.providers.http import Http
from gpuplan.catalog.providers.tencent import tc3_authorization

from .conftest import NOW

KEYS = Credentials(
    values={
        "GOOGLE_API_KEY": "k",
        "TENCENTCLOUD_SECRET_ID": "AKIDtest",
        "TENCENTCLOUD_SECRET_KEY": "secret",
        "LAMBDA_API_KEY": "k",
        "RUNPOD_API_KEY": "k",
    }
)


def fetch(provider: str, creds: Credentials = KEYS) -> list[OfferRow]:
    http = Http(provider)
    try:
        return list(module(provider).FETCHER.fetch(http, creds, NOW).rows)
    finally:
        http.close()


def prices(rows: list[OfferRow], region: str, itype: str) -> dict[str, float]:
    [row] = [r for r in rows if r.region == region and r.instance_type == itype]
    return {p.pricing: p.amount for p in row.prices}


def test_aws_reads_on_demand_reserved_spot_and_the_advisor_band(api: respx.MockRouter) -> None:
    rows = fetch("aws")
    assert {r.region for r in rows} == {"us-east-1"}  # the index's unknown region is not read
    p5 = prices(rows, "us-east-1", "p5.48xlarge")
    # Linux/Shared/standard only: Windows 65, Dedicated 60 and the convertible 30.00 are left out.
    assert p5["on_demand"] == 55.04 and p5["reserved_1y"] == 36.12
    # 3 yr All Upfront: 600000 / (3 x 8760 h) = 22.831050 USD/h
    assert p5["reserved_3y"] == pytest.approx(22.83105)
    assert p5["spot"] == 21.96
    [row] = [r for r in rows if r.instance_type == "p5.48xlarge"]
    spot = next(p for p in row.prices if p.pricing == "spot")
    assert spot.interruption_band == "5-10%" and spot.term == {"advisor_savings_percent": 60}
    assert row.network_gbps == 3200 and row.network_kind == "EFA" and row.local_nvme_gb == 30720
    assert all(p.fetched_at == NOW and p.source.startswith("https://") for p in row.prices)
    assert {p.as_of for p in row.prices if p.pricing != "spot"} == {"2026-11-20"}  # publication date
    assert prices(rows, "us-east-1", "g5.xlarge") == {"on_demand": 1.006}  # spot 'N/A*' is not a price


def test_aws_with_keys_adds_per_zone_spot_from_signed_describe_spot_price_history(
    api: respx.MockRouter,
) -> None:
    keys = Credentials(values={"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"})
    rows = fetch("aws", keys)
    zones = {r.zone: r.prices[0].amount for r in rows if r.zone and r.instance_type == "p5.48xlarge"}
    # us-east-1a: the newest item (20.41, page 1) wins over the older 25.00 of page 2.
    assert zones == {"us-east-1a": 20.41, "us-east-1b": 23.1}
    assert not [r for r in rows if r.instance_type == "z1d.large"]  # not a GPU instance type
    sent = [c.request for c in api.calls if "ec2.us-east-1" in str(c.request.url)]
    assert len(sent) == 2 and "NextToken=AAHcNbVWluvVeerM53" in str(sent[1].url)
    scope = "AKIDEXAMPLE/20261130/us-east-1/ec2/aws4_request"
    assert sent[0].headers["Authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={scope}, ")


def test_sigv4_matches_the_aws_test_suite_get_vanilla_vector() -> None:
    from gpuplan.catalog.providers.sigv4 import authorization

    # AWS Signature Version 4 test suite, 'get-vanilla': GET / at 20150830T123600Z.
    auth = authorization(
        access_key="AKIDEXAMPLE",
        secret_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        region="us-east-1",
        service="service",
        host="example.amazonaws.com",
        query="",
        amz_date="20150830T123600Z",
    )
    assert auth.endswith("Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")


def test_azure_follows_next_page_and_keeps_linux_meters_only(api: respx.MockRouter) -> None:
    rows = fetch("azure")
    nc = prices(rows, "eastus", "Standard_NC24ads_A100_v4")
    assert nc["on_demand"] == 3.673 and nc["spot"] == 0.41  # Low Priority 0.9 and Windows 5.1 left out
    # Reservations are priced for the term: 19282 / 8760 h = 2.201142; 37000 / 26280 h = 1.407915
    assert nc["reserved_1y"] == pytest.approx(2.201142) and nc["reserved_3y"] == pytest.approx(1.407915)
    [row] = [r for r in rows if r.instance_type == "Standard_NC24ads_A100_v4"]
    od = next(p for p in row.prices if p.pricing == "on_demand")
    assert od.term == {"savings_plan_usd_per_hour": {"1 Year": 2.4, "3 Years": 1.6}}
    assert all(r.instance_type != "Standard_D14" for r in rows)  # the real page's Windows D14 Spot
    assert api.calls.call_count >= 2  # the NextPageLink was followed


def test_gcp_is_skipped_without_a_key_and_sums_components_with_one(api: respx.MockRouter) -> None:
    with pytest.raises(MissingCredentialsError, match="GOOGLE_API_KEY"):
        fetch("gcp", Credentials())
    rows = fetch("gcp")
    a2 = prices(rows, "us-central1", "a2-highgpu-1g")
    # 12 vCPU x 0.031611 + 85 GiB x 0.004237 + 1 x 2.933908 = 0.379332 + 0.360145 + 2.933908 = 3.673385
    assert a2["on_demand"] == pytest.approx(3.673385)
    # Spot: 12 x 0.0095 + 85 x 0.00127 + 0.88 = 0.114 + 0.10795 + 0.88 = 1.10195
    assert a2["spot"] == pytest.approx(1.10195)
    # Only the A2 machines with the 40 GB A100 have all three components in the recording.
    assert {r.instance_type.rsplit("-", 1)[0] for r in rows} == {"a2-highgpu", "a2-megagpu"}


def test_alibaba_reads_hourly_monthly_and_prepaid_years_of_linux_vpc_rows(api: respx.MockRouter) -> None:
    rows = fetch("alibaba")
    assert [(r.region, r.instance_type) for r in rows] == [("us-west-1", "ecs.gn7i-c8g1.2xlarge")]
    p = prices(rows, "us-west-1", "ecs.gn7i-c8g1.2xlarge")
    # 1 year prepaid 6120 / 12 = 510 per month; 3 years 14400 / 36 = 400 per month
    assert p == {"on_demand": 1.6, "monthly": 600.0, "reserved_1y": 510.0, "reserved_3y": 400.0}
    assert rows[0].prices[0].as_of == "2026-11-18"


def test_tencent_signs_requests_and_reads_each_charge_type(api: respx.MockRouter) -> None:
    with pytest.raises(MissingCredentialsError, match="TENCENTCLOUD_SECRET_ID"):
        fetch("tencent", Credentials())
    rows = fetch("tencent")
    [row] = rows  # the sold-out zone and the non-GPU S.TEST type are left out
    assert (row.region, row.zone, row.gpu, row.gpu_count) == ("ap-guangzhou", "ap-guangzhou-3", "T4", 1.0)
    # Prepaid 1 year 39780 CNY / 12 = 3315 per month
    assert {p.pricing: p.amount for p in row.prices} == {
        "on_demand": 8.68,
        "spot": 1.74,
        "monthly": 3900.0,
        "reserved_1y": 3315.0,
    }
    assert {p.currency for p in row.prices} == {"CNY"}
    sent = [c.request for c in api.calls if "tencentcloudapi" in str(c.request.url)]
    assert sent and all(
        r.headers["Authorization"].startswith("TC3-HMAC-SHA256 Credential=AKIDtest/") for r in sent
    )


def test_tc3_signature_matches_tencents_documented_example() -> None:
    # Tencent Cloud API 3.0 'Signature v3' example (DescribeInstances, timestamp 1551113065,
    # the documentation's masked key): signature 2230eefd…652c.
    payload = '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
    auth = tc3_authorization(
        secret_id="AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******",
        secret_key="Gu5t9xGARNpq86cd98joQYCN3*******",
        service="cvm",
        payload=payload,
        timestamp=1551113065,
        headers={"content-type": "application/json; charset=utf-8", "host": "cvm.tencentcloudapi.com"},
    )
    assert auth == (
        "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******/2019-02-25/cvm/tc3_request, "
        "SignedHeaders=content-type;host, "
        "Signature=2230eefd229f582d8b1b891af7107b91597240707d778ab3738f756258d7652c"
    )


def test_keyed_chinese_clouds_without_keys_are_skipped_with_the_settings_to_set(
    api: respx.MockRouter,
) -> None:
    with pytest.raises(MissingCredentialsError, match="HUAWEICLOUD_ACCESS_KEY"):
        fetch("huawei", Credentials())
    with pytest.raises(MissingCredentialsError, match="VOLCENGINE_SECRET_KEY"):
        fetch("volcengine", Credentials(values={"VOLCENGINE_ACCESS_KEY": "a"}))


def test_lambda_offers_only_regions_with_capacity_and_known_gpus(api: respx.MockRouter) -> None:
    http = Http("lambda")
    result = module("lambda").FETCHER.fetch(http, KEYS, NOW)
    [row] = result.rows  # GH200 is not in the hardware catalog; the 8x has no capacity now
    assert (row.region, row.instance_type, row.gpu, row.gpu_count) == (
        "us-east-1",
        "gpu_1x_h100_sxm5",
        "H100-SXM",
        1,
    )
    assert row.prices[0].amount == 3.78
    assert any("moon-1" in str(n) for n in result.notes) and any("GH200" in str(n) for n in result.notes)


def test_runpod_prices_each_cloud_with_its_spot(api: respx.MockRouter) -> None:
    rows = fetch("runpod")
    assert prices(rows, "secure", "1x NVIDIA H100 80GB HBM3") == {"on_demand": 2.69, "spot": 1.75}
    assert prices(rows, "community", "1x NVIDIA H100 80GB HBM3") == {"on_demand": 2.39}
    assert prices(rows, "community", "1x NVIDIA GeForce RTX 4090") == {"on_demand": 0.34, "spot": 0.2}
    assert {r.gpu for r in rows} == {"H100-SXM", "RTX-4090"}  # RTX 6000 Ada is not in the catalog


def test_vast_keeps_the_cheapest_offer_and_lowest_bid_per_gpu_count_and_country(
    api: respx.MockRouter,
) -> None:
    rows = fetch("vast")
    # Two RTX 4090 hosts in Norway: 0.39 (offer 102) is the cheapest on-demand,
    # 0.25 (offer 101) the lowest bid.
    assert prices(rows, "NO", "1x RTX-4090") == {"on_demand": 0.39, "spot": 0.25}
    assert prices(rows, "US", "8x H100-SXM") == {"on_demand": 19.5, "spot": 12.0}
    assert len(rows) == 2  # RTX 5090 is not in the hardware catalog


#: Malformed Vast.ai listings, each in a group that also holds valid ones (1x RTX 4090 in Norway:
#: offers 101 and 102 of the recording; 8x H100 SXM in the US: offer 103). Listed before the valid
#: ones, so that a listing read first cannot stand for its group.
_BAD_VAST_LISTINGS = [
    {"id": 901, "gpu_name": "RTX 4090", "num_gpus": 1, "geolocation": "Oslo, NO", "dph_total": "0.01"},
    {"id": 902, "gpu_name": "RTX 4090", "num_gpus": 1, "geolocation": "Oslo, NO"},  # no price
    {"id": 903, "gpu_name": "RTX 4090", "num_gpus": 1, "geolocation": "Oslo, NO", "dph_total": -0.5},
    {"id": 904, "gpu_name": "RTX 4090", "num_gpus": "one", "geolocation": "Oslo, NO", "dph_total": 0.1},
    {"id": 905, "gpu_name": "RTX 4090", "num_gpus": 1, "geolocation": "Oslo, NO", "dph_total": 0.2,
     "min_bid": "cheap"},
    {"id": 906, "gpu_name": "H100 SXM", "num_gpus": 8, "gpu_ram": 81559, "geolocation": "Texas, US",
     "dph_total": 9.0, "cpu_ram": "lots"},
    {"id": 907, "num_gpus": 8, "geolocation": "Texas, US", "dph_total": 1.0},  # no GPU name
    "not a listing",
]  # fmt: skip


def _vast_answer_with_bad_listings(api: respx.MockRouter) -> None:
    import httpx

    from .conftest import recorded

    doc = recorded("vast_offers.json")
    doc["offers"] = [*_BAD_VAST_LISTINGS, *doc["offers"]]
    api.routes["vast"].side_effect = lambda request: httpx.Response(200, json=doc)


def test_vast_refuses_each_malformed_listing_alone_and_keeps_the_valid_ones_of_its_group(
    api: respx.MockRouter,
) -> None:
    # One listing with a price that is no number (or none, or below zero), a GPU count that is no
    # number, or a host fact that is no number made its whole group of machines disappear (or
    # failed the whole provider): each is now refused with its reason, and its group is priced
    # from the valid listings alone.
    _vast_answer_with_bad_listings(api)
    http = Http("vast")
    try:
        result = module("vast").FETCHER.fetch(http, KEYS, NOW)
    finally:
        http.close()
    rows = list(result.rows)
    assert prices(rows, "NO", "1x RTX-4090") == {"on_demand": 0.39, "spot": 0.25}
    assert prices(rows, "US", "8x H100-SXM") == {"on_demand": 19.5, "spot": 12.0}
    [h100] = [r for r in rows if r.region == "US"]
    assert h100.memory_gib == round(2000000 / 1024, 1)  # offer 103's, not the refused 906's
    assert len(rows) == 2
    reasons = {r.reason for r in result.rejected}
    assert len(result.rejected) == len(_BAD_VAST_LISTINGS), reasons
    assert 'Vast.ai offer 901: dph_total is "0.01", not a number' in reasons
    assert "Vast.ai offer 902: no dph_total" in reasons
    assert "Vast.ai offer 903: dph_total is -0.5, not a price above zero" in reasons
    assert 'Vast.ai offer 904: num_gpus is "one", not a whole number of GPUs' in reasons
    assert 'Vast.ai offer 905: min_bid is "cheap", not a number' in reasons
    assert 'Vast.ai offer 906: cpu_ram is "lots", not a number' in reasons
    assert "Vast.ai offer 907: no gpu_name" in reasons
    assert "Vast.ai listing 8 of the answer: not an object" in reasons
    refused = {r.reason.split(":")[0]: r for r in result.rejected}
    assert refused["Vast.ai offer 901"].region == "NO"
    assert refused["Vast.ai offer 901"].instance_type == "1x RTX-4090"


def test_a_gcp_refresh_names_an_attachable_gpu_offer_as_the_shipped_snapshot_does() -> None:
    # The refresh keyed N1 offers 'n1-standard-4+t4x1', the importers 'n1-standard-4 + 1x nvidia-tesla-t4':
    # one offer under two names after a refresh. Now every N1 machine is named the importers' way.
    from gpuplan.catalog.providers.gcp import MACHINES, n1_offer, n1_offer_name

    n1 = {name: m for name, m in MACHINES.items() if name.startswith("n1-")}
    assert len(n1) == 7
    for name, machine in n1.items():
        parsed = n1_offer(name)
        assert parsed is not None, name
        model, count = parsed
        assert count == machine.facts.gpu_count
        assert n1_offer_name(name.split(" + ")[0], count, model) == name
