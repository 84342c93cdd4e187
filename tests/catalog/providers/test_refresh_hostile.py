"""Hostile price-list answers: whatever one provider's source says (a list where an object is
expected, ``1e999``, a CSV field over 128 KiB, truncated JSON, wrong types), that provider fails in
one line and keeps its last good data, its run is recorded, and the other providers are refreshed
and print their lines — live (respx) and replayed from a ``--from DIR`` folder."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import respx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.catalog.providers import Credentials
from gpuplan.catalog.refresh import RefreshOptions, refresh
from gpuplan.cli import app

from .conftest import NOW, recorded_api

KEYS = Credentials(
    values={
        "GOOGLE_API_KEY": "k",
        "TENCENTCLOUD_SECRET_ID": "AKIDtest",
        "TENCENTCLOUD_SECRET_KEY": "secret",
        "LAMBDA_API_KEY": "k",
        "RUNPOD_API_KEY": "k",
    }
)
#: Providers whose recorded answers the `api` fixture holds (Huawei and Volcano Engine need keys it
#: does not record answers for).
RECORDED = ["aws", "azure", "gcp", "alibaba", "tencent", "lambda", "runpod", "vast"]
LATER = "2026-12-01T06:00:00+00:00"

#: One malformed answer of each kind the probe found (JSON bodies go to every JSON source).
HOSTILE = {
    "a list where an object is expected": b"[1, 2, 3]",
    "a bare number that overflows": b"1e999",
    "an overflowing number inside": b'{"Items": [{"retailPrice": 1e999}], "prices": 1e999, "offers": 1e999}',
    "truncated JSON": b'{"Items": [{"retailPrice": 1.5, "armSkuName": "Standard_',
    "wrong types": b'{"Items": 7, "NextPageLink": [], "data": "x", "offers": {"a": 1}, "Response": []}',
    "null": b"null",
    "a string": b'"<html>maintenance</html>"',
    "deep nesting": b"[" * 10_000 + b"]" * 10_000,
    "not UTF-8": b"\xff\xfe{\x00",
}


def _refresh_rows(db: Path, provider: str) -> tuple[int, int]:
    """(prices, refresh runs) of one provider, read without gpuplan."""
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as c:
        [(prices,)] = c.execute(
            "SELECT COUNT(*) FROM prices JOIN offers ON offers.id = prices.offer_id "
            "WHERE offers.provider = ?",
            (provider,),
        ).fetchall()
        [(runs,)] = c.execute("SELECT COUNT(*) FROM refresh_runs WHERE provider = ?", (provider,)).fetchall()
    return prices, runs


def _answer(body: bytes) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(200, content=body)


@pytest.mark.parametrize("kind", list(HOSTILE))
@pytest.mark.parametrize("victim", ["azure", "vast", "alibaba", "runpod"])
def test_a_hostile_json_answer_fails_its_provider_only(
    db_path: Path, api: respx.MockRouter, victim: str, kind: str
) -> None:
    for name in (victim, f"{victim}:443") if victim == "azure" else (victim,):
        api.routes[name].side_effect = _answer(HOSTILE[kind])
    before = _refresh_rows(db_path, victim)
    others = [p for p in ("alibaba", "vast", "lambda") if p != victim][:2]
    outcomes = refresh(open_store(str(db_path)), [victim, *others], RefreshOptions(credentials=KEYS, now=NOW))
    by = {o.provider: o for o in outcomes}
    assert [o.provider for o in outcomes] == [victim, *others]
    assert by[victim].status == "failed", by[victim].line()
    line = by[victim].line()
    assert "\n" not in line and "kept the last good data" in line and len(line) < 400, line
    assert all(by[p].status == "ok" for p in others), [o.line() for o in outcomes]
    prices, runs = _refresh_rows(db_path, victim)
    assert (prices, runs) == (before[0], before[1] + 1)  # old data kept, the failed run recorded


def test_an_answer_of_another_shape_is_said_to_be_one_before_pythons_words(
    db_path: Path, api: respx.MockRouter
) -> None:
    # was: "failed reading the price list (AttributeError: 'list' object has no attribute 'get')"
    api.routes["vast"].side_effect = _answer(b'["x"]')
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(credentials=KEYS, now=NOW))
    assert vast.status == "failed"
    assert "(an answer not in the shape the reader expects: AttributeError: 'list' object" in vast.line()


def test_malformed_vast_listings_are_counted_and_named_in_the_ok_line(
    db_path: Path, api: respx.MockRouter
) -> None:
    # was: "vast: failed reading the price list (ValueError: invalid literal for int() …)" for one
    # listing of 5,000 whose GPU count was no number; now the listing is a rejected row.
    from .conftest import recorded

    doc = recorded("vast_offers.json")
    doc["offers"] = [
        {"id": 901, "gpu_name": "RTX 4090", "num_gpus": "one", "geolocation": "Oslo, NO", "dph_total": 0.1},
        {"id": 902, "gpu_name": "RTX 4090", "num_gpus": 1, "geolocation": "Oslo, NO", "dph_total": -1},
        *doc["offers"],
    ]
    api.routes["vast"].side_effect = lambda request: httpx.Response(200, json=doc)
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=NOW))
    assert vast.status == "ok" and vast.offers == 2 and vast.rejected == 2, vast.line()
    assert "2 rows rejected; rejected ? (NO): Vast.ai offer 901: num_gpus is" in vast.line(), vast.line()
    line = vast.line()
    assert "rejected 1x RTX-4090 (NO): Vast.ai offer 902: dph_total is -1, not a price above zero" in line


def test_a_new_offer_far_below_the_catalogs_prices_for_its_gpu_is_low_confidence(
    db_path: Path, api: respx.MockRouter
) -> None:
    # was: a listing of 8 H100s at 0.20 USD/h (0.025 per GPU-hour, 70x below every H100 the catalog
    # holds) had no last price to jump from: stored high confidence, the cheapest H100 in `gpus`,
    # first in `offers` and in plans — where `catalog import` refuses the same figure
    from .conftest import recorded

    doc = recorded("vast_offers.json")
    doc["offers"] = [
        {"id": 903, "gpu_name": "H100 SXM", "gpu_ram": 81559, "num_gpus": 8, "geolocation": "Iceland, IS",
         "dph_total": 0.2},
        *doc["offers"],
    ]  # fmt: skip
    api.routes["vast"].side_effect = lambda request: httpx.Response(200, json=doc)
    store = open_store(str(db_path))
    [vast] = refresh(store, ["vast"], RefreshOptions(now=NOW))
    assert vast.status == "ok", vast.line()
    assert (
        "1 new price out of line with what the catalog holds for its instance type or GPU, stored as low "
        "confidence"
    ) in vast.line()
    h100s = store.offers(provider="vast", gpu="H100-SXM")
    [cheap] = [o for o in h100s if o.region == "IS" and o.gpu_count == 8]
    assert (cheap.price, cheap.confidence) == (0.2, "low")
    # the one listing out of line, and only it: the others are in line with the catalog
    assert "new prices" not in vast.line()


@pytest.mark.parametrize(
    "body",
    [
        # Python's csv module refuses a field over 128 KiB with csv.Error (not a ValueError).
        'SKU,OfferTermCode\n"' + "x" * (140 * 1024) + '",1\n',
        "\x00" * 100,
        '"unterminated\n' * 5,
    ],
    ids=["field over 128 KiB", "NUL bytes", "unterminated quotes"],
)
def test_a_hostile_bulk_csv_fails_aws_only(db_path: Path, api: respx.MockRouter, body: str) -> None:
    api.routes["aws:bulk-csv"].return_value = httpx.Response(200, text=body)
    before = _refresh_rows(db_path, "aws")
    aws, vast = refresh(open_store(str(db_path)), ["aws", "vast"], RefreshOptions(now=NOW))
    assert aws.status == "failed" and "kept the last good data" in aws.message, aws.line()
    assert "\n" not in aws.line()
    assert vast.status == "ok", vast.line()
    assert _refresh_rows(db_path, "aws") == (before[0], before[1] + 1)


def test_a_control_character_in_a_hostile_answer_does_not_reach_the_terminal(
    db_path: Path, api: respx.MockRouter
) -> None:
    # A KeyError's message repeats the key: an escape sequence in it must not be printed raw.
    api.routes["vast"].side_effect = _answer(b'{"offers": [{"\\u001b[2J\\u001b]0;pwned\\u0007": 1}]}')
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=NOW))
    assert vast.status in ("failed", "ok")
    assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in vast.line()), repr(vast.line())


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory, seeded_db: Path) -> Iterator[Path]:
    """Every recorded provider's answers saved with ``--save`` (as an air-gapped team gets them)."""
    out = tmp_path_factory.mktemp("saved")
    db = out / "scratch.sqlite"
    shutil.copy(seeded_db, db)
    with recorded_api():
        done = refresh(open_store(str(db)), RECORDED, RefreshOptions(credentials=KEYS, now=NOW, save_dir=out))
    assert all(o.status == "ok" for o in done), [o.line() for o in done]
    db.unlink()
    yield out


