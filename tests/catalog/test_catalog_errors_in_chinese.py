"""Catalog error lines (opening the database, imports, gates, the store, the snapshot) read in
Chinese under zh and stay the English they always were under en."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.discounts import set_discount
from gpuplan.catalog.history import price_history
from gpuplan.catalog.importers import parse_skypilot
from gpuplan.catalog.importing import import_of, write_with_retry
from gpuplan.catalog.local_store import LocalStore
from gpuplan.catalog.model import ExchangeRate, OfferRow, PriceRow
from gpuplan.catalog.query import OfferQuery, list_offers
from gpuplan.catalog.snapshot import read_table
from gpuplan.errors import GpuplanError, Phrase
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from i18n.english_left import english_left

HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone,Arch\n"
)


def _raised(call: Callable[[], object], what: str = "") -> GpuplanError:
    with pytest.raises(GpuplanError) as info:
        call()
    assert info.value, what
    return info.value


def _in_chinese(e: BaseException) -> str:
    with use_language("zh"):
        return error_text(e)


def test_opening_a_database_in_a_missing_folder_is_refused_in_chinese(tmp_path: Path) -> None:
    db = tmp_path / "nope" / "x.sqlite"
    e = _raised(lambda: open_store(str(db)))
    assert str(e) == f"database folder {db.parent} does not exist; create it or pass another --db"
    assert _in_chinese(e) == f"数据库文件夹 {db.parent} 不存在；请创建它，或传入另一个 --db"


def test_a_file_that_is_not_sqlite_is_refused_in_chinese_and_left_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("hello, not a database\n")
    e = _raised(lambda: open_store(str(db)))
    assert str(e) == f"{db} is not a SQLite database; it was left unchanged: point --db at a new file"
    assert _in_chinese(e) == f"{db} 不是 SQLite 数据库；未做任何改动：请让 --db 指向一个新文件"
    assert db.read_text() == "hello, not a database\n"


def test_another_applications_database_is_refused_in_chinese(tmp_path: Path) -> None:
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    e = _raised(lambda: open_store(str(db)))
    assert str(e) == (
        f"{db} is not a gpuplan catalog (it has other tables: invoices); it was left unchanged: "
        "point --db at a new file"
    )
    assert (
        _in_chinese(e)
        == f"{db} 不是 gpuplan 目录（其中有其他表：invoices）；未做任何改动：请让 --db 指向一个新文件"
    )


def test_an_unopenable_database_url_names_the_drivers_words_as_data() -> None:
    e = _raised(lambda: open_store("nosuchdialect://x"))
    assert str(e).startswith("cannot open database 'nosuchdialect://x': ")
    assert _in_chinese(e).startswith("无法打开数据库 'nosuchdialect://x'：")


def _cases(store: Store, tmp_path: Path) -> list[tuple[Callable[[], object], str]]:
    """(a call that raises through the real code path, the English line it always gave)."""
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    wrong = tmp_path / "gcp.csv"
    wrong.write_text("a,b\n")
    missing = tmp_path / "missing.csv"

    def broken_write(_conn: object) -> None:
        raise OperationalError("INSERT", {}, Exception("disk I/O error"))

    unreachable = "sqlite:////nonexistent-dir/x.db"
    local = LocalStore(
        Store(
            unreachable,
            location=unreachable,
            revision="head",
            stale_after_days=180,
            today=date(2026, 11, 30),
            engine=create_engine(unreachable),
        )
    )
    return [
        (lambda: open_store(usd_per_cny=-1.0), "USD per CNY must be a positive number, got -1.0"),
        (lambda: open_store(stale_after_days=-2), "stale_after_days must be 0 or more, got -2"),
        (
            lambda: store.add_exchange_rate(
                ExchangeRate(currency="CNY", usd_per_unit=0.0, as_of="2026", source="t")
            ),
            "exchange rate for CNY must be positive, got 0.0",
        ),
        (
            lambda: store.offers(min_gpu_memory_gib=-1),
            "minimum GPU memory must be a number of GiB, 0 or more (got -1)",
        ),
        (
            lambda: list_offers(store, OfferQuery(max_price_per_hour=-3.0)),
            "--max-price must be a positive number, got -3.0",
        ),
        (
            # GCP's region asked of AWS: it had been "unknown region 'us-east1'; did you mean 'us-east-1'"
            lambda: list_offers(store, OfferQuery(provider="aws", region="us-east1")),
            "region us-east1 is a region of gcp, not of aws; did you mean 'us-east-1'",
        ),
        (
            lambda: set_discount(store, "aws", 150),
            "discount percent must be more than 0 and at most 99, got 150",
        ),
        (
            lambda: price_history(store, "p4d.24xlarge", "mars-1"),
            "unknown region of p4d.24xlarge 'mars-1'",
        ),
        (lambda: parse_skypilot(empty, "aws", as_of="2026-11-01"), f"{empty} is empty; nothing was imported"),
        (
            lambda: parse_skypilot(wrong, "gcp", as_of="2026-11-01"),
            f"{wrong} does not have the SkyPilot gcp header (InstanceType, vCPUs, MemoryGiB, "
            "AcceleratorName, AcceleratorCount, GpuInfo, Region, AvailabilityZone, Price, SpotPrice); "
            "check --provider; "
            "nothing was imported",
        ),
        (
            lambda: parse_skypilot(wrong, "huawei", as_of="2026-11-01"),
            "no SkyPilot layout for huawei; SkyPilot catalogs exist for aws, gcp, azure",
        ),
        (
            lambda: parse_skypilot(missing, "aws", as_of="2026-11-01"),
            f"cannot read price file '{missing}': no such file; nothing was imported",
        ),
        (
            lambda: write_with_retry(store, broken_write, import_of("aws", "f.csv")),
            "import of aws from f.csv failed and was rolled back (database unchanged): disk I/O error",
        ),
        (
            lambda: list(read_table("no-such.csv")),
            "shipped catalog file no-such.csv is missing",
        ),
        (
            lambda: local.get_profile("k", 1),
            "cannot read the profile cache in sqlite:////nonexistent-dir/x.db: ",
        ),
    ]


def test_each_catalog_error_keeps_its_english_and_reads_in_chinese(store: Store, tmp_path: Path) -> None:
    for call, english in _cases(store, tmp_path):
        try:
            e = _raised(call)
        except BaseException:
            print("CASE", english)
            raise
        assert str(e).startswith(english), (str(e), english)
        with use_language("en"):
            assert error_text(e) == str(e)
        zh = _in_chinese(e)
        assert zh != str(e), str(e)
        # The library's own words (an OSError's strerror, SQLite's message) are data.
        data = [str(v) for v in e.fields.values() if not isinstance(v, GpuplanError | Phrase)]
        assert english_left(zh, allow=data) == [], zh


def _row(*prices: PriceRow, **kw: object) -> OfferRow:
    fields: dict[str, object] = {
        "provider": "aws",
        "region": "us-east-1",
        "zone": None,
        "instance_type": "x.large",
        "gpu": "T4",
        "gpu_count": 1.0,
        "vcpus": 4,
        "memory_gib": 16,
        "network_gbps": None,
        "interconnect": None,
        "source": "test",
        "prices": prices,
    }
    return OfferRow(**(fields | kw))  # type: ignore[arg-type]


def _price(amount: float, pricing: str = "on_demand", **kw: str) -> PriceRow:
    fields = {"currency": "USD", "unit": "hour", "as_of": "2026-11-01", "source": "t", "confidence": "high"}
    return PriceRow(pricing=pricing, amount=amount, **(fields | kw))  # type: ignore[arg-type]


def test_rows_that_fail_the_gates_say_why_in_chinese_and_keep_their_english_reason(store: Store) -> None:
    # Each row its own offer (a region apiece): one offer priced twice in a file is a reason of its own.
    rows = [
        _row(_price(-1.0), line=1, region="us-east-1"),
        _row(_price(5000.0), vcpus=-4, line=2, region="us-east-2"),
        _row(_price(1.0, unit="month", as_of="soon", source=" "), instance_type="bad'name", line=3),
        _row(_price(1.0), _price(2.0, "spot"), gpu="Z99", gpu_count=1.5, line=4, region="us-west-1"),
        _row(_price(1.0, "fixed"), provider="gcp", line=5),
        _row(line=6),
    ]
    report = store.import_offers(rows, provider="aws", source="t")
    reasons = {r.line: r for r in report.rejected}
    assert reasons[1].reason == "on_demand price -1 is not a positive amount"
    assert reasons[2].reason == (
        "vCPU count -4 is not positive; on_demand price 5000 USD/hour is 5,000 USD per GPU-hour, "
        "above the sanity ceiling 1000: a unit or parsing error"
    )
    assert reasons[4].reason == (
        "unknown GPU 'Z99' (not in the hardware catalog); GPU count 1.5 is not a whole number"
    )
    with use_language("zh"):
        assert reasons[1].reason_text() == "按量付费价格 -1 不是正数"
        assert reasons[2].reason_text() == (
            "vCPU 数 -4 不是正数；按量付费价格 5000 美元/小时折合每 GPU 小时 5,000 美元，"
            "高于合理上限 1000：单位或解析有误"
        )
        assert reasons[6].reason_text() == "没有价格，也没有说明原因"
        for r in report.rejected:
            assert english_left(r.reason_text()) == [], r.reason_text()
    with use_language("en"):
        assert [r.reason_text() for r in report.rejected] == [r.reason for r in report.rejected]


def test_lines_skypilot_cannot_read_are_rejected_in_chinese(tmp_path: Path) -> None:
    csv_file = tmp_path / "aws.csv"
    csv_file.write_text(
        HEADER
        + "g4dn.xlarge,T4,1,4,16,,abc,,us-east-1,us-east-1a,x86_64\n"
        + "foo.x,Z99,1,4,16,,1.0,,us-east-1,us-east-1a,x86_64\n"
        + "g.x,,1,4,16,,1.0,,us-east-1,us-east-1a,x86_64\n"
        + "h.x,T4,1,4,16,{bad,,1.0,us-east-1,us-east-1a,x86_64\n"
        + "short,T4\n"
    )
    parsed = parse_skypilot(csv_file, "aws", as_of="2026-11-01")
    english = [r.reason for r in parsed.rejected]
    assert english == [
        "Price 'abc' is not a number",
        "unknown GPU 'Z99' (no mapping from SkyPilot's name to a hardware id)",
        "no accelerator (not a GPU instance)",
        "GpuInfo '{bad'… is not a readable dict",
        "truncated or malformed line: 2 of 11 fields",
    ]
    with use_language("zh"):
        chinese = [r.reason_text() for r in parsed.rejected]
    assert chinese == [
        "Price 'abc' 不是数字",
        "GPU 'Z99' 无法识别（没有从 SkyPilot 名称到硬件 id 的映射）",
        "没有加速器（不是 GPU 实例）",
        "GpuInfo '{bad'… 不是可读取的字典",
        "行被截断或格式错误：11 个字段中只有 2 个",
    ]


def test_an_unreadable_replay_index_names_the_provider_in_a_chinese_line(tmp_path: Path) -> None:
    from gpuplan.catalog.providers.http import Http

    (tmp_path / "aws").mkdir()
    index = tmp_path / "aws" / "index.json"
    index.write_bytes(b"\xff{}")
    e = _raised(lambda: Http("aws", replay_dir=tmp_path))
    assert str(e) == f"aws replay index '{index}' is not UTF-8 text (byte 0)"
    assert _in_chinese(e) == f"aws 的回放索引 '{index}' 不是 UTF-8 文本（第 0 字节）"


def test_the_import_document_of_rejected_rows_keeps_the_english_reasons(store: Store) -> None:
    from gpuplan.report.catalog import import_json

    report = store.import_offers([_row(_price(-1.0), line=1)], provider="aws", source="t")
    with use_language("zh"):
        doc = import_json(report).model_dump(mode="json")
    assert [r["reason"] for r in doc["rejected"]] == ["on_demand price -1 is not a positive amount"]


def test_a_refresh_that_cannot_read_its_replay_says_so_in_chinese(store: Store, tmp_path: Path) -> None:
    from gpuplan.catalog.refresh import RefreshOptions, refresh

    (tmp_path / "aws").mkdir()
    (tmp_path / "aws" / "index.json").write_bytes(b"\xff{}")
    with use_language("zh"):
        [outcome] = refresh(store, ["aws"], RefreshOptions(replay_dir=tmp_path))
    assert outcome.status == "failed"
    assert outcome.message.startswith("失败（aws 的回放索引 '")
    assert "不是 UTF-8 文本（第 0 字节）" in outcome.message
    assert english_left(outcome.message) == []


def test_a_fallback_egress_row_says_in_chinese_which_rows_it_uses(store: Store) -> None:
    with use_language("en"):
        english = store.egress_tiers("aws", "eu-central-1")[0].reason
    with use_language("zh"):
        chinese = store.egress_tiers("aws", "eu-central-1")[0].reason
    assert english is not None and english.startswith(
        "no rows for region 'eu-central-1'; using the provider's us-east-1 rows"
    )
    assert chinese is not None and chinese.startswith(
        "地域 'eu-central-1' 没有数据；使用该云厂商 us-east-1 的数据"
    )


def test_catalog_import_in_chinese_shows_each_rejected_line_in_chinese_and_json_in_english(
    db_path: Path, tmp_path: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from gpuplan.cli import app

    csv_file = tmp_path / "aws.csv"
    csv_file.write_text(HEADER + "g.x,,1,4,16,,1.0,,us-east-1,us-east-1a,x86_64\n")
    base = [
        "--db",
        str(db_path),
        "catalog",
        "import",
        str(csv_file),
        "--provider",
        "aws",
        "--as-of",
        "2026-11-30",
    ]
    shown = CliRunner().invoke(app, [*base, "--lang", "zh"], terminal_width=200)
    assert "没有加速器（不是 GPU 实例）" in shown.stdout
    as_json = CliRunner().invoke(app, [*base, "--lang", "zh", "--json"])
    doc = json.loads(as_json.stdout)
    assert [r["reason"] for r in doc["skipped"]] == ["no accelerator (not a GPU instance)"]


@pytest.mark.parametrize(
    ("line", "english", "chinese"),
    [
        (
            'g5.8xlarge,A10G,1.0,32.0,128.0,"{oops,2.448,0.93,us-west-2,usw2-az2,x86_64\n',
            "a quoted field is not closed before the end of the file",
            "有带引号的字段直到文件末尾都没有闭合",
        ),
        (
            'g5.8xlarge,A10G,1.0,32.0,128.0,"x"y,2.448,0.93,us-west-2,usw2-az2,x86_64\n',
            "a closing quote is followed by other text than the delimiter ','",
            "闭合引号后面跟着的不是分隔符 ','",
        ),
    ],
)
def test_a_price_file_the_csv_reader_stops_on_is_refused_in_chinese_naming_its_line(
    tmp_path: Path, line: str, english: str, chinese: str
) -> None:
    csv_file = tmp_path / "aws.csv"
    csv_file.write_text(HEADER + line, encoding="utf-8")
    e = _raised(lambda: parse_skypilot(csv_file, "aws", as_of="2026-11-01"))
    assert str(e) == f"{csv_file} line 2: {english}; nothing was imported"
    zh = _in_chinese(e)
    assert zh == f"{csv_file} 第 2 行：{chinese}；未导入任何内容", zh
    assert english_left(zh) == []
