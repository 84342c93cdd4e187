"""The Alibaba Cloud rows of the SkyPilot-format catalog (github.com/sugarlxn/skypilot-catalog
@003c56a) beyond T4, A10, V100 and A100: its L20 families are shipped, priced in CNY with the
copied file's line as their source; its gn8v ("H 96GB") and ebmgn7v ("A800 40G") rows are copied
but refused, each with its reason in skipped.csv."""

from __future__ import annotations

import csv
import io
from importlib import resources
from pathlib import Path

from gpuplan.catalog.gpu_names import market_gpu
from gpuplan.catalog.snapshot import read_table

REPO = Path(__file__).resolve().parents[2]
FORK = REPO / "tools" / "skypilot_fork" / "alicloud_v8_vms_cn.csv"
SOURCE = "catalogs/v8/alicloud/vms.csv @003c56a, rows copied to tools/skypilot_fork/alicloud_v8_vms_cn.csv"


def _fork_rows() -> list[tuple[int, dict[str, str]]]:
    with FORK.open(encoding="utf-8", newline="") as f:
        return list(enumerate(csv.DictReader(f), start=2))  # line 1 is the header


def _skipped() -> list[dict[str, str]]:
    text = resources.files("gpuplan.catalog").joinpath("data", "skipped.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def test_every_copied_l20_row_is_a_shipped_alibaba_offer_with_its_line_as_source() -> None:
    l20 = [(line, r) for line, r in _fork_rows() if r["AcceleratorName"] == "L20"]
    assert len(l20) == 38
    assert {r["Generation"] for _, r in l20} == {"ecs.gn8is", "ecs.gn8ia", "ecs.ebmgn8is"}
    offers = {
        (o["region"], o["zone"], o["instance_type"]): o
        for o in read_table("offers.csv")
        if o["provider"] == "alibaba" and o["gpu"] == "L20"
    }
    assert len(offers) == len(l20)
    prices = {
        (p["region"], p["zone"], p["instance_type"], p["pricing"]): p
        for p in read_table("prices.csv")
        if p["provider"] == "alibaba"
    }
    for line, r in l20:
        key = (r["Region"], r["AvailabilityZone"], r["InstanceType"])
        offer = offers[key]
        assert offer["gpu_count"] == r["AcceleratorCount"]
        assert f"{SOURCE}, line {line} " in offer["source"]
        for pricing, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
            p = prices[(*key, pricing)]
            # the file's USD is CNY × 0.138: the price is kept in the yuan Alibaba charges
            assert p["currency"] == "CNY" and p["unit"] == "hour"
            assert float(p["amount"]) == round(float(r[column]) / 0.138, 6)
            assert f"line {line} " in p["source"] and p["confidence"] == "secondary"
    # mainland China, not only Hong Kong
    assert {"cn-beijing", "cn-hangzhou", "cn-shanghai", "cn-shenzhen", "cn-wulanchabu"} <= {
        k[0] for k in offers
    }
    # one figure checked by hand: gn8is.2xlarge in cn-hangzhou-b, 2.00087642 USD / 0.138 = 14.499104 CNY
    assert (
        float(prices[("cn-hangzhou", "cn-hangzhou-b", "ecs.gn8is.2xlarge", "on_demand")]["amount"])
        == 14.499104
    )


def test_the_hopper_and_a800_40gb_rows_are_copied_but_refused_with_their_reasons() -> None:
    rows = [r for _, r in _fork_rows()]
    assert sum(r["GpuInfo"] == "H 96GB" for r in rows) == 8
    assert sum(r["AcceleratorName"] == "A800 40G" for r in rows) == 1
    shipped = {o["instance_type"] for o in read_table("offers.csv") if o["provider"] == "alibaba"}
    assert not {i for i in shipped if i.startswith(("ecs.gn8v", "ecs.ebmgn7v"))}
    assert not [o for o in read_table("offers.csv") if o["gpu"] in ("H20", "A800-SXM4-40GB")]
    reasons = [(s["what"], s["reason"]) for s in _skipped() if s["what"].startswith("alicloud_v8_vms_cn.csv")]
    assert (
        "alicloud_v8_vms_cn.csv: 8 rows",
        "GPU … is not in gpuplan's hardware catalog: Alibaba gn8v/ebmgn8v "
        "as the SkyPilot-format catalog writes them ('H 96GB'): a 96 GB Hopper part, very probably the H20, "
        "but no source read names the part; not mapped without one",
    ) in reasons
    assert (
        "alicloud_v8_vms_cn.csv: 1 rows",
        "GPU … is not in gpuplan's hardware catalog: an A800 not stated "
        "as 80 GB: gpuplan's hardware catalog has the 80 GB A800 parts only",
    ) in reasons


def test_the_fork_names_map_as_the_hardware_catalog_allows() -> None:
    assert market_gpu("L20", "ecs.gn8is.2xlarge L20", 49152) == ("L20", "")
    gpu, why = market_gpu("H", "ecs.gn8v.4xlarge H", 98304)
    assert gpu is None and "H20" in why
    gpu, why = market_gpu("A800 40G", "ecs.ebmgn7v.32xlarge A800 40G", 40960, 8)
    assert gpu is None and "80 GB" in why


def test_a_price_source_says_the_files_own_rate_is_not_used() -> None:
    # "(USD = CNY × 0.138 in the file; kept in CNY)" beside the catalog's 6.9858 CNY per USD had
    # read as two rates in use; the price is the file's figure ÷ 0.138, converted at the catalog's
    from gpuplan.catalog.importers.skypilot_markets import parse_market
    from gpuplan.i18n import use_language
    from gpuplan.i18n.sources import source_words

    said = (
        " (the rate in the file, USD = CNY × 0.138, is not used: kept in CNY and converted at the"
        " dated rate of the catalog)"
    )
    parsed = parse_market(FORK, "alibaba", as_of="2026-12-03", source=SOURCE)
    sources = {p.source for row in parsed.rows for p in row.prices}
    assert sources and all(s.endswith(said) for s in sources)
    shipped = [p["source"] for p in read_table("prices.csv") if SOURCE in p["source"]]
    assert shipped and all(s.endswith(said) for s in shipped)
    # in Chinese too, and a store seeded with the earlier words reads the same
    with use_language("zh"):
        for stored in (said, " (USD = CNY × 0.138 in the file; kept in CNY)"):
            assert source_words(f"{SOURCE}, line 2{stored}").endswith(
                "（不使用文件自带的汇率 USD = CNY × 0.138：价格按 CNY 保存，按目录中注明日期的汇率换算）"
            )