def _spoil(folder: Path, provider: str, body: bytes) -> None:
    """Every saved answer of ``provider`` replaced by ``body``."""
    index = json.loads((folder / provider / "index.json").read_text())
    for entry in index.values():
        if "file" in entry:  # not the "_fetched" entry: when they were fetched
            (folder / provider / entry["file"]).write_bytes(body)


def test_a_replayed_folder_with_hostile_answers_prints_every_providers_line(
    db_path: Path, saved: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(saved, replay)
    _spoil(replay, "azure", HOSTILE["a list where an object is expected"])
    _spoil(replay, "gcp", HOSTILE["an overflowing number inside"])
    (replay / "aws" / next(p.name for p in (replay / "aws").iterdir() if p.suffix == ".body")).write_text(
        'SKU,OfferTermCode\n"' + "x" * (140 * 1024) + '",1\n'
    )
    env = {k: v for k, v in KEYS.values.items()}
    result = CliRunner().invoke(
        app,
        ["--db", str(db_path), "catalog", "refresh", "--from", str(replay)]
        + [a for p in ("aws", "azure", "gcp", "vast") for a in ("--provider", p)],
        env=env,
    )
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stdout.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["aws", "azure", "gcp", "vast"], lines
    assert all("kept the last good data" in ln for ln in lines[:3]), lines
    assert lines[3].startswith("vast: ok"), lines


def test_lines_are_printed_as_each_provider_finishes(db_path: Path, api: respx.MockRouter) -> None:
    # Ctrl-C during the second provider: the first one's line is already out.
    def interrupted(request: httpx.Request) -> httpx.Response:
        raise KeyboardInterrupt

    api.routes["vast"].side_effect = interrupted
    result = CliRunner().invoke(
        app, ["--db", str(db_path), "catalog", "refresh", "--provider", "alibaba", "--provider", "vast"]
    )
    assert result.exit_code != 0  # Click answers Ctrl-C with "Aborted!"
    assert result.stdout.startswith("alibaba: ok") and "vast:" not in result.stdout, result.stdout


# ---- property: any answer from one provider leaves the others refreshed and its own data kept ----

#: Field names the fetchers read, so that generated answers reach past the first lookup.
_FIELDS = ["Items", "NextPageLink", "retailPrice", "armSkuName", "unitPrice", "skus", "pricingInfo",
           "offers", "data", "prices", "Response", "InstanceTypeQuotaSet", "gpu_name", "num_gpus",
           "dph_total", "instance_types", "price_cents_per_hour", "gpuTypes", "terms"]  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["1e999", "-1e999", "NaN", "", "H100", "0", "\x1b[2J", "\ud800"]),
    st.text(max_size=12),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(_FIELDS), inner, max_size=5)
    ),
    max_leaves=30,
)


