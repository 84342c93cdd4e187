"""``catalog refresh``: atomic per provider, appends, keeps the last good data, saves and replays."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
import respx
from typer.testing import CliRunner

from gpuplan.catalog import PROVIDERS, Store
from gpuplan.catalog.coverage import coverage
from gpuplan.catalog.history import price_history
from gpuplan.catalog.providers import Credentials
from gpuplan.catalog.refresh import RefreshOptions, last_runs, refresh
from gpuplan.cli import app
from gpuplan.errors import InputError
from gpuplan.i18n.messages import use_language

from .conftest import BULK_CSV_URL, NOW

runner = CliRunner()


def counts(store: Store) -> tuple[int, int]:
    [row] = store._query("SELECT (SELECT COUNT(*) FROM offers) AS o, (SELECT COUNT(*) FROM prices) AS p")
    return row.o, row.p


def test_without_network_refresh_exits_1_with_one_line_per_provider_and_changes_nothing(
    db_path: Path,
) -> None:
    from gpuplan.catalog import open_store

    before = counts(open_store(str(db_path)))
    with respx.mock(assert_all_called=False) as m:
        m.route().mock(side_effect=httpx.ConnectError("[Errno -3] Temporary failure in name resolution"))
        result = runner.invoke(app, ["--db", str(db_path), "catalog", "refresh"])
    assert result.exit_code == 1
    lines = result.stdout.strip().splitlines()
    # every provider of the registry, then the rate (a refresh without --provider also fetches it)
    assert [ln.split(":")[0] for ln in lines] == [*PROVIDERS, "exchange rates"]
    failed = [ln for ln in lines if "failed" in ln]
    keyless = {"aws", "azure", "alibaba", "vast", "exchange rates"}
    assert {ln.split(":")[0] for ln in failed} == keyless
    assert "kept the last rate (1 USD = " in lines[-1]
    assert all("kept the last good data" in ln for ln in failed[:-1])
    assert all("skipped" in ln for ln in lines if ln not in failed)
    assert counts(open_store(str(db_path))) == before


def test_refresh_lines_under_zh_have_the_fetchers_own_texts_in_chinese(db_path: Path, tmp_path: Path) -> None:
    import re

    with respx.mock(assert_all_called=False) as m:
        m.route().mock(side_effect=httpx.ConnectError("[Errno -3] Temporary failure in name resolution"))
        result = runner.invoke(app, ["--db", str(db_path), "catalog", "refresh", "--lang", "zh"])
    lines = result.stdout.strip().splitlines()
    skipped = [ln for ln in lines if "已跳过" in ln]
    keyed = {"gcp", "tencent", "huawei", "volcengine", "lambda", "runpod"}
    no_fetcher = {p for p in PROVIDERS if p not in keyed | {"aws", "azure", "alibaba", "vast"}}
    assert {ln.split(":")[0] for ln in skipped} == keyed | no_fetcher
    # A provider whose price list gpuplan does not read yet says so, in Chinese too.
    assert all("快照" in ln for ln in skipped if ln.split(":")[0] in no_fetcher), skipped
    skipped = [ln for ln in skipped if ln.split(":")[0] in keyed]
    # The fetcher's reason is Chinese too: only API and variable names stay Latin, no English words.
    assert all("请设置" in ln and not re.search(r"\b(?:needs?|keys?|set)\b", ln) for ln in skipped), skipped
    assert "HUAWEICLOUD_ACCESS_KEY、HUAWEICLOUD_SECRET_KEY 和 HUAWEICLOUD_PROJECT_ID" in result.stdout
    # A replay folder without a saved response says so in Chinese.
    (tmp_path / "replay" / "aws").mkdir(parents=True)
    replay = ["--provider", "aws", "--from", str(tmp_path / "replay"), "--lang", "zh"]
    replayed = runner.invoke(app, ["--db", str(db_path), "catalog", "refresh", *replay])
    assert "中没有保存的响应（缺少 index.json）" in replayed.stdout, replayed.stdout


def test_refresh_appends_dated_prices_with_source_and_fetch_time(store: Store, api: respx.MockRouter) -> None:
    [aws] = refresh(store, ["aws"], RefreshOptions(now=NOW))
    assert aws.status == "ok", aws.message
    [later] = refresh(store, ["aws"], RefreshOptions(now="2026-12-01T06:00:00+00:00"))
    assert later.status == "ok"
    spot = [
        p
        for p in price_history(store, "p5.48xlarge", "us-east-1")
        if p.pricing == "spot" and p.imported_by == "refresh"
    ]
    assert [p.as_of for p in spot] == ["2026-11-30", "2026-12-01"]  # appended, not overwritten
    assert all(p.fetched_at and p.imported_by == "refresh" for p in spot)
    [now] = [
        o
        for o in store.offers(provider="aws", region="us-east-1", pricing="spot")
        if o.instance_type == "p5.48xlarge" and o.zone is None  # the refresh's region-wide spot
    ]
    assert now.as_of == "2026-12-01" and now.interruption_band == "5-10%"
    assert now.source.startswith("https://website.spot.ec2.aws.a2z.com/spot.json")
    assert {
        o.pricing
        for o in store.offers(provider="aws", region="us-east-1")
        if o.instance_type == "p5.48xlarge"
    } >= {
        "on_demand",
        "spot",
        "reserved_1y",
        "reserved_3y",
    }


def test_a_failing_provider_keeps_its_last_good_data_and_others_still_refresh(
    store: Store, api: respx.MockRouter
) -> None:
    refresh(store, ["aws"], RefreshOptions(now=NOW))
    before = [o for o in store.offers(provider="aws") if o.instance_type == "p5.48xlarge"]
    api.get(BULK_CSV_URL).mock(return_value=httpx.Response(503, text="Service Unavailable"))
    aws, vast = refresh(store, ["aws", "vast"], RefreshOptions(now="2026-12-01T00:00:00+00:00"))
    assert aws.status == "failed" and "503" in aws.message and "kept the last good data" in aws.message
    assert vast.status == "ok"
    assert [o for o in store.offers(provider="aws") if o.instance_type == "p5.48xlarge"] == before


def test_save_then_replay_refreshes_the_same_offers_without_network(
    store: Store, api: respx.MockRouter, tmp_path: Path
) -> None:
    keys = Credentials(values={"RUNPOD_API_KEY": "k"})
    saved = refresh(
        store, ["alibaba", "runpod", "vast"], RefreshOptions(now=NOW, credentials=keys, save_dir=tmp_path)
    )
    assert [o.status for o in saved] == ["ok", "ok", "ok"]
    assert (tmp_path / "vast" / "index.json").is_file()
    api.reset()
    with respx.mock(assert_all_called=False) as m:
        m.route().mock(side_effect=httpx.ConnectError("no network"))
        replayed = refresh(
            store,
            ["alibaba", "runpod", "vast"],
            RefreshOptions(now=NOW, credentials=keys, replay_dir=tmp_path),
        )
        assert not m.calls
    assert [(o.status, o.offers) for o in replayed] == [(o.status, o.offers) for o in saved]
    # Named but not in the folder: refused before anything is read or written.
    with pytest.raises(InputError, match="holds no saved responses of aws"):
        refresh(store, ["aws"], RefreshOptions(now=NOW, replay_dir=tmp_path))


def test_info_shows_per_provider_coverage_and_what_the_last_refresh_did(
    store: Store, api: respx.MockRouter
) -> None:
    refresh(store, ["vast", "gcp"], RefreshOptions(now=NOW))
    by = {c.provider: c for c in coverage(store)}
    assert list(by) == list(PROVIDERS)
    assert by["vast"].last_refresh and "ok: 2 offers" in by["vast"].last_refresh
    assert by["gcp"].last_refresh and "skipped" in by["gcp"].last_refresh
    # the outcome said once (it had read "skipped: skipped: …", "failed: failed (…)")
    said = [c.last_refresh.split(" ", 1)[1] for c in by.values() if c.last_refresh]
    assert said and not any(s.startswith(("ok: ok", "skipped: skipped", "failed: failed")) for s in said)
    assert by["aws"].offers > 0 and "on_demand" in by["aws"].pricing_models and by["aws"].oldest_as_of
    assert by["aws"].last_refresh is None


def test_save_is_atomic_per_provider_a_failed_fetch_keeps_the_last_complete_save(
    store: Store, tmp_path: Path
) -> None:
    from .conftest import _azure

    out = tmp_path / "saved"
    broken = {"page2": False}

    def azure(request: httpx.Request) -> httpx.Response:
        if broken["page2"] and "skip=1000" in str(request.url):
            return httpx.Response(503, text="Service Unavailable")  # fails after page 1 was saved
        return _azure(request)

    with respx.mock(assert_all_called=False) as m:
        m.get(url__startswith="https://prices.azure.com").mock(side_effect=azure)
        [first] = refresh(store, ["azure"], RefreshOptions(now=NOW, save_dir=out))
        assert first.status == "ok", first.message
        saved = {p.name: p.read_bytes() for p in (out / "azure").iterdir()}
        broken["page2"] = True
        [second] = refresh(store, ["azure"], RefreshOptions(now=NOW, save_dir=out))
    assert second.status == "failed" and "503" in second.message
    assert {p.name: p.read_bytes() for p in (out / "azure").iterdir()} == saved  # the complete save
    assert [p.name for p in out.iterdir()] == ["azure"]  # no half-written folder left behind


#: A Chinese character: a line in Chinese has some, a line in English none.
_HAN = re.compile(r"[\u4e00-\u9fff]")


def test_a_refresh_run_in_chinese_is_read_back_in_the_readers_language(
    store: Store, api: respx.MockRouter, db_path: Path
) -> None:
    # ok (vast), failed (aws: its price list answers 503), skipped (gcp: no key)
    api.get(BULK_CSV_URL).mock(return_value=httpx.Response(503, text="Service Unavailable"))
    with use_language("zh"):
        ran = {o.provider: o for o in refresh(store, ["vast", "aws", "gcp"], RefreshOptions(now=NOW))}
    assert [ran[p].status for p in ("vast", "aws", "gcp")] == ["ok", "failed", "skipped"]
    assert all(_HAN.search(o.message) for o in ran.values())  # the refresh's own lines are Chinese
    english = last_runs(store)
    assert not any(_HAN.search(english[p].message) for p in ran), {p: english[p].message for p in ran}
    assert english["vast"].message.startswith("ok: 2 offers, ")
    assert english["aws"].message.startswith("failed (HTTPStatusError: ")
    assert "; kept the last good data (" in english["aws"].message
    assert english["gcp"].message == (
        "skipped: the Cloud Billing Catalog needs an API key: set GOOGLE_API_KEY"
    )
    # what an English `catalog info` shows
    info = runner.invoke(app, ["--db", str(db_path), "catalog", "info", "--lang", "en", "--json"])
    [gcp] = [c for c in json.loads(info.stdout)["coverage"] if c["provider"] == "gcp"]
    assert gcp["last_refresh"] == f"{NOW} {english['gcp'].message}"
    with use_language("zh"):
        chinese = last_runs(store)
    assert {p: chinese[p].message for p in ran} == {p: o.message for p, o in ran.items()}
