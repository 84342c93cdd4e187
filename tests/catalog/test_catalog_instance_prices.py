"""A price of one's own held to the catalog's prices of the same instance type: yuan typed as dollars
in a monthly row was taken (3800 "USD" a month for Alibaba's A10 instance, costed at 5.21 USD per
GPU-hour) because the catalog held no monthly price of it in the row's region and the GPU-wide 10x
range lets a seven-fold slip pass. The same pricing model in another region, then the on-demand price
hour for hour, is compared with; the refusal names the figure and how to vouch for a real price."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from gpuplan.catalog.importers.instance_prices import held_prices, off_the_instance
from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.store import Store
from gpuplan.cli import app

HEADER = (
    "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,"
    "pricing,price,currency,unit,as_of,source"
)
#: The shipped catalog holds this instance type's monthly price in cn-shanghai only (4,575.66 CNY,
#: 2023-06) and its on-demand price in cn-hangzhou (9.6166 CNY an hour), no monthly one there.
A10 = "alibaba,cn-hangzhou,,ecs.gn7i-c8g1.2xlarge,A10,1,8,30"
#: The instance type with twice the vCPUs: on demand only (10.1774 CNY an hour in cn-hangzhou), no
#: monthly price in any region.
A10_16 = "alibaba,cn-hangzhou,,ecs.gn7i-c16g1.4xlarge,A10,1,16,60"


def _file(tmp_path: Path, *lines: str) -> Path:
    f = tmp_path / "quote.csv"
    f.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return f


def _import(db: Path, f: Path, *extra: str) -> Result:
    return CliRunner().invoke(
        app, ["--db", str(db), "catalog", "import", str(f), "--format", "gpuplan", "--json", *extra]
    )


def _imported(db: Path, f: Path, *extra: str) -> dict[str, Any]:
    r = _import(db, f, *extra)
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def _reasons(doc: dict[str, Any]) -> dict[int, str]:
    return {row["line"]: row["reason"] for row in doc["rejected"]}


def test_yuan_typed_as_dollars_in_a_monthly_row_is_refused_against_another_regions_monthly_price(
    tmp_path: Path, db_path: Path
) -> None:
    # 3800 USD / 730 h = 5.21 USD per GPU-hour: inside 10x the A10's monthly range, so the GPU-wide
    # check let it pass. cn-shanghai's 4,575.66 CNY x 0.143148 = 655 USD; 3800 / 655 = 5.8x.
    bad = f"{A10},monthly,3800,USD,month,2026-11-20,yuan typed as dollars"
    doc = _imported(db_path, _file(tmp_path, bad))
    assert doc["import_id"] is None and doc["prices_imported"] == 0, doc
    assert _reasons(doc)[2] == (
        "monthly price 3800 USD/month of ecs.gn7i-c8g1.2xlarge in cn-hangzhou is 5.8x the monthly price "
        "the catalog holds for it in alibaba cn-shanghai (4,575.66 CNY/month as of 2023-06, 655 USD at "
        "the CNY rate of 2026-01-27), more than 2.6x off: yuan in a USD row? Write currency CNY (if the "
        "price is right, import it with --accept-price 2)"
    )


def test_the_refusal_reads_in_chinese(tmp_path: Path, db_path: Path) -> None:
    bad = f"{A10},monthly,3800,USD,month,2026-11-20,yuan typed as dollars"
    r = CliRunner().invoke(
        app,
        ["--db", str(db_path), "catalog", "import", str(_file(tmp_path, bad)), "--format", "gpuplan",
         "--lang", "zh"],
        env={"COLUMNS": "600"},
    )  # fmt: skip
    assert (
        "cn-hangzhou 的 ecs.gn7i-c8g1.2xlarge 的包月价格 3800 美元/月是目录中该实例类型在 alibaba "
        "cn-shanghai 的包月价格（4,575.66 人民币/月，日期 2023-06，按 2026-01-27 的人民币汇率合 655 美元）"
        "的 5.8 倍，相差超过 2.6 倍：是否把人民币价格写进了 USD 行？请将 currency 写为 CNY"
        "（如果价格无误，请用 --accept-price 2 导入）"
    ) in r.stdout, r.stdout


def test_a_real_monthly_price_of_a_region_the_catalog_holds_none_for_is_taken(
    tmp_path: Path, db_path: Path
) -> None:
    # the same quote in yuan: 3800 / 4,575.66 = 0.83x cn-shanghai's monthly price
    doc = _imported(db_path, _file(tmp_path, f"{A10},monthly,3800,CNY,month,2026-11-20,a real quote"))
    assert doc["rejected"] == [] and doc["prices_imported"] == 1, doc


def test_a_monthly_price_with_no_monthly_price_held_is_held_to_the_on_demand_price_hour_for_hour(
    tmp_path: Path, db_path: Path
) -> None:
    # on demand 10.1774 CNY x 730 h = 7,430 CNY a month: a real subscription of 4500 CNY is 0.61x of
    # it; 4500 "USD" is 0.61 / 0.143148 = 4.2x, and 650 "CNY" (a dollar quote in a yuan row) 0.087x
    real = f"{A10_16},monthly,4500,CNY,month,2026-11-20,a real quote"
    as_dollars = f"{A10_16},monthly,4500,USD,month,2026-11-20,yuan typed as dollars"
    as_yuan = f"{A10_16},monthly,650,CNY,month,2026-11-20,dollars typed as yuan"
    doc = _imported(db_path, _file(tmp_path, real, as_dollars, as_yuan))
    reasons = _reasons(doc)
    assert list(reasons) == [3, 4] and doc["prices_imported"] == 1, doc
    assert reasons[3].startswith(
        "monthly price 4500 USD/month of ecs.gn7i-c16g1.4xlarge in cn-hangzhou is, hour for hour, 4.2x "
        "the on_demand price the catalog holds for it in alibaba cn-hangzhou cn-hangzhou-"
    ), reasons
    assert (
        "outside the 0.2-1.8x a monthly price stands at: yuan in a USD row? Write currency CNY" in reasons[3]
    )
    assert "is, hour for hour, 0.087x the on_demand price" in reasons[4]
    assert "dollars in a CNY row? Write currency USD" in reasons[4]


#: An 8-GPU instance the shipped catalog holds a monthly price for in cn-shanghai (133,408 CNY, 2023-06).
A100_8 = "alibaba,cn-shanghai,,ecs.gn7e-c16g1.32xlarge,A100-SXM4-80GB,8,128,1000"


def test_one_gpus_price_for_an_instance_of_eight_is_named_as_such(tmp_path: Path, db_path: Path) -> None:
    # 13500 CNY (one A100's month) / 133,408 = 0.1x: near 1/8, and near 1/7 (dollars in a yuan row) too;
    # 2400 USD / 19,097 USD = 0.13x: near 1/8 only, a dollar row being no yuan slip downwards
    as_yuan = f"{A100_8},monthly,13500,CNY,month,2026-11-20,one GPU's price"
    as_dollars = f"{A100_8},monthly,2400,USD,month,2026-11-20,one GPU's price"
    reasons = _reasons(_imported(db_path, _file(tmp_path, as_yuan, as_dollars)))
    assert (
        "more than 2.6x off: a price per GPU for the whole instance? Write the price of all 8 GPUs (or, "
        "if it is in dollars, currency USD)" in reasons[2]
    ), reasons
    assert "a price per GPU for the whole instance? Write the price of all 8 GPUs (if" in reasons[3], reasons
    assert "currency" not in reasons[3].split("off:")[1], reasons


def test_a_price_the_user_vouches_for_is_imported_and_named_in_a_warning(
    tmp_path: Path, db_path: Path
) -> None:
    bad = f"{A10},monthly,3800,USD,month,2026-11-20,yuan typed as dollars"
    hourly = f"{A10},on_demand,3800,CNY,hour,2026-11-20,a monthly price typed as hourly"
    f = _file(tmp_path, bad, hourly)
    doc = _imported(db_path, f, "--accept-price", "2")
    assert doc["prices_imported"] == 1 and list(_reasons(doc)) == [3], doc
    assert _reasons(doc)[3].endswith("(if the price is right, import it with --accept-price 3)")
    [warning] = doc["warnings"]
    assert warning.startswith(
        "line 2 let through the check against the catalog's prices on your word (--accept-price 2): "
        "monthly price 3800 USD/month"
    ), warning
    history = CliRunner().invoke(
        app, ["--db", str(db_path), "catalog", "history", "--instance", "ecs.gn7i-c8g1.2xlarge", "--json"]
    )
    [taken] = [
        p
        for p in json.loads(history.stdout)["prices"]
        if p["region"] == "cn-hangzhou" and p["pricing"] == "monthly"
    ]
    assert (taken["pricing"], taken["published_currency"], taken["price_usd_per_month"]) == (
        "monthly",
        "USD",
        3800,
    )


def test_accept_price_names_lines_of_one_file(tmp_path: Path, db_path: Path) -> None:
    r = CliRunner().invoke(
        app,
        ["--db", str(db_path), "catalog", "import", "--skypilot", str(tmp_path), "--as-of", "2026-11",
         "--accept-price", "2"],
    )  # fmt: skip
    assert r.exit_code != 0 and "--accept-price names lines of one FILE" in str(r.exception), r.output


def test_no_price_of_the_shipped_catalog_is_off_its_own_instance_types_others(store: Store) -> None:
    # Each priced offer of the snapshot held, as if imported, to the catalog without it: a real price
    # refused here would be refused to every user who imports it. 9,040 prices.
    offers = [o for o in store.offers() if o.pricing is not None and o.price is not None]
    assert len(offers) > 9000
    held = held_prices(offers)
    rates = {"USD": 1.0, "CNY": store.exchange_rate("CNY").usd_per_unit}
    refused = []
    for o in offers:
        assert o.pricing is not None and o.price is not None and o.currency and o.unit and o.as_of
        p = PriceRow(
            pricing=o.pricing, amount=o.price, currency=o.currency, unit=o.unit, as_of=o.as_of, source="s",
            confidence="high",
        )  # fmt: skip
        row = OfferRow(
            provider=o.provider, region=o.region, zone=o.zone, instance_type=o.instance_type, gpu=o.gpu,
            gpu_count=o.gpu_count, vcpus=None, memory_gib=None, network_gbps=None, interconnect=None,
            source="s", prices=(p,),
        )  # fmt: skip
        others = [
            h
            for h in held.get((o.provider, o.instance_type), [])
            if (h.region, h.zone, h.pricing) != (o.region, o.zone or "", o.pricing)
        ]
        if (why := off_the_instance(row, p, rates[o.currency], others, None)) is not None:
            refused.append(str(why))
    assert refused == [], refused[:5]


def test_a_price_taken_on_the_users_word_is_marked_in_its_stored_source(
    tmp_path: Path, db_path: Path
) -> None:
    bad = f"{A10},monthly,3800,USD,month,2026-11-20,yuan typed as dollars"
    good = f"{A10_16},monthly,4500,CNY,month,2026-11-20,a real quote"
    r = _import(db_path, _file(tmp_path, bad, good), "--accept-price", "2")
    assert r.exit_code == 0, r.output
    history = CliRunner().invoke(
        app, ["--db", str(db_path), "catalog", "history", "--instance", "ecs.gn7i-c8g1.2xlarge", "--json"]
    )
    sources = [p["source"] for p in json.loads(history.stdout)["prices"] if p["as_of"] == "2026-11-20"]
    assert sources == [
        "yuan typed as dollars (own price list quote.csv, line 2) [taken past the catalog's price check: "
        "--accept-price 2]"
    ], sources
    other = CliRunner().invoke(
        app, ["--db", str(db_path), "catalog", "history", "--instance", "ecs.gn7i-c16g1.4xlarge", "--json"]
    )
    [real] = [p["source"] for p in json.loads(other.stdout)["prices"] if p["as_of"] == "2026-11-20"]
    assert "taken past" not in real, real  # a price held to the catalog's and passed carries no mark


def test_a_digit_lost_or_added_is_named_beside_the_currency(tmp_path: Path, db_path: Path) -> None:
    # Against cn-shanghai's 4,575.66 CNY a month: 458 CNY is 0.1x, where "dollars in a CNY row?" alone
    # had a user retype a real 25,000 yuan quote typed 2500 as 2500 USD (imported 30 % low, the
    # cheapest offer); 65 USD is 0.099x (no currency slip downwards in a dollar row); 45800 CNY is 10x.
    lost = f"{A10},monthly,458,CNY,month,2026-11-20,a zero lost"
    lost_usd = f"{A10},monthly,65,USD,month,2026-11-20,a zero lost"
    added = f"{A10},monthly,45800,CNY,month,2026-11-20,a zero added"
    reasons = _reasons(_imported(db_path, _file(tmp_path, lost, lost_usd, added)))
    assert "off: dollars in a CNY row? Write currency USD; or a digit lost (458 for 4580)? (if" in reasons[2]
    assert "off: a digit lost (65 for 650)? (if the price is right" in reasons[3], reasons
    assert "off: a digit too many (45800 for 4580)? (if the price is right" in reasons[4], reasons
    # a slip of the currency alone names no digit: 3800 USD is 5.8x
    one = _reasons(_imported(db_path, _file(tmp_path, f"{A10},monthly,3800,USD,month,2026-11-20,x")))
    assert "digit" not in one[2], one