def _body(value: object, cut: int | None) -> bytes:
    text = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    text = text.replace(b'"1e999"', b"1e999")  # a number JSON cannot hold, bare
    return text[:cut] if cut is not None else text


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    victim=st.sampled_from(RECORDED),
    value=_JSON,
    cut=st.none() | st.integers(min_value=0, max_value=60),
)
def test_any_answer_from_one_provider_leaves_the_others_refreshed_and_its_own_data_kept(
    seeded_db: Path,
    saved: Path,
    tmp_path_factory: pytest.TempPathFactory,
    victim: str,
    value: object,
    cut: int | None,
) -> None:
    work = tmp_path_factory.mktemp("case")
    db = work / "db.sqlite"
    shutil.copy(seeded_db, db)
    replay = work / "replay"
    for provider in (victim, "vast" if victim != "vast" else "lambda"):
        shutil.copytree(saved / provider, replay / provider)
    _spoil(replay, victim, _body(value, cut))
    other = "vast" if victim != "vast" else "lambda"
    before = _refresh_rows(db, victim)
    outcomes = refresh(
        open_store(str(db)), [victim, other], RefreshOptions(credentials=KEYS, now=LATER, replay_dir=replay)
    )
    by = {o.provider: o for o in outcomes}
    assert by[other].status == "ok", by[other].line()
    assert "\n" not in by[victim].line()
    prices, runs = _refresh_rows(db, victim)
    assert runs == before[1] + 1
    if by[victim].status != "ok":
        assert prices == before[0], by[victim].line()
    shutil.rmtree(work)


