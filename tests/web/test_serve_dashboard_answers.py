"""What the dashboard shows from the API's answers in words a reader can use: a refused value says
what it should look like (never a regular expression), the map cites its source by name (never a
path on the server) and follows the table's filters, a saved plan's option names its pricing
model in the reader's language, and a tco value refused is named as the request names it, with the
problem apart for a form to name by its label."""

from __future__ import annotations

import pytest
from serve_helpers import Service, bert_workload

from gpuplan.i18n import _, use_language


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("method", "path", "body", "words"),
    [
        (
            "GET",
            "/api/v1/jobs/not-a-job",
            None,
            "a job id is 24 characters of 0-9 and a-f, as the job's address gives it",
        ),
        ("GET", "/api/v1/plans?month=2026-13", None, "give a month as YYYY-MM, e.g. 2026-07"),
        (
            "POST",
            "/api/v1/workloads",
            {"name": "bert/large", "workload": {}},
            "use letters, digits, '.', '-', '_' and spaces (not at the start or end)",
        ),
    ],
)
def test_a_value_of_the_wrong_form_is_refused_in_words_not_a_pattern(
    service: Service, lang: str, method: str, path: str, body: object, words: str
) -> None:
    sep = "&" if "?" in path else "?"
    r = service.client.request(method, f"{path}{sep}lang={lang}", json=body, headers=service.auth("plan"))
    line = r.json()["error"]
    with use_language(lang):
        said = _(words)
    assert r.status_code == 400 and line.endswith(said), line
    assert "pattern" not in line and "^" not in line and "[" not in line, line


_TCO_USAGE = {
    "horizon_months": 12,
    "start": "2027-01",
    "demands": [{"name": "pool", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730}],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("change", "field", "starts"),
    [
        ({"constraints": {"providers": ["awz"]}}, "usage.constraints.providers", "unknown provider 'awz'"),
        (
            {"demands": [{"name": "pool", "gpu": "A100X", "gpus": 8, "hours_per_month": 730}]},
            "usage.demands[0].gpu",
            "unknown GPU 'A100X'",
        ),
        ({"horizon_months": 0}, "usage.horizon_months", "must be ≥ 1 (got 0)"),
        ({"base_dir": "/srv"}, "usage.base_dir", "the service reads no folder of its disk"),
    ],
)
def test_a_refused_tco_value_is_named_as_the_request_names_it_with_the_problem_apart(
    service: Service, lang: str, change: dict[str, object], field: str, starts: str
) -> None:
    # The line began with the usage file's path ("constraints.providers: …", "demand 'pool': …")
    # and carried no field: the dashboard could only show that path, meant for the command line.
    r = service.client.post(
        f"/api/v1/tco?lang={lang}", json={"usage": {**_TCO_USAGE, **change}}, headers=service.auth("plan")
    )
    assert r.status_code == 400, r.text
    doc = r.json()
    with use_language(lang):
        where = _("{where}: {problem}{more}").format(where=field, problem="", more="")
    assert doc["field"] == field and doc["kind"] == "invalid_request"
    assert doc["error"] == where + doc["message"], doc
    if lang == "en":
        assert doc["message"].startswith(starts), doc
    else:  # the problem in Chinese, not the English line
        assert not doc["message"].startswith(starts) and "：" in doc["error"], doc


def test_the_map_cites_its_source_by_name_and_not_a_path_on_the_server(service: Service) -> None:
    doc = service.client.get("/api/v1/offers/countries", headers=service.auth("read")).json()
    if doc["map_source"] is None:
        pytest.skip("this machine has no time zone table (tzdata) to place countries")
    assert "IANA" in doc["map_source"] and "https://www.iana.org/time-zones" in doc["map_source"]
    assert "/usr/" not in doc["map_source"] and "zone.tab" not in doc["map_source"]


def test_a_price_in_the_history_says_how_old_it_is_as_an_offers_price_does(service: Service) -> None:
    # The history sent each price's date only: the page could not mark a stale one as Offers does.
    from datetime import date

    from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS, price_age

    h = service.auth("read")
    prices = service.client.get("/api/v1/catalog/history?instance=ecs.gn6v-c8g1.2xlarge", headers=h).json()[
        "prices"
    ]
    assert prices
    for p in prices:
        age = price_age(p["as_of"], date.today(), DEFAULT_STALE_AFTER_DAYS)
        assert (p["age_days"], p["staleness"]) == (age.age_days, age.staleness), p
    assert {p["staleness"] for p in prices} & {"stale", "unknown"}  # the seeded catalog has old ones


