"""Recorded price-API responses served through respx: no test here touches the network."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from gpuplan.catalog.providers import alibaba, aws, azure, gcp, lambdalabs, runpod, tencent, vast

REC = Path(__file__).resolve().parents[1] / "fixtures" / "refresh"
NOW = "2026-11-30T12:00:00+00:00"
BULK_CSV_URL = f"{aws.PRICING_HOST}/offers/v1.0/aws/AmazonEC2/20261120000000/us-east-1/index.csv"


def recorded(name: str) -> Any:
    doc = json.loads((REC / name).read_text(encoding="utf-8"))
    return doc.get("response", doc)


def _azure(request: httpx.Request) -> httpx.Response:
    page = "azure_page2.json" if "skip=1000" in str(request.url) else "azure_page1_shared.json"
    return httpx.Response(200, json=recorded(page))


def _gcp(request: httpx.Request) -> httpx.Response:
    pages = json.loads((REC / "gcp_skus.json").read_text())["pages"]
    return httpx.Response(200, json=pages[1] if request.url.params.get("pageToken") == "page2" else pages[0])


def _ec2(request: httpx.Request) -> httpx.Response:
    page = 2 if request.url.params.get("NextToken") else 1
    return httpx.Response(200, text=(REC / f"aws_describe_spot_price_history_page{page}.xml").read_text())


def _tencent(request: httpx.Request) -> httpx.Response:
    # Answer like the API: only the region asked (X-TC-Region) and the charge type filtered on.
    charge = json.loads(request.content)["Filters"][0]["Values"][0]
    items = recorded("tencent_zone_configs.json")["InstanceTypeQuotaSet"]
    region = request.headers["X-TC-Region"]
    chosen = [i for i in items if i["InstanceChargeType"] == charge and i["Zone"].startswith(region + "-")]
    return httpx.Response(200, json={"Response": {"InstanceTypeQuotaSet": chosen, "RequestId": "r"}})


@contextmanager
def recorded_api() -> Iterator[respx.MockRouter]:
    """Every provider's price source answered from recordings; any other request fails. Each route is
    named after its provider (``aws:bulk-csv``, ``vast`` …) so that a test can replace one answer."""
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as m:
        m.get(aws.REGION_INDEX_URL, name="aws:region-index").mock(
            return_value=httpx.Response(200, json=recorded("aws_region_index.json"))
        )
        m.get(BULK_CSV_URL, name="aws:bulk-csv").mock(
            return_value=httpx.Response(200, text=(REC / "aws_us-east-1_index.csv").read_text())
        )
        m.get(aws.SPOT_FEED_URL, name="aws:spot-feed").mock(
            return_value=httpx.Response(200, json=recorded("aws_spot_feed.json"))
        )
        m.get(aws.SPOT_ADVISOR_URL, name="aws:spot-advisor").mock(
            return_value=httpx.Response(200, json=recorded("aws_spot_advisor.json"))
        )
        m.get(url__startswith="https://ec2.us-east-1.amazonaws.com/", name="aws:ec2").mock(side_effect=_ec2)
        m.get(url__startswith=azure.RETAIL_URL, name="azure").mock(side_effect=_azure)
        m.get(url__startswith="https://prices.azure.com:443/api/retail/prices", name="azure:443").mock(
            side_effect=_azure
        )
        m.get(url__startswith=gcp.SKUS_URL, name="gcp").mock(side_effect=_gcp)
        m.get(alibaba.price_list_url(alibaba.DEFAULT_PRICE_VERSION), name="alibaba").mock(
            return_value=httpx.Response(200, json=recorded("alibaba_instance_price.json"))
        )
        m.post(tencent.ENDPOINT, name="tencent").mock(side_effect=_tencent)
        m.get(lambdalabs.API_URL, name="lambda").mock(
            return_value=httpx.Response(200, json=recorded("lambda_instance_types.json"))
        )
        m.post(runpod.API_URL, name="runpod").mock(
            return_value=httpx.Response(200, json=recorded("runpod_gpu_types.json"))
        )
        m.get(url__startswith=vast.API_URL, name="vast").mock(
            return_value=httpx.Response(200, json=recorded("vast_offers.json"))
        )
        yield m


@pytest.fixture
def api() -> Iterator[respx.MockRouter]:
    """Every provider's price source answered from recordings; any other request fails the test."""
    with recorded_api() as m:
        yield m