# ---- every registered provider, the marketplaces added from SkyPilot's catalog included ----


def _every_key() -> Credentials:
    """A value for every variable a provider module names (endpoints as URLs), so that each
    fetcher that can reach the network does."""
    from gpuplan.catalog.providers import REGISTRY

    names = {n for m in REGISTRY.values() for n in m.FACTS.credentials}
    return Credentials(
        values={n: "https://bss.example.com" if n.endswith("ENDPOINT") else "k" for n in names}
    )


@pytest.mark.parametrize("kind", ["a list where an object is expected", "truncated JSON", "not UTF-8"])
def test_every_registered_provider_fails_alone_on_a_hostile_answer(db_path: Path, kind: str) -> None:
    from gpuplan.catalog.providers import REGISTRY

    before = {p: _refresh_rows(db_path, p) for p in REGISTRY}
    with respx.mock(assert_all_called=False) as m:
        m.route().mock(side_effect=_answer(HOSTILE[kind]))  # every host, every path
        outcomes = refresh(open_store(str(db_path)), [], RefreshOptions(credentials=_every_key(), now=NOW))
    assert [o.provider for o in outcomes] == list(REGISTRY)  # each one's line, in order, none lost
    for o in outcomes:
        assert o.status in ("failed", "skipped"), o.line()
        assert "\n" not in o.line() and len(o.line()) < 400, o.line()
        prices, runs = _refresh_rows(db_path, o.provider)
        assert (prices, runs) == (before[o.provider][0], before[o.provider][1] + 1), o.line()


# ---- values from elsewhere: a date after today ----


def _rewrite_json(folder: Path, provider: str, change: Callable[[dict], None]) -> None:
    """Every saved JSON answer of ``provider`` passed through ``change``."""
    index = json.loads((folder / provider / "index.json").read_text())
    for entry in (e for e in index.values() if "file" in e):
        body = folder / provider / entry["file"]
        doc = json.loads(body.read_text())
        change(doc)
        body.write_text(json.dumps(doc))


