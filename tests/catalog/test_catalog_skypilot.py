"""SkyPilot catalog import: the real excerpts, a broken file, and the GCP host + GPU pairing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpuplan.catalog import Store
from gpuplan.catalog.importers import parse_skypilot
from gpuplan.errors import CatalogImportError

FIXTURES = Path(__file__).parent / "fixtures"


def _import(store: Store, name: str, provider: str):  # type: ignore[no-untyped-def]
    parsed = parse_skypilot(
        FIXTURES / name, provider, as_of="2026-11-30", known_instances=store.known_instances()
    )
    return store.import_offers(
        parsed.rows, provider=provider, source=name, kind="skypilot", rejected=parsed.rejected
    )


def test_aws_excerpt_imports_on_demand_per_region_and_spot_per_zone(empty_store: Store) -> None:
    store = empty_store
    report = _import(store, "aws_vms_v8_gpu_sample.csv", "aws")
    assert report.rejected == ()
    # 6 lines: 6 on-demand prices; 5 spot prices (p3.16xlarge has none)
    assert report.prices_imported == 11
    g5 = [
        o for o in store.offers(provider="aws", region="ap-northeast-1") if o.instance_type == "g5.12xlarge"
    ]
    assert {(o.pricing, o.zone) for o in g5} == {("on_demand", None), ("spot", "apne1-az1")}
    [p4d] = [
        o
        for o in store.offers(provider="aws", region="us-east-1", pricing="on_demand")
        if o.instance_type == "p4d.24xlarge"
    ]
    assert (p4d.gpu, p4d.gpu_count, p4d.as_of) == ("A100-SXM4-40GB", 8, "2026-11-30")


def test_azure_excerpt_imports_with_the_catalogs_gpu_variant(empty_store: Store) -> None:
    store = empty_store
    report = _import(store, "azure_vms_v6_gpu_sample.csv", "azure")
    assert report.rejected == ()
    [nc24] = [o for o in store.offers(provider="azure", region="westus2", pricing="spot")]
    # NC A100 v4 is the PCIe part (known instance type), although SkyPilot just says "A100-80GB"
    assert (nc24.instance_type, nc24.gpu, nc24.price) == (
        "Standard_NC24ads_A100_v4",
        "A100-PCIE-80GB",
        0.615962,
    )


def test_gcp_excerpt_reports_every_unpaired_row(empty_store: Store) -> None:
    store = empty_store
    report = _import(store, "gcp_vms_v8_gpu_sample.csv", "gcp")
    # The real excerpt has no host and GPU row in the same zone: nothing is an offer, all is said.
    assert report.import_id is None
    assert [r.line for r in report.rejected] == [2, 3, 4, 5, 6]
    assert "no A100-80GB x8 GPU row in zone us-central1-a" in report.rejected[0].reason


def test_gcp_host_and_gpu_rows_of_one_zone_sum_to_one_offer(empty_store: Store) -> None:
    store = empty_store
    report = _import(store, "gcp_v8_synthetic_pair.csv", "gcp")
    offers = [
        o for o in store.offers(provider="gcp", region="us-east5") if o.instance_type == "a2-ultragpu-8g"
    ]
    by_pricing = {o.pricing: o for o in offers}
    # on-demand 8.79698 (host) + 35.39358 (8 x A100-80GB) = 44.19056; spot 4.39824 + 10.6848 = 15.08304
    assert by_pricing["on_demand"].price == pytest.approx(44.19056)
    assert by_pricing["spot"].price == pytest.approx(15.08304)
    assert by_pricing["on_demand"].gpu == "A100-SXM4-80GB" and by_pricing["on_demand"].gpu_count == 8
    assert by_pricing["on_demand"].zone == "us-east5-b"
    assert report.rejected == ()
    # The N1 host and the attachable V100 of one zone make an offer: 8 vCPUs and 30 GB are within
    # GCP's limit for 1 x V100 (12 vCPUs, 78 GB). 0.38 + 2.604 = 2.984; spot 0.08 + 1.0443 = 1.1243
    n1 = {o.pricing: o for o in store.offers(provider="gcp", region="europe-west4")}
    assert n1["on_demand"].instance_type == "n1-standard-8 + 1x nvidia-tesla-v100"
    assert (n1["on_demand"].price, n1["spot"].price) == (pytest.approx(2.984), pytest.approx(1.1243))
    assert (n1["on_demand"].gpu, n1["on_demand"].gpu_count) == ("V100-SXM2-16GB", 1)


def test_broken_file_imports_good_rows_and_reports_each_bad_line(empty_store: Store) -> None:
    store = empty_store
    report = _import(store, "aws_v8_broken.csv", "aws")
    reasons = {r.line: r.reason for r in report.rejected}
    assert set(reasons) == {3, 4, 5, 6, 7, 8}
    assert [r.line for r in report.rejected] == [3, 4, 5, 6, 7, 8]  # reported in file order
    assert "truncated" in reasons[3]
    assert "not a positive amount" in reasons[4]
    assert "not below the on-demand" in reasons[5]
    assert "disagrees with the 8 GPUs" in reasons[6]
    assert "unknown GPU 'Z100'" in reasons[7]
    assert "not a number" in reasons[8]
    # line 2 imported (on-demand + spot); line 5 is refused whole: its on-demand half neither, as
    # the summary's count of rejected rows says
    assert [o.pricing for o in store.offers(provider="aws", region="us-west-2")] == ["on_demand", "spot"]
    assert store.offers(provider="aws", region="ap-northeast-1") == []


def test_wrong_header_changes_nothing(store: Store, tmp_path: Path) -> None:
    before = store.info()
    with pytest.raises(CatalogImportError, match="header"):
        parse_skypilot(FIXTURES / "azure_vms_v6_gpu_sample.csv", "aws", as_of="2026-11-30")
    with pytest.raises(CatalogImportError, match="cannot read"):
        parse_skypilot(tmp_path / "missing.csv", "aws", as_of="2026-11-30")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(CatalogImportError, match="empty"):
        parse_skypilot(empty, "aws", as_of="2026-11-30")
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CatalogImportError):
        parse_skypilot(binary, "aws", as_of="2026-11-30")
    assert store.info() == before


def test_no_layout_for_a_provider_no_skypilot_format_catalog_covers(tmp_path: Path) -> None:
    f = tmp_path / "x.csv"
    shutil.copy(FIXTURES / "aws_vms_v8_gpu_sample.csv", f)
    with pytest.raises(CatalogImportError, match="no SkyPilot layout"):
        parse_skypilot(f, "huawei", as_of="2026-11-30")


#: Rows copied from the SkyPilot-format catalog of Alibaba Cloud and Tencent Cloud (its files write
#: each CNY price × 0.138 as USD).
FORK = Path(__file__).resolve().parents[2] / "tools" / "skypilot_fork"


def _fork_row(provider: str, name: str, itype: str, zone: str) -> tuple[str, dict[str, tuple[float, str]]]:
    parsed = parse_skypilot(FORK / name, provider, as_of="2020-11/2026-12-03")
    [row] = [r for r in parsed.rows if (r.instance_type, r.zone) == (itype, zone)]
    return row.gpu, {p.pricing: (p.amount, p.currency) for p in row.prices}


def test_the_chinese_clouds_rows_are_kept_in_the_yuan_they_were_priced_in() -> None:
    # ecs.gn7i-c8g1.2xlarge,A10,1,8,30,A10 24GB,1.3270908,0.41939663,cn-hangzhou,cn-hangzhou-k,...
    gpu, prices = _fork_row("alibaba", "alicloud_v8_vms_cn.csv", "ecs.gn7i-c8g1.2xlarge", "cn-hangzhou-k")
    assert (gpu, prices) == ("A10", {"on_demand": (9.6166, "CNY"), "spot": (3.039106, "CNY")})
    # Tencent's back-converted figures are whole fen, as its price API gives them (1.20474 / 0.138).
    gpu, prices = _fork_row("tencent", "tencentcloud_v8_vms_cn.csv", "GN7.2XLARGE32", "ap-beijing-3")
    assert (gpu, prices) == ("T4", {"on_demand": (8.73, "CNY")})


def test_the_providers_family_table_names_the_part_the_file_leaves_open() -> None:
    # "A100 80G" and "V100 32GB" say neither SXM nor PCIe; Alibaba's family docs do.
    assert _fork_row("alibaba", "alicloud_v8_vms_cn.csv", "ecs.gn7e-c16g1.4xlarge", "cn-beijing-i")[0] == (
        "A100-SXM4-80GB"
    )
    assert _fork_row("alibaba", "alicloud_v8_vms_cn.csv", "ecs.gn6e-c12g1.3xlarge", "cn-hangzhou-i")[0] == (
        "V100-SXM2-32GB"
    )
    assert _fork_row("tencent", "tencentcloud_v8_vms_cn.csv", "GT4.4XLARGE96", "ap-beijing-6")[0] == (
        "A100-SXM4-40GB"
    )


def test_a_row_whose_name_disagrees_with_its_family_keeps_its_own_name(tmp_path: Path) -> None:
    f = tmp_path / "vms.csv"
    header = (FORK / "alicloud_v8_vms_cn.csv").read_text().splitlines()[0]
    # A family whose table says T4, on a row that says A10: the row is believed, not the table.
    f.write_text(header + "\necs.x,A10,1,8,30,A10 24GB,1.38,0.69,cn-hangzhou,cn-hangzhou-k,ecs.gn6i,X86\n")
    [row] = parse_skypilot(f, "alibaba", as_of="2026-11-30").rows
    assert row.gpu == "A10"
    assert [(p.pricing, p.amount) for p in row.prices] == [("on_demand", 10.0), ("spot", 5.0)]
