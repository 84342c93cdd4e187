"""``catalog import FILE --format gpuplan``: a price list of one's own (a negotiated 包年包月 quote, a
Huawei Cloud price) enters the catalog as written — yuan kept in yuan and converted at the catalog's
dated rate, a monthly price per month — and a row that is not what it says is refused with the
user's own figure: a region that does not exist, a GPU name that resolves to nothing, a monthly price
typed as hourly. A file unusable as a whole changes nothing."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from gpuplan.catalog import open_store
from gpuplan.catalog.importers.own import COLUMNS, parse_own
from gpuplan.cli import app
from gpuplan.errors import CatalogImportError, InputError
from gpuplan.units import HOURS_PER_MONTH

ROOT = Path(__file__).resolve().parents[2]
TODAY = date(2026, 11, 30)
EXAMPLE = ROOT / "examples" / "prices" / "alibaba-quote.csv"
HEADER = (
    "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,"
    "pricing,price,currency,unit,as_of,source"
)
#: 8 x A100 80GB on Alibaba, a 包年包月 quote in yuan.
ALIBABA_MONTHLY = (
    "alibaba,cn-hangzhou,,ecs.gn7e-c16g1.32xlarge,A100-SXM4-80GB,8,128,1000,monthly,160000,CNY,month,"
    "2026-11-20,Alibaba Cloud account manager's quote (e-mail of 2026-11-18)"
)
HUAWEI_ON_DEMAND = (
    "huawei,cn-north-4,,p3.16xlarge.8,A100-SXM4-80GB,8,64,512,on_demand,260,CNY,hour,2026-11-20,"
    "Huawei Cloud price calculator read by our team"
)


def _file(tmp_path: Path, *lines: str, name: str = "prices.csv", header: str = HEADER) -> Path:
    f = tmp_path / name
    f.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return f


def _import(db: Path, f: Path, *extra: str) -> Result:
    return CliRunner().invoke(
        app, ["--db", str(db), "catalog", "import", str(f), "--format", "gpuplan", *extra]
    )


def _imported(db: Path, f: Path, *extra: str) -> dict[str, Any]:
    r = _import(db, f, "--json", *extra)
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def _reasons(doc: dict[str, Any]) -> dict[int, str]:
    return {row["line"]: row["reason"] for row in doc["rejected"]}


def _offers(db: Path, *args: str) -> list[dict[str, Any]]:
    r = CliRunner().invoke(app, ["--db", str(db), "offers", "--all-regions", "--json", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["offers"]  # type: ignore[no-any-return]


def _prices(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM prices").fetchone()[0])


def _usd_per_cny(db: Path) -> float:
    store = open_store(str(db), today=TODAY)
    try:
        return float(store.exchange_rate("CNY").usd_per_unit)
    finally:
        store.close()


def test_a_yuan_monthly_quote_for_alibaba_is_kept_in_yuan_and_costed_at_the_catalog_rate(
    tmp_path: Path, db_path: Path
) -> None:
    doc = _imported(db_path, _file(tmp_path, ALIBABA_MONTHLY))
    assert doc["rejected"] == [] and doc["prices_imported"] == 1, doc
    [offer] = [
        o
        for o in _offers(db_path, "--provider", "alibaba", "--region", "cn-hangzhou", "--pricing", "monthly")
        if o["instance_type"] == "ecs.gn7e-c16g1.32xlarge"
    ]
    rate = _usd_per_cny(db_path)
    assert offer["published_currency"] == "CNY" and offer["published_unit"] == "month"
    assert offer["price_cny_per_month"] == pytest.approx(160000)
    assert offer["price_usd_per_hour"] == pytest.approx(160000 / HOURS_PER_MONTH * rate)
    assert offer["price_usd_per_gpu_hour"] == pytest.approx(160000 / HOURS_PER_MONTH * rate / 8)
    assert offer["as_of"] == "2026-11-20" and offer["confidence"] == "high"
    assert offer["source"].startswith("Alibaba Cloud account manager's quote (e-mail of 2026-11-18)")
    assert "line 2" in offer["source"]


def test_a_huawei_on_demand_row_imports_and_is_listed_at_its_price(tmp_path: Path, db_path: Path) -> None:
    doc = _imported(db_path, _file(tmp_path, HUAWEI_ON_DEMAND))
    assert doc["provider"] == "huawei" and doc["rejected"] == [], doc
    [offer] = [
        o
        for o in _offers(db_path, "--provider", "huawei", "--pricing", "on_demand")
        if o["region"] == "cn-north-4"
    ]
    assert offer["instance_type"] == "p3.16xlarge.8" and offer["gpu"] == "A100-SXM4-80GB"
    assert offer["gpu_count"] == 8 and offer["vcpus"] == 64
    assert offer["price_usd_per_hour"] == pytest.approx(260 * _usd_per_cny(db_path))


def test_a_yuan_figure_is_never_read_as_dollars(tmp_path: Path, db_path: Path) -> None:
    # SkyPilot's layout reads Alibaba's Price as USD converted from CNY: a file in yuan came out
    # ~7.2x too dear. Here the currency is stated on every row, and never guessed.
    no_currency = ALIBABA_MONTHLY.replace(",CNY,", ",,")
    doc = _imported(db_path, _file(tmp_path, no_currency))
    assert _reasons(doc) == {2: "currency is empty"}
    before = _prices(db_path)
    without_column = _file(
        tmp_path, ALIBABA_MONTHLY.replace(",CNY,", ","), header=HEADER.replace(",currency", "")
    )
    r = _import(db_path, without_column)
    assert isinstance(r.exception, CatalogImportError), r.output
    assert "lacks the columns currency" in str(r.exception)
    assert _prices(db_path) == before
    # Stated in yuan, stored in yuan: the dollar figure is the yuan one times the dated rate (< 1).
    _imported(db_path, _file(tmp_path, HUAWEI_ON_DEMAND))
    [offer] = [o for o in _offers(db_path, "--provider", "huawei") if o["region"] == "cn-north-4"]
    assert offer["price_usd_per_hour"] < 260 * 0.2


#: The A10 instance the shipped catalog prices in yuan in cn-beijing (9.6166 CNY an hour on demand,
#: Alibaba's price API through the SkyPilot-format fork), with that yuan figure typed as dollars.
A10_YUAN_AS_USD = (
    "alibaba,cn-beijing,,ecs.gn7i-c8g1.2xlarge,A10,1,8,30,on_demand,9.6166,USD,hour,2026-11-20,"
    "a colleague's list"
)


def test_a_yuan_figure_in_a_usd_row_is_refused_naming_the_catalogs_yuan_price(
    tmp_path: Path, db_path: Path
) -> None:
    # 9.6166 read as dollars is about 7x the offer's price: inside the 10x band of the A10's
    # on-demand prices, so only the same instance type's yuan price shows the slip.
    doc = _imported(db_path, _file(tmp_path, A10_YUAN_AS_USD, ALIBABA_MONTHLY))
    reasons = _reasons(doc)
    assert list(reasons) == [2], reasons
    assert reasons[2] == (
        "on_demand price 9.6166 USD/hour of ecs.gn7i-c8g1.2xlarge in cn-beijing is 7x the on_demand price "
        "the catalog holds for it in alibaba cn-beijing cn-beijing-i (9.6166 CNY/hour as of "  # held per zone
        "2020-11/2026-12-03, 1.377 USD at the CNY rate of 2026-01-27), more than 2.6x off: yuan in a USD "
        "row? Write currency CNY (if the price is right, import it with --accept-price 2)"
    ), reasons
    # In yuan, as the price is, the same row imports; a dollar price of the offer does too.
    doc = _imported(db_path, _file(tmp_path, A10_YUAN_AS_USD.replace(",USD,", ",CNY,")))
    assert doc["rejected"] == [] and doc["prices_imported"] == 1, doc
    doc = _imported(db_path, _file(tmp_path, A10_YUAN_AS_USD.replace(",9.6166,", ",1.3271,")))
    assert doc["rejected"] == [] and doc["prices_imported"] == 1, doc


def test_a_region_that_does_not_exist_or_an_unknown_gpu_is_refused_with_the_nearest_names(
    tmp_path: Path, db_path: Path
) -> None:
    atlantis = ALIBABA_MONTHLY.replace("cn-hangzhou", "cn-atlantis")
    typo = ALIBABA_MONTHLY.replace("cn-hangzhou", "cn-hangzou")
    h1000 = ALIBABA_MONTHLY.replace("A100-SXM4-80GB", "H1000")
    a100 = ALIBABA_MONTHLY.replace("A100-SXM4-80GB", "A100")
    doc = _imported(db_path, _file(tmp_path, atlantis, typo, h1000, a100, ALIBABA_MONTHLY))
    reasons = _reasons(doc)
    assert reasons[2].startswith("unknown region of alibaba 'cn-atlantis'"), reasons
    assert reasons[3].startswith("unknown region of alibaba 'cn-hangzou'; did you mean 'cn-hangzhou'")
    assert reasons[4].startswith("unknown GPU 'H1000'; did you mean"), reasons
    assert reasons[5] == (
        "GPU 'A100' is ambiguous; say which one: "
        "A100-PCIE-40GB, A100-PCIE-80GB, A100-SXM4-40GB, A100-SXM4-80GB"
    )
    assert doc["prices_imported"] == 1  # the good row of the file
    # The region that does not exist is nowhere in the catalog (it ranked first in plan --countries CN).
    assert not [o for o in _offers(db_path, "--provider", "alibaba") if o["region"] == "cn-atlantis"]


def test_a_monthly_price_typed_as_hourly_is_refused_naming_both_figures(
    tmp_path: Path, db_path: Path
) -> None:
    hourly = ALIBABA_MONTHLY.replace(",monthly,160000,CNY,month,", ",on_demand,160000.00,CNY,hour,")
    tiny = ALIBABA_MONTHLY.replace(",160000,", ",30,")
    doc = _imported(db_path, _file(tmp_path, hourly, tiny))
    reasons = _reasons(doc)
    # no on-demand price of the instance type in cn-hangzhou: cn-shanghai's 277.93 CNY an hour
    assert reasons[2].startswith(
        "on_demand price 160000.00 CNY/hour of ecs.gn7e-c16g1.32xlarge in cn-hangzhou is 576x the "
        "on_demand price the catalog holds for it in alibaba cn-shanghai (277.93 CNY/hour as of 2023-06, "
    ), reasons
    assert "more than 2.6x off: a monthly price typed as hourly?" in reasons[2]
    # cn-shanghai's monthly price, 30 / 133,408
    assert reasons[3].startswith(
        "monthly price 30 CNY/month of ecs.gn7e-c16g1.32xlarge in cn-hangzhou is 0.00022x the monthly "
        "price the catalog holds for it in alibaba cn-shanghai (133,408 CNY/month as of 2023-06, "
    ), reasons
    assert "an hourly price typed as monthly?" in reasons[3]
    assert doc["import_id"] is None


def test_a_gpu_count_the_gates_refuse_is_refused_for_the_count_not_the_price_it_divides(
    tmp_path: Path, db_path: Path
) -> None:
    # 100,000 GPUs in one instance made a sound price look a thousandth of the cheapest A100's.
    many = ALIBABA_MONTHLY.replace(",A100-SXM4-80GB,8,", ",A100-SXM4-80GB,100000,")
    reasons = _reasons(_imported(db_path, _file(tmp_path, many)))
    assert reasons[2].startswith("GPU count 100000 is outside 0.1 <= count <= 16"), reasons
    assert "the catalog holds" not in reasons[2]


def test_a_price_of_a_kind_the_catalog_holds_none_of_has_nothing_to_be_out_of_line_with(
    tmp_path: Path, db_path: Path
) -> None:
    # No reserved_1y A10 price anywhere in the catalog: the row is the only one of its kind.
    row = (
        "alibaba,cn-beijing,,ecs.gn7i-c8g1.2xlarge,A10,1,8,30,reserved_1y,2600,CNY,month,2026-11,"
        "quote of 2026-11"
    )
    assert not _offers(db_path, "--gpu", "A10", "--pricing", "reserved_1y")
    doc = _imported(db_path, _file(tmp_path, row))
    assert doc["rejected"] == [] and doc["prices_imported"] == 1, doc
    [offer] = _offers(db_path, "--gpu", "A10", "--pricing", "reserved_1y")
    assert offer["price_cny_per_month"] == pytest.approx(2600)


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            ",CNY,",
            ",EUR,",
            "EUR is not a currency gpuplan prices in (the catalog has no dated EUR rate): use USD or CNY",
        ),
        (",month,", ",months,", "unknown price unit 'months'; did you mean 'month'?"),
        (",monthly,", ",montly,", "unknown pricing model 'montly'; did you mean 'monthly'?"),
        (",monthly,", ",yearly,", "did you mean 'reserved_1y'?"),
        (",month,", ",hour,", "monthly price in unit 'hour'; expected month"),
        (",160000,", ",-1.5,", "price -1.5 CNY/month is not a positive amount"),
        (",160000,", ",1_5,", "price '1_5' is not a number"),
        # a number with its currency or unit in the cell: had been "is not a number", no more
        (
            ",160000,",
            ",16万元/月,",
            "price '16万元/月' is not a number",
        ),
        (
            ",160000,",
            ",160000元/月,",
            "price '160000元/月' holds its currency or unit: write the number (160000) in price, the "
            "currency in currency (CNY, USD) and the unit in unit (hour, month)",
        ),
        (",160000,", ",¥160000,", "write the number (160000) in price"),
        (",160000,", ",$2.5/h,", "write the number (2.5) in price"),
        (",160000,", ",2.5 USD/hour,", "write the number (2.5) in price"),
        # an Alibaba Cloud console name, as plan --regions reads it: had been the list of codes alone
        (
            ",cn-hangzhou,",
            ",华东1,",
            "region '华东1' is a console name, of 杭州; write alibaba's region code: did you mean "
            "'cn-hangzhou'?",
        ),
        (",2026-11-20,", ",2099-01-01,", "as_of '2099-01-01' is after today"),
        (",2026-11-20,", ",20.11.2026,", "as_of '20.11.2026' is not a date"),
        (",8,128,", ",0,128,", "GPU count 0 is outside"),
        (
            ",Alibaba Cloud",
            ",\x1b]0;title\x07Alibaba Cloud",
            "source is not a line of at most 300 characters",
        ),
        (",2026-11-20,", ",,", "as_of is empty: write the day the price was quoted"),
    ],
)
def test_a_bad_currency_unit_pricing_figure_or_date_is_refused(
    tmp_path: Path, db_path: Path, old: str, new: str, said: str
) -> None:
    assert old in ALIBABA_MONTHLY
    doc = _imported(db_path, _file(tmp_path, ALIBABA_MONTHLY.replace(old, new, 1)))
    [reason] = _reasons(doc).values()
    assert said in reason, reason
    assert doc["import_id"] is None


def test_a_yuan_refusal_quotes_the_users_figure_not_a_converted_one(tmp_path: Path, db_path: Path) -> None:
    doc = _imported(db_path, _file(tmp_path, HUAWEI_ON_DEMAND.replace(",260,", ",-1.5,")))
    [reason] = _reasons(doc).values()
    assert reason == "price -1.5 CNY/hour is not a positive amount"


@pytest.mark.parametrize(
    ("header", "lines", "said"),
    [
        (
            HEADER.replace("currency", "currnecy"),
            [ALIBABA_MONTHLY],
            "unknown column 'currnecy'; did you mean 'currency'?",
        ),
        (HEADER.replace(",source", ""), [ALIBABA_MONTHLY.rsplit(",", 1)[0]], "lacks the columns source"),
        (HEADER + ",price", [ALIBABA_MONTHLY + ",1"], "has the columns price more than once"),
        (HEADER, [], "has no price rows"),
        (HEADER, [ALIBABA_MONTHLY, HUAWEI_ON_DEMAND], "names 2 providers (alibaba, huawei)"),
        (
            HEADER,
            [ALIBABA_MONTHLY.replace("alibaba", "alibabba")],
            "no row of {file} names a provider gpuplan knows (line 2: unknown provider 'alibabba'; "
            "did you mean 'alibaba'",
        ),
        (HEADER, [ALIBABA_MONTHLY, 'alibaba,"cn-hangzhou'], "nothing was imported"),
    ],
)
def test_a_file_unusable_as_a_whole_changes_nothing(
    tmp_path: Path, db_path: Path, header: str, lines: list[str], said: str
) -> None:
    before = _prices(db_path)
    f = _file(tmp_path, *lines, header=header)
    r = _import(db_path, f)
    assert isinstance(r.exception, CatalogImportError), r.output
    message = str(r.exception)
    said = said.format(file=f)
    assert said in message and message.endswith("nothing was imported") and "\n" not in message, message
    assert _prices(db_path) == before


@pytest.mark.parametrize("provider", [["--provider", "alibaba"], []])
def test_a_price_list_imported_without_its_format_is_told_to_give_it(
    db_path: Path, provider: list[str]
) -> None:
    # It was read as a SkyPilot file (the default layout): "a SkyPilot catalog file carries no date:
    # give --as-of", then with a date the SkyPilot columns it lacks, never the --format it needs.
    before = _prices(db_path)
    r = CliRunner().invoke(app, ["--db", str(db_path), "catalog", "import", str(EXAMPLE), *provider])
    assert isinstance(r.exception, CatalogImportError | InputError), r.output
    assert str(r.exception) == (
        "this file is a gpuplan price list (provider, pricing, price, currency, unit, as_of, source), "
        "not a SkyPilot catalog: give --format gpuplan; nothing was imported"
    )
    assert _prices(db_path) == before


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("prices.csv", "root:$6$saltsalt$hashhash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"),
        ("prices.json", '[{"root": "$6$saltsalt$hashhash"}]'),
    ],
)
def test_a_link_to_a_file_that_is_no_price_list_is_refused_without_quoting_it(
    tmp_path: Path, db_path: Path, name: str, text: str
) -> None:
    # On a server the path may be a symlink to any file the service can read: the refusal names the
    # path and what was expected, never a line (or key) of the file it leads to.
    secret = tmp_path / "shadow"
    secret.write_text(text, encoding="utf-8")
    link = tmp_path / name
    link.symlink_to(secret)
    before = _prices(db_path)
    r = _import(db_path, link)
    assert isinstance(r.exception, CatalogImportError), r.output
    message = str(r.exception)
    assert message == (
        f"{link} is not a gpuplan price list: it names none of the price-list columns (expected CSV "
        f"or JSON with the columns {', '.join(COLUMNS)}); nothing was imported"
    )
    assert "root" not in r.output and "hash" not in r.output
    assert _prices(db_path) == before


def test_a_catalog_export_given_as_a_price_list_is_refused_saying_what_it_is(
    tmp_path: Path, db_path: Path
) -> None:
    # A colleague's `catalog export`: its rows carry the catalog's confidence (a low-confidence price
    # imported as one's own would be trusted by plan) and figures derived at their rate.
    export = tmp_path / "export.csv"
    r = CliRunner().invoke(app, ["--db", str(db_path), "catalog", "export", "--out", str(export)])
    assert r.exit_code == 0, r.output
    lines = export.read_text(encoding="utf-8").splitlines()
    huawei = _file(tmp_path, *[x for x in lines[1:] if x.startswith("huawei,")][:2], header=lines[0])
    before = _prices(db_path)
    r = _import(db_path, huawei)
    assert isinstance(r.exception, CatalogImportError), r.output
    assert str(r.exception) == (
        f"{huawei} is a `gpuplan catalog export` file, not a price list: its confidence and the "
        "figures it derived would be lost or taken as your own quote; keep the columns provider, "
        "region, instance_type, gpu, gpu_count, pricing, price, currency, unit, as_of, source "
        "(and zone, vcpus, memory_gib) of the rows you were quoted; nothing was imported"
    )
    assert _prices(db_path) == before


def test_as_of_dates_the_rows_that_leave_it_empty(tmp_path: Path, db_path: Path) -> None:
    undated = HUAWEI_ON_DEMAND.replace(",2026-11-20,", ",,")
    doc = _imported(db_path, _file(tmp_path, undated), "--as-of", "2026-11")
    assert doc["rejected"] == [], doc
    [offer] = [o for o in _offers(db_path, "--provider", "huawei") if o["region"] == "cn-north-4"]
    assert offer["as_of"] == "2026-11" and offer["as_of_precision"] == "month"


def test_a_file_past_the_row_cap_changes_nothing(
    tmp_path: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpuplan.catalog.importers.own as own
    import gpuplan.catalog.importers.skypilot_common as common

    monkeypatch.setattr(common, "MAX_CSV_ROWS", 2)
    monkeypatch.setattr(own, "MAX_CSV_ROWS", 2)
    # Refused before any row is checked: checking 200,000 rows (names, regions, dates) took over a
    # minute, to be told at the end that the file is too long.
    checked: list[int] = []
    real_row = own._row
    monkeypatch.setattr(own, "_row", lambda *a, **kw: checked.append(1) or real_row(*a, **kw))
    before = _prices(db_path)
    rows = [
        ALIBABA_MONTHLY.replace("cn-hangzhou", region)
        for region in ("cn-hangzhou", "cn-beijing", "cn-shanghai")
    ]
    for f in (_file(tmp_path, *rows), tmp_path / "prices.json"):
        if f.suffix == ".json":
            entries = [dict(zip(HEADER.split(","), line.split(","), strict=True)) for line in rows]
            f.write_text(json.dumps(entries), encoding="utf-8")
        r = _import(db_path, f)
        assert isinstance(r.exception, CatalogImportError), r.output
        assert "has more than 2 rows, the limit of a price file" in str(r.exception)
        assert checked == [], f
    assert _prices(db_path) == before


def test_provider_picks_one_provider_of_a_file_that_prices_several(tmp_path: Path, db_path: Path) -> None:
    f = _file(tmp_path, ALIBABA_MONTHLY, HUAWEI_ON_DEMAND)
    r = _import(db_path, f, "--json", "--provider", "aliyun")  # an alias of alibaba
    doc = json.loads(r.stdout)
    assert doc["provider"] == "alibaba" and doc["prices_imported"] == 1
    assert r.exit_code == 0, r.output
    # the other provider's row is left out by the user's choice, not rejected: the import exits 0
    # (it exited 3, as if a row had been lost, its reason "provider 'huawei' in an import for
    # 'alibaba'")
    assert doc["rejected"] == []
    assert [(r["line"], r["reason"]) for r in doc["skipped"]] == [
        (3, "a row of huawei, not of alibaba (--provider alibaba)")
    ]


#: A row of Tencent Cloud with its provider misspelt: a provider gpuplan does not know.
TENCENT_MISSPELT = (
    "tencnet,ap-shanghai,,GT4.41XLARGE948,A100-SXM4-40GB,8,164,948,on_demand,200,CNY,hour,2026-11-20,"
    "Tencent Cloud price calculator"
)


def test_a_file_of_several_providers_is_refused_naming_each_one_gpuplan_does_not_know(
    tmp_path: Path, db_path: Path
) -> None:
    # it named the two it knew ("names 2 providers (alibaba, huawei)"): the third's rows went unsaid
    before = _prices(db_path)
    f = _file(tmp_path, ALIBABA_MONTHLY, HUAWEI_ON_DEMAND, TENCENT_MISSPELT)
    r = _import(db_path, f)
    assert isinstance(r.exception, CatalogImportError) and r.exit_code == 1, r.output
    assert str(r.exception) == (
        f"{f} names 3 providers (alibaba, huawei, tencnet): import one provider at a time with "
        "--provider; 'tencnet' (line 4) is not a provider gpuplan knows; did you mean 'tencent'?; "
        "nothing was imported"
    )
    assert _prices(db_path) == before


def test_provider_names_each_provider_it_left_out_and_each_it_does_not_know(
    tmp_path: Path, db_path: Path
) -> None:
    f = _file(tmp_path, ALIBABA_MONTHLY, HUAWEI_ON_DEMAND, TENCENT_MISSPELT)
    r = CliRunner().invoke(
        app,
        ["--db", str(db_path), "catalog", "import", str(f), "--format", "gpuplan", "--provider", "huawei"],
        env={"COLUMNS": "200"},
    )
    # the huawei row is imported, alibaba's left out as asked, the misspelt one's lost: exit 3
    assert r.exit_code == 3, r.output
    lines = r.stdout.splitlines()
    assert (
        "'tencnet' is not a provider gpuplan knows; did you mean 'tencent'?: 1 row rejected (line 4)" in lines
    )
    assert "alibaba: 1 row not imported, another provider than the one imported (line 2)" in lines


def test_the_same_list_as_json_reads_like_the_csv(tmp_path: Path, db_path: Path) -> None:
    csv_rows = parse_own(_file(tmp_path, ALIBABA_MONTHLY, HUAWEI_ON_DEMAND), provider="huawei", today=TODAY)
    entries = [
        dict(zip(HEADER.split(","), line.split(","), strict=True))
        for line in (ALIBABA_MONTHLY, HUAWEI_ON_DEMAND)
    ]
    for e in entries:
        e["gpu_count"], e["price"] = int(e["gpu_count"]), float(e["price"])  # numbers as JSON writes them
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"prices": entries}), encoding="utf-8")
    json_rows = parse_own(f, provider="huawei", today=TODAY)
    strip = lambda rows: [(r.region, r.instance_type, r.gpu, r.gpu_count, r.prices[0].amount) for r in rows]  # noqa: E731
    assert strip(json_rows.rows) == strip(csv_rows.rows) != []
    assert _imported(db_path, f, "--provider", "huawei")["prices_imported"] == 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{**entries[1], "price": [1]}]), encoding="utf-8")
    [refused] = parse_own(bad, today=TODAY).rejected
    assert refused.reason == "price is not a text or a number"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100 + "]" * 100, encoding="utf-8")
    with pytest.raises(CatalogImportError, match="nested too deeply"):
        parse_own(deep, today=TODAY)


def test_the_example_price_list_imports_whole(db_path: Path) -> None:
    header = EXAMPLE.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert set(COLUMNS) <= set(header)
    doc = _imported(db_path, EXAMPLE)
    assert doc["rejected"] == [] and doc["prices_imported"] >= 3, doc


def test_tco_costs_with_an_imported_monthly_price(tmp_path: Path, db_path: Path) -> None:
    # Huawei Cloud has no A100 80GB price in the shipped catalog: tco cannot plan the year.
    monthly = HUAWEI_ON_DEMAND.replace(",on_demand,260,CNY,hour,", ",monthly,120000,CNY,month,")
    usage = tmp_path / "u.yaml"
    usage.write_text(
        "horizon_months: 12\nstart: 2027-01\n"
        "demands:\n  - {name: train, gpu: A100-SXM4-80GB, gpus: 8, hours_per_month: 730}\n"
        "constraints: {providers: [huawei], pricing: [on_demand, monthly, reserved_1y]}\n",
        encoding="utf-8",
    )
    tco = ["--db", str(db_path), "tco", str(usage), "--json"]
    assert CliRunner().invoke(app, tco).exit_code != 0
    doc = _imported(db_path, _file(tmp_path, HUAWEI_ON_DEMAND, monthly))
    assert doc["prices_imported"] == 2, doc
    r = CliRunner().invoke(app, tco)
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    used = {(c["instance_type"], c["pricing"]) for c in report["commitments"]}
    assert used == {("p3.16xlarge.8", "monthly")}
    month = 120000 * _usd_per_cny(db_path)
    assert all(c["cost_usd"] == pytest.approx(month, abs=0.01) for c in report["commitments"])
    assert report["total_cost_usd"] == pytest.approx(12 * month, abs=0.5)
    # The reserved price still missing: the report says how to add one of one's own.
    [unknown] = report["unknown_prices"]
    assert unknown["pricing"] == "reserved_1y" and unknown["gpu"] == "A100-SXM4-80GB"
    assert "`gpuplan catalog import FILE --format gpuplan` adds a price list of your own" in unknown["fill"]


@pytest.mark.parametrize("lead", ["=", "+", "-", "@"])
def test_a_source_a_spreadsheet_would_run_as_a_formula_is_exported_as_text(
    tmp_path: Path, db_path: Path, lead: str
) -> None:
    # A price list's free-text source such as =HYPERLINK(…) went into the CSV export as it was, and a
    # spreadsheet opening the export evaluates a cell that starts with = + - or @ (CSV injection).
    source = f'"{lead}HYPERLINK(""http://example.invalid"",""quote"")"'
    row = HUAWEI_ON_DEMAND.replace("Huawei Cloud price calculator read by our team", source)
    doc = _imported(db_path, _file(tmp_path, row))
    assert doc["rejected"] == [], doc
    r = CliRunner().invoke(app, ["--db", str(db_path), "catalog", "export"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    [mine] = [x for x in rows if x["provider"] == "huawei" and "HYPERLINK" in x["source"]]
    assert mine["source"].startswith(f"'{lead}HYPERLINK("), mine["source"]
    # No other text cell starts a formula either (a negative figure is a number, not a formula).
    cells = [v for x in rows for v in x.values() if v and not _number(v)]
    assert not [v for v in cells if v.startswith(("=", "+", "-", "@"))]
    # JSON is read by programs, not spreadsheets: the source stays as it was quoted.
    r = CliRunner().invoke(app, ["--db", str(db_path), "catalog", "export", "--format", "json"])
    [quoted] = [o for o in json.loads(r.stdout)["offers"] if "HYPERLINK" in (o["source"] or "")]
    assert quoted["source"].startswith(f"{lead}HYPERLINK(")


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("columns", ["80", "150"])
def test_a_very_long_name_in_a_rejected_row_leaves_its_line_and_reason_on_screen(
    tmp_path: Path, db_path: Path, columns: str
) -> None:
    # A 5,000-character instance type filled the rejected table's unwrapped name column, and the
    # table dropped the line and reason columns that did not fit: the refusal said nothing of why.
    row = HUAWEI_ON_DEMAND.replace("p3.16xlarge.8", "p" * 5000)
    r = CliRunner().invoke(
        app,
        ["--db", str(db_path), "catalog", "import", str(_file(tmp_path, row)), "--format", "gpuplan"],
        env={"COLUMNS": columns},
    )
    assert isinstance(r.exception, CatalogImportError), r.output
    said = " ".join(r.output.split())
    assert "reason" in said and " 2 " in said and "is not a name" in said, r.output
    assert "p" * 100 not in r.output  # the name is cut, not folded over screens


@pytest.mark.parametrize("sep", [";", "\t"])
def test_a_price_list_saved_with_another_separator_says_so(tmp_path: Path, db_path: Path, sep: str) -> None:
    # A spreadsheet in a locale whose decimal mark is a comma saves "CSV" with semicolons: the whole
    # header was one unknown column 'provider;region;…', and the message did not say why.
    f = _file(tmp_path, HUAWEI_ON_DEMAND.replace(",", sep), header=HEADER.replace(",", sep))
    before = _prices(db_path)
    r = _import(db_path, f)
    assert isinstance(r.exception, CatalogImportError), r.output
    message = str(r.exception)
    name = repr(sep)
    assert message == (
        f"{f}: its columns are separated by {name}, not by commas: save it as CSV (comma-separated, "
        "UTF-8); nothing was imported"
    )
    assert _prices(db_path) == before


def test_a_spot_price_of_ones_own_keeps_the_offers_interruption_band(tmp_path: Path, db_path: Path) -> None:
    # was: the band (AWS Spot Advisor's, a fact of the instance type in its region) sat on the
    # snapshot's price row only, so the newer price of one's own left the offer without it
    def band() -> str | None:
        [o] = [
            o
            for o in _offers(db_path, "--provider", "aws", "--pricing", "spot", "--gpu", "T4")
            if (o["instance_type"], o["region"], o["zone"]) == ("g4dn.xlarge", "me-south-1", "mes1-az2")
        ]
        return o["interruption_band"]  # type: ignore[no-any-return]

    before = band()
    assert before is not None
    seen = "aws,me-south-1,mes1-az2,g4dn.xlarge,T4,1,4,16,spot,0.1107,USD,hour,2026-11-29,seen in the console"
    assert _imported(db_path, _file(tmp_path, seen))["rejected"] == []
    assert band() == before


def test_an_undated_spot_price_of_ones_own_is_still_held_to_the_regions_dated_one(
    tmp_path: Path, db_path: Path
) -> None:
    # was: a spot price re-imported from an export (dated only "2025-06/2026-12-02") lost the
    # region's dated spot price it is costed at, so its own lower figure came back as the cost
    def costed() -> tuple[float | None, float | None]:
        [o] = [
            o
            for o in _offers(db_path, "--provider", "aws", "--pricing", "spot", "--gpu", "L4")
            if (o["instance_type"], o["zone"]) == ("g6f.large", "eun1-az1")
        ]
        floor = o["floor"]
        return (
            (floor["best_case_usd_per_hour"], o["price_usd_per_hour"])
            if floor
            else (o["price_usd_per_hour"], None)
        )

    price, floor = costed()
    assert floor is not None and floor > price  # type: ignore[operator]
    again = "aws,eu-north-1,eun1-az1,g6f.large,L4,0.125,2,8,spot,0.024,USD,hour,2025-07/2026-11-29,again"
    assert _imported(db_path, _file(tmp_path, again))["rejected"] == []
    assert costed() == (0.024, floor)


def test_a_partial_import_keeps_its_good_rows_and_exits_3(tmp_path: Path, db_path: Path) -> None:
    # a nightly script had seen exit 0 whenever one row passed, and so missed the rows it lost
    bad = HUAWEI_ON_DEMAND.replace("on_demand,260,", "on_demand,-5,", 1)
    before = _prices(db_path)
    r = _import(db_path, _file(tmp_path, HUAWEI_ON_DEMAND, bad))
    assert r.exit_code == 3, r.output
    assert _prices(db_path) == before + 1  # the good row is imported all the same
    assert r.stderr.strip().endswith(
        "rejected: 1 (listed above); the others were imported (exit status 3)"
    ), r.stderr
    doc = _imported(db_path, _file(tmp_path, HUAWEI_ON_DEMAND, bad, name="again.csv"))
    # --json: the same report (the good row's price is recorded already: not again)
    assert doc["prices_imported"] == 0 and doc["prices_already_recorded"] == 1, doc
    assert list(_reasons(doc)) == [3], doc
    assert _import(db_path, _file(tmp_path, HUAWEI_ON_DEMAND, name="whole.csv")).exit_code == 0
    assert _import(db_path, _file(tmp_path, bad, name="none.csv")).exit_code == 1


def test_a_price_typed_full_width_is_read_as_its_digits(tmp_path: Path, db_path: Path) -> None:
    # A price typed with a Chinese input method, ２６０．５: it was "price ... is not a number".
    row = HUAWEI_ON_DEMAND.replace(",260,", ",２６０．５,")
    doc = _imported(db_path, _file(tmp_path, row))
    assert doc["rejected"] == [] and doc["prices_imported"] == 1, doc


def test_a_console_name_of_another_provider_is_its_region_in_that_city(tmp_path: Path, db_path: Path) -> None:
    """Volcengine's 华东2 is Shanghai, as Alibaba Cloud's is: its cn-shanghai is suggested (the row had
    been refused with the list of its regions and no "did you mean")."""
    row = "volcengine,华东2,,ecs.gni2.3xlarge,A10,1,12,46,monthly,4200,CNY,month,2026-11-20,quote"
    [reason] = _reasons(_imported(db_path, _file(tmp_path, row))).values()
    assert reason == (
        "region '华东2' is a console name, of 上海; write volcengine's region code: "
        "did you mean 'cn-shanghai'?"
    )


def test_a_zone_written_as_the_region_is_pointed_to_the_zone_column_and_a_country_to_its_code(
    tmp_path: Path, db_path: Path
) -> None:
    # was: "unknown region of runpod 'EU-RO-1'" with no name near it, for RunPod's data centre in RO
    row = "runpod,{region},,1x_RTX4090_COMMUNITY,RTX-4090,1,16,62,on_demand,0.34,USD,hour,2026-11-20,quote"
    rows = [row.format(region=r) for r in ("EU-RO-1", "Romania")]
    reasons = _reasons(_imported(db_path, _file(tmp_path, *rows)))
    assert reasons[2] == (
        "unknown region of runpod 'EU-RO-1': EU-RO-1 is a zone of region RO: put it in the zone column, "
        "and RO in region"
    )
    assert reasons[3] == "unknown region of runpod 'Romania'; did you mean 'RO'?"