def test_a_price_dated_after_today_is_refused_and_does_not_hide_later_refreshes(
    db_path: Path, saved: Path, tmp_path: Path
) -> None:
    # was: stored dated 2099-01-01, the newest price of the offer until then — the next genuine
    # refresh (1.2 on a day before it) was listed by `offers` under the 2099 figure
    from datetime import date, timedelta

    future = (date.today() + timedelta(days=400)).isoformat()
    key = "us-west-1::ecs.gn7i-c8g1.2xlarge::vpc::linux::optimized"

    def priced(at: str, amount: str) -> Callable[[dict], None]:
        def change(doc: dict) -> None:
            doc["publicationDate"] = f"{at}T00:00:00Z"
            doc["pricingInfo"][key]["hours"][0]["price"] = amount

        return change

    hostile, later = tmp_path / "hostile", tmp_path / "later"
    shutil.copytree(saved / "alibaba", hostile / "alibaba")
    shutil.copytree(saved / "alibaba", later / "alibaba")
    _rewrite_json(hostile, "alibaba", priced(future, "9.9"))
    _rewrite_json(later, "alibaba", priced(date.today().isoformat(), "1.2"))
    before = _refresh_rows(db_path, "alibaba")
    [bad] = refresh(open_store(str(db_path)), ["alibaba"], RefreshOptions(now=LATER, replay_dir=hostile))
    assert bad.status == "failed", bad.line()
    assert f"dated {future}, after today" in bad.line() and "kept the last good data" in bad.line()
    assert _refresh_rows(db_path, "alibaba") == (before[0], before[1] + 1)
    [good] = refresh(open_store(str(db_path)), ["alibaba"], RefreshOptions(replay_dir=later))
    assert good.status == "ok", good.line()
    [current] = [
        o
        for o in open_store(str(db_path)).offers(provider="alibaba", pricing="on_demand")
        if o.instance_type == "ecs.gn7i-c8g1.2xlarge" and o.region == "us-west-1"
    ]
    assert (current.price, current.as_of) == (1.2, date.today().isoformat())


@pytest.mark.parametrize("cents", [3.78, 378 * 30], ids=["dollars in the cents field", "30 times the price"])
def test_a_price_ten_times_away_from_the_last_one_is_low_confidence_and_left_out_of_plans(
    db_path: Path, saved: Path, tmp_path: Path, cents: float
) -> None:
    # was: 378 cents became 3.78 (0.038 USD/h, above the 0.01 floor): stored as a high-confidence
    # price, listed first by `offers` and ranked first by `plan`
    def spoil(doc: dict) -> None:
        doc["data"]["gpu_1x_h100_sxm5"]["instance_type"]["price_cents_per_hour"] = cents

    replay = tmp_path / "replay"
    shutil.copytree(saved / "lambda", replay / "lambda")
    store = open_store(str(db_path))
    [first] = refresh(store, ["lambda"], RefreshOptions(credentials=KEYS, now=NOW, replay_dir=saved))
    assert first.status == "ok" and "low confidence" not in first.line(), first.line()
    _rewrite_json(replay, "lambda", spoil)
    [spoilt] = refresh(store, ["lambda"], RefreshOptions(credentials=KEYS, now=LATER, replay_dir=replay))
    assert spoilt.status == "ok", spoilt.line()
    assert "1 price more than 10× away from the offer's last one, stored as low confidence" in spoilt.line()
    [h100] = [
        o
        for o in store.offers(provider="lambda", pricing="on_demand")
        if o.instance_type == "gpu_1x_h100_sxm5" and o.region == "us-east-1"
    ]
    assert (h100.price, h100.confidence) == (pytest.approx(cents / 100), "low")
    # the same figure read again is still compared with the last trusted price, not with itself
    [again] = refresh(store, ["lambda"], RefreshOptions(credentials=KEYS, now=LATER, replay_dir=replay))
    assert "stored as low confidence" in again.line(), again.line()