def test_the_maps_country_names_are_in_the_requests_language(service: Service) -> None:
    # The names were ISO 3166's English under zh (Germany, not 德国) while the page around them is Chinese.
    from gpuplan.i18n import use_language
    from gpuplan.i18n.countries import country_name

    c, h = service.client, service.auth("read")
    zh = c.get("/api/v1/offers/countries?gpu=H100", headers={**h, "Accept-Language": "zh-CN"}).json()
    en = c.get("/api/v1/offers/countries?gpu=H100", headers=h).json()
    codes = [x["country"] for x in zh["countries"]]
    assert "DE" in codes and codes == [x["country"] for x in en["countries"]]
    with use_language("zh"):
        assert [x["name"] for x in zh["countries"]] == [country_name(code) for code in codes]
    names = {x["country"]: x["name"] for x in zh["countries"]}
    assert names["DE"] == "德国" and {x["country"]: x["name"] for x in en["countries"]}["DE"] == "Germany"


def test_the_map_follows_the_tables_provider_and_price_filters(service: Service) -> None:
    from gpuplan.plan.region_countries import region_country

    c, h = service.client, service.auth("read")
    everywhere = c.get("/api/v1/offers/countries?gpu=H100", headers=h).json()["countries"]
    listed = c.get("/api/v1/offers?gpu=H100&all_regions=true", headers=h).json()["offers"]
    providers = sorted({o["provider"] for o in listed})
    assert len(providers) >= 2, providers
    one = providers[0]
    theirs = c.get(f"/api/v1/offers/countries?gpu=H100&provider={one}", headers=h).json()["countries"]
    # each country of one provider's map counts only that provider's offers
    expected: dict[str, int] = {}
    for o in listed:
        code = region_country(o["provider"], o["region"])
        if o["provider"] == one and code and o["price_usd_per_gpu_hour"] is not None:
            expected[code] = expected.get(code, 0) + 1
    assert {x["country"]: x["offers"] for x in theirs} == expected
    assert sum(x["offers"] for x in theirs) < sum(x["offers"] for x in everywhere)
    # a cap on the price per instance-hour leaves the dearer offers off the map too
    prices = sorted(o["price_usd_per_hour"] for o in listed if o["price_usd_per_hour"] is not None)
    cap = prices[len(prices) // 2]
    capped = c.get(f"/api/v1/offers/countries?gpu=H100&max_price={cap}", headers=h).json()["countries"]
    assert sum(x["offers"] for x in capped) < sum(x["offers"] for x in everywhere)
    bad = c.get("/api/v1/offers/countries?provider=awz", headers=h)
    assert bad.status_code in (400, 404, 422) and "aws" in bad.json()["error"], bad.text


def test_a_saved_plans_option_names_its_pricing_model_in_the_readers_language(service: Service) -> None:
    from gpuplan.vocab import pricing_name

    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    saved = c.post("/api/v1/plans", json={"name": "bert", "month": "2027-03"}, headers=service.auth("plan"))
    assert saved.status_code == 201, saved.text
    code = saved.json()["document"]["recommended"]["pricing"]
    with use_language("zh"):
        words = pricing_name(code)
    assert words != code
    listed = c.get("/api/v1/plans?lang=zh", headers=service.auth("read")).json()["plans"]
    assert listed[0]["recommended"].endswith(f", {words}"), listed[0]["recommended"]
    one = c.get(f"/api/v1/plans/{listed[0]['id']}?lang=zh", headers=service.auth("read")).json()
    assert one["recommended"].endswith(f", {words}")


def _changed(workload: dict[str, object], path: str, value: object) -> dict[str, object]:
    """``workload`` with the value at the dotted ``path`` replaced."""
    import copy

    changed = copy.deepcopy(workload)
    *parents, last = path.split(".")
    node: dict[str, object] = changed
    for key in parents:
        node = node[key]  # type: ignore[assignment]
    node[last] = value
    return changed


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("route", ["/api/v1/plan", "/api/v1/estimate"])
@pytest.mark.parametrize(
    ("path", "value", "starts"),
    [
        ("inputs.batch_size", -3, "must be ≥ 1 (got -3)"),
        ("constraints.deadline", "6 fortnights", "expected a duration like 12h"),
        ("constraints.pricing", ["reserved"], "unknown pricing model 'reserved'"),
        ("model.preset", "bert-larg", "unknown preset 'bert-larg'"),
    ],
)
def test_a_refused_workload_value_is_named_as_the_request_names_it_with_the_problem_apart(
    service: Service, lang: str, route: str, path: str, value: object, starts: str
) -> None:
    # The line began with the workload's own path ("inputs.batch_size: …") and carried no field
    # (kind WorkloadError): the dashboard could not name the field by its form label.
    body = {"workload": _changed(bert_workload(), path, value)}
    r = service.client.post(f"{route}?lang={lang}", json=body, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    doc = r.json()
    field = f"workload.{path}"
    with use_language(lang):
        where = _("{where}: {problem}{more}").format(where=field, problem="", more="")
    assert doc["field"] == field and doc["kind"] == "invalid_request", doc
    assert doc["error"] == where + doc["message"], doc
    if lang == "en":
        assert doc["message"].startswith(starts), doc
    else:  # the problem in Chinese, not the English line
        assert not doc["message"].startswith(starts) and "：" in doc["error"], doc