def test_a_replay_index_that_links_out_of_the_folder_is_not_read(
    db_path: Path, saved: Path, tmp_path: Path
) -> None:
    # was: index.json, a link to a file elsewhere on this machine, was opened and parsed like the
    # saved responses it names, which are refused when they link out
    replay = tmp_path / "replay"
    shutil.copytree(saved / "vast", replay / "vast")
    elsewhere = tmp_path / "elsewhere.json"
    (replay / "vast" / "index.json").rename(elsewhere)
    (replay / "vast" / "index.json").symlink_to(elsewhere)
    before = _refresh_rows(db_path, "vast")
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER, replay_dir=replay))
    assert vast.status == "failed" and "index.json links out of" in vast.line(), vast.line()
    assert _refresh_rows(db_path, "vast") == (before[0], before[1] + 1)


# ---- a replay is dated when its responses were fetched ----


def _vast_prices(db: Path) -> set[tuple[str, str | None]]:
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as c:
        rows = c.execute(
            "SELECT prices.as_of, prices.fetched_at FROM prices JOIN offers ON offers.id = prices.offer_id "
            "JOIN imports ON imports.id = prices.import_id "
            "WHERE offers.provider = 'vast' AND imports.kind = 'refresh'"
        ).fetchall()
    return set(rows)


def test_a_replay_dates_its_prices_when_they_were_fetched_not_when_replayed(
    db_path: Path, saved: Path, tmp_path: Path
) -> None:
    # was: every replayed price dated the day of the replay, so a folder fetched weeks earlier on a
    # connected machine made its prices look fresh (no stale flag, newest in `offers`)
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER, replay_dir=saved))
    assert vast.status == "ok" and "do not say when" not in vast.line(), vast.line()
    assert _vast_prices(db_path) == {(NOW[:10], NOW)}


def test_a_replay_folder_that_does_not_say_when_it_was_fetched_says_so(
    db_path: Path, saved: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(saved / "vast", replay / "vast")
    index = json.loads((replay / "vast" / "index.json").read_text())
    del index["_fetched"]  # as saved before the fetch time was kept
    (replay / "vast" / "index.json").write_text(json.dumps(index))
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER, replay_dir=replay))
    assert vast.status == "ok", vast.line()
    assert (
        "the saved responses do not say when they were fetched: their prices are dated today" in vast.line()
    )
    assert _vast_prices(db_path) == {(LATER[:10], LATER)}


@pytest.mark.parametrize("stamp", ["2099-01-01T00:00:00+00:00", "yesterday", 7])
def test_a_replay_folder_fetched_in_the_future_or_at_no_time_fails(
    db_path: Path, saved: Path, tmp_path: Path, stamp: object
) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(saved / "vast", replay / "vast")
    index = json.loads((replay / "vast" / "index.json").read_text())
    index["_fetched"] = {"at": stamp}
    (replay / "vast" / "index.json").write_text(json.dumps(index))
    before = _refresh_rows(db_path, "vast")
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER, replay_dir=replay))
    assert vast.status == "failed" and "the replay index says its responses were fetched at" in vast.line()
    assert "\n" not in vast.line() and "kept the last good data" in vast.line(), vast.line()
    assert _refresh_rows(db_path, "vast") == (before[0], before[1] + 1)


def test_an_ok_line_names_the_rows_it_rejected_and_why(db_path: Path, saved: Path, tmp_path: Path) -> None:
    # was: "ok: 2 offers, 2 prices appended (0 new offers), 1 row rejected" and nowhere (line, --json,
    # catalog info) said which row or why
    def spoil(doc: dict) -> None:
        doc["offers"][0]["dph_total"] = -1.0  # the cheaper RTX 4090 in Norway

    replay = tmp_path / "replay"
    shutil.copytree(saved / "vast", replay / "vast")
    _rewrite_json(replay, "vast", spoil)
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER, replay_dir=replay))
    assert vast.status == "ok" and vast.rejected == 1, vast.line()
    # The listing is refused on its own; the other RTX 4090 in Norway prices the offer.
    assert (
        "1 row rejected; rejected 1x RTX-4090 (NO): Vast.ai offer 101: dph_total is -1.0, not a price "
        "above zero" in vast.line()
    )
    assert vast.offers == 2, vast.line()


# ---- JSON that Python's parser takes but no price list holds ----

#: Answers json.loads accepts: the constants no JSON standard has, and nesting past any answer's.
UNBOUNDED_JSON = {
    "NaN": (b'{"offers": [{"dph_total": NaN}], "Items": NaN, "data": NaN}', "NaN is not a number"),
    "Infinity": (b'{"offers": Infinity, "Items": [Infinity]}', "Infinity is not a number"),
    "-Infinity": (b'{"offers": [-Infinity], "Items": -Infinity}', "-Infinity is not a number"),
    "nested 65 levels": (b"[" * 65 + b"]" * 65, "nested too deeply (more than 64 levels)"),
}


@pytest.mark.parametrize("kind", list(UNBOUNDED_JSON))
def test_every_json_source_refuses_nan_infinity_and_deep_nesting_naming_the_answer(
    db_path: Path, kind: str
) -> None:
    # was: NaN read as a price or a listing refused with "not a number" (vast: "every row failed the
    # gates"), a shape error for the nesting, or a RecursionError past Python's own limit
    from gpuplan.catalog.providers import REGISTRY

    body, words = UNBOUNDED_JSON[kind]
    with respx.mock(assert_all_called=False) as m:
        m.route().mock(side_effect=_answer(body))  # every host, every path
        outcomes = refresh(open_store(str(db_path)), [], RefreshOptions(credentials=_every_key(), now=NOW))
    by = {o.provider: o.line() for o in outcomes}
    # Every source that reads JSON (direct APIs, signed ones, the price lists behind the CSV index).
    readers = ["azure", "gcp", "alibaba", "tencent", "huawei", "volcengine", "lambda", "runpod", "vast"]
    for name in readers:
        line = by[name]
        assert "failed reading the price list (DataError: the answer of https://" in line, line
        assert words in line and "kept the last good data" in line and "\n" not in line, line
    assert all(o.status in ("failed", "skipped") for o in outcomes), [o.line() for o in outcomes]
    assert set(readers) <= set(REGISTRY)


def test_a_replayed_answer_with_nan_is_refused_naming_the_answer(
    db_path: Path, saved: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(saved, replay)
    _spoil(replay, "vast", UNBOUNDED_JSON["NaN"][0])
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=NOW, replay_dir=replay))
    assert vast.status == "failed", vast.line()
    assert "the answer of https://console.vast.ai" in vast.line() and "NaN is not a number" in vast.line()


def test_when_every_vast_listing_is_refused_the_line_counts_the_checks_that_refused_them(
    db_path: Path, api: respx.MockRouter
) -> None:
    # was: "failed: every row failed the gates (Vast.ai offer 901: num_gpus is "one", …)": one
    # listing's reason, and words about gates the listings never reached
    listing = {"gpu_name": "RTX 4090", "num_gpus": 1, "geolocation": "Oslo, NO", "dph_total": 0.5}
    offers = [
        {**listing, "id": 901, "num_gpus": "one"},
        {**listing, "id": 902, "dph_total": -1},
        {**listing, "id": 903, "dph_total": 0},
        {**listing, "id": 904, "geolocation": "Atlantis"},
        {**listing, "id": 905, "num_gpus": 1.5},
    ]
    api.routes["vast"].side_effect = lambda request: httpx.Response(200, json={"offers": offers})
    [vast] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=NOW))
    assert vast.status == "failed" and vast.rejected == 5, vast.line()
    line = vast.line()
    assert "failed the gates" not in line, line
    assert line.startswith(
        "vast: failed: all 5 rows were refused (GPU count not a whole number: 2; price not above zero: 2; "
        "no host country: 1); kept the last good data"
    ), line
