"""Where a service's users are (``serving.users_in``, ``plan --users-in``): the network round trip
from each option's region to the farthest users' country is added to its p95 time to first token
and p95 latency before their targets; a region too far is left out, one of unknown place ranks after
the known ones, and without ``users_in`` the plan says the network is not counted. A Singapore team
had been offered regions a continent away first for a chat service whose target is measured at the
user."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from llm_service import SERVICE, llama7b_profile, module_store, service
from rich.console import Console

from gpuplan.api import plan
from gpuplan.catalog import Store
from gpuplan.catalog.user_rtt import Place, great_circle_km, region_place, rtt_ms, user_rtt
from gpuplan.errors import WorkloadError
from gpuplan.i18n import use_language
from gpuplan.plan.users_far import RTT_UNKNOWN_FLAG
from gpuplan.profile.model import Profile
from one_line import refused


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    yield from module_store(seeded_copy, "users-in")


@pytest.fixture(scope="module")
def profile() -> Profile:
    return llama7b_profile()


def _at(lat: float, lon: float) -> Place:
    return Place("here", lat, lon, "city", "test")


def test_the_round_trip_follows_the_formula_by_hand() -> None:
    # a quarter of the equator: π/2 × 6,371.0088 km = 10,007.557 km
    assert great_circle_km(_at(0, 0), _at(0, 90)) == pytest.approx(10_007.557, abs=0.001)
    # 1,000 km: there and back × 2.1, at 0.66 × 299,792.458 km/s = 2 × 1000 × 2.1 / 197,863.02 s
    assert rtt_ms(1000.0) == pytest.approx(21.2268, abs=1e-4)
    # Singapore (1.2897 N, 103.8501 E) to Moscow (55.752 N, 37.6178 E), both GeoNames' points: the
    # haversine worked out by hand is 8,428.2 km, so 8,428.2 × 0.0212268 = 178.90 ms
    trip = user_rtt("aws", "ap-southeast-1", ("RU",))
    assert trip.users_at is not None and trip.users_at.name == "Moscow"
    assert trip.region_at is not None and trip.region_at.name == "Singapore"
    assert trip.distance_km == pytest.approx(8428.2, abs=0.5)
    assert trip.rtt_ms == pytest.approx(178.90, abs=0.05)
    # London (51.5085 N, 0.1257 W) to Paris (48.8534 N, 2.3488 E): 343.8 km by hand, 7.30 ms
    trip = user_rtt("aws", "eu-west-3", ("GB",))
    assert trip.distance_km == pytest.approx(343.8, abs=0.1)
    assert trip.rtt_ms == pytest.approx(7.30, abs=0.01)
    # the farthest of the countries named counts: Singapore's region to SG and CN is its trip to Shanghai
    both = user_rtt("aws", "ap-southeast-1", ("SG", "CN"))
    assert both.country == "CN" and both.rtt_ms == pytest.approx(
        user_rtt("aws", "ap-southeast-1", ("CN",)).rtt_ms
    )


def test_a_region_is_at_its_own_city_else_its_countrys_largest_and_else_unknown() -> None:
    oregon = region_place("gcp", "us-west1")
    assert oregon is not None and oregon.name == "The Dalles" and oregon.basis == "city"
    # a region named by its country only: that country's most populous city, said so
    lambda_de = region_place("lambda", "europe-central-1")
    assert lambda_de is not None and lambda_de.name == "Berlin" and lambda_de.basis == "largest_city"
    # no country, no place: unknown with its reason, never 0 ms
    unknown = user_rtt("lambda", "europe-south-1", ("SG",))
    assert unknown.rtt_ms is None and "europe-south-1" in unknown.unknown


def test_the_workload_takes_users_in_as_countries_takes_them() -> None:
    w = service(users_in=["SG", "China", "中国"])
    assert w.serving is not None and w.serving.users_in == ("SG", "CN")
    # a misspelt country: one line with "did you mean" ("Singapur", German and Spanish, is read)
    assert service(users_in=["Singapur"]).serving.users_in == ("SG",)  # type: ignore[union-attr]
    with pytest.raises(
        WorkloadError, match=r"serving\.users_in: unknown country 'Singpore'; did you mean 'singapore'"
    ):
        service(users_in=["Singpore"])
    # a city: its country, written as the field takes it (was `--countries GB`, an option of another command)
    with pytest.raises(WorkloadError) as info:
        service(users_in=["london"])
    assert "'london' is a city, not a country: it is in GB; write that (`users_in: GB`)" in str(info.value)
    assert "--countries" not in str(info.value)


def test_users_in_singapore_leaves_out_far_regions_and_shows_the_round_trip(
    store: Store, profile: Profile
) -> None:
    free = plan(service(ttft_p95_ms=300), store=store, profile=profile, providers=["aws"])
    # at the server alone the cheapest is in the US, a continent from Singapore
    assert free.recommended.region.startswith("us-")
    assert any("network round trip to your users is not counted" in n for n in free.notes)
    held = plan(service(ttft_p95_ms=300, users_in=["SG"]), store=store, profile=profile, providers=["aws"])
    assert "too_far_from_users" in held.excluded
    assert not any(o.region.startswith("us-") for o in held.options)
    for o in held.options:
        s = o.service
        assert s is not None and s.users_in == ("SG",) and s.users_rtt_s is not None
        assert s.ttft_p95_s is not None and s.ttft_p95_s + s.users_rtt_s <= 0.3
        assert "Singapore in SG" in s.users_rtt_basis
    note = next(n for n in held.notes if "too_far_from_users" in n)
    assert "Bozkurt" in note and "× 2.1" in note and " km" in note
    assert not any("is not counted" in n for n in held.notes)


def test_a_region_of_unknown_place_ranks_after_the_known_ones(store: Store, profile: Profile) -> None:
    providers = ["hyperbolic", "lambda"]
    free = plan(service(), store=store, profile=profile, providers=providers, top=400)
    # hyperbolic's prices name no region: cheapest when the users are not counted
    assert free.recommended.provider == "hyperbolic"
    held = plan(service(users_in=["SG"]), store=store, profile=profile, providers=providers, top=400)
    unknown = [RTT_UNKNOWN_FLAG in o.flags for o in held.options]
    assert not unknown[0] and any(unknown)
    assert unknown == sorted(unknown)  # every known one first
    for o, flagged in zip(held.options, unknown, strict=True):
        assert o.service is not None and (o.service.users_rtt_s is None) == flagged
    assert any("hyperbolic/default" in n and "where the region is, is not known" in n for n in held.notes)


def test_the_cli_refuses_a_misspelt_country_and_a_workload_with_noservice(
    tmp_path: Path, fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # through the console entry point, in this process: exit 1, one line on stderr, no traceback
    db = str(fresh_catalog)
    line = refused(["--db", db, "plan", str(SERVICE), "--users-in", "SG,Singpore"], capsys)
    assert "unknown country 'Singpore'; did you mean 'singapore'" in line
    batch = tmp_path / "batch.yaml"
    batch.write_text(
        "name: b\ntask: infer\nmodel: {preset: llama-8b}\ninputs: {batch_size: 8, seq_len: 512}\n",
        encoding="utf-8",
    )
    assert "--users-in is for a service" in refused(
        ["--db", db, "plan", str(batch), "--users-in", "SG"], capsys
    )


def test_the_cli_speaks_of_users_in_not_countries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A city or an unknown name given to --users-in is refused in --users-in's words (what it takes),
    not --countries' (a Londoner had been told to write `--countries GB`)."""
    db = str(tmp_path / "x.db")
    line = refused(["--db", db, "plan", str(SERVICE), "--users-in", "london"], capsys)
    assert "'london' is a city, not a country: it is in GB; write that (`--users-in GB`)" in line
    assert "--countries" not in line
    line = refused(["--db", db, "plan", str(SERVICE), "--users-in", "Singpore"], capsys)
    assert "did you mean 'singapore'" in line and "(--users-in takes the countries your users are in" in line
    assert "--countries" not in line


def test_the_words_are_in_chinese(store: Store, profile: Profile) -> None:
    with use_language("zh"):
        held = plan(
            service(ttft_p95_ms=300, users_in=["SG"]), store=store, profile=profile, providers=["aws"]
        )
        free = plan(service(ttft_p95_ms=300), store=store, profile=profile, providers=["aws"])
    assert any("离用户太远" in n and "往返" in n for n in held.notes)
    assert any("您用户" in n for n in free.notes)
    s = held.recommended.service
    assert s is not None and "km" in s.users_rtt_basis and "人口最多的城市" in s.users_rtt_basis
    assert math.isfinite(s.users_rtt_s or math.nan)


def test_where_no_region_is_near_enough_the_line_says_so(store: Store, profile: Profile) -> None:
    from gpuplan.plan import PlanInfeasibleError

    with pytest.raises(PlanInfeasibleError) as e:
        plan(
            service(ttft_p95_ms=300, users_in=["SG"]),
            store=store,
            profile=profile,
            providers=["aws"],
            countries=["US"],
        )
    said = str(e.value)
    assert "too far from the users" in said and "no region left meets the latency targets" in said
    assert re.search(r"the nearest, aws/us-[a-z0-9-]+, is \d+ ms away \(great-circle distance × 2\.1", said)


def test_the_json_and_the_serving_line_show_the_round_trip(store: Store, profile: Profile) -> None:
    from gpuplan.report.plan import option_json
    from gpuplan.report.plan_view import plan_view

    held = plan(
        service(ttft_p95_ms=300, users_in=["SG"]), store=store, profile=profile, providers=["aws"], top=3
    )
    doc = option_json(held.recommended).model_dump()["service"]
    assert doc["users_in"] == ["SG"] and doc["users_rtt_ms"] > 0 and "km" in doc["users_rtt_basis"]
    assert doc["ttft_p95_s"] * 1000 + doc["users_rtt_ms"] <= 300
    free = plan(service(ttft_p95_ms=300), store=store, profile=profile, providers=["aws"], top=3)
    assert option_json(free.recommended).model_dump()["service"]["users_rtt_ms"] is None
    console = Console(width=200, record=True)
    console.print(plan_view(held))
    text = " ".join(console.export_text().split())
    assert re.search(r"\+ [\d.]+ (ms|s) network round trip to your users \(.+ km\)", text)
    assert "to users" in text[: text.index("Recommended:")]  # under each option's GPUs


def test_a_region_in_the_users_city_is_said_to_be_there_not_0_ms(store: Store, profile: Profile) -> None:
    from gpuplan.report.plan_view import plan_view, service_lines

    # users in CN are placed in Shanghai: Alibaba's cn-shanghai is in that city, and its cell had read
    # "+ 0 ms to users" (under zh "到用户 +0 毫秒"), which looks like a figure missing
    held = plan(service(users_in=["CN"]), store=store, profile=profile, providers=["alibaba"], top=400)
    shanghai = next(o for o in held.options if o.region == "cn-shanghai")
    s = shanghai.service
    assert s is not None and s.users_rtt_s == 0.0
    console = Console(width=200, record=True)
    console.print(plan_view(held))
    table = " ".join(console.export_text().split("Recommended:")[0].split())
    assert "same city as users" in table and "+ 0 ms to users" not in table
    # ranked ahead of a dearer-alike option for its nearness: said as the same city, not "0 ms"
    from gpuplan.plan.rank import _near_words

    hangzhou = next(o for o in held.options if o.region == "cn-hangzhou")
    assert (
        _near_words(shanghai, hangzhou)
        == "ranked ahead: in the same city as your users (against 3 ms round trip)"
    )
    line = " ".join(service_lines(shanghai))
    assert "same city as your users (Shanghai" in line and "0 ms" not in line
    with use_language("zh"):
        console = Console(width=200, record=True)
        console.print(plan_view(held))
        assert "与用户同城" in console.export_text() and "+0 毫秒" not in console.export_text()


def test_chinese_output_names_the_cities_in_chinese(store: Store, profile: Profile) -> None:
    from gpuplan.plan.users_far import rtt_words

    # "Hangzhou（云厂商标明的城市）到 CN 的 Shanghai": the cities had stayed in English
    with use_language("zh"):
        held = plan(service(users_in=["CN"]), store=store, profile=profile, providers=["alibaba"], top=400)
        ulanqab = rtt_words(user_rtt("alibaba", "cn-wulanchabu", ("CN", "HK")))
    said = {o.region: o.service.users_rtt_basis for o in held.options if o.service is not None}
    assert said["cn-hangzhou"].startswith("杭州（云厂商标明的城市）到 CN 的上海"), said
    assert ulanqab.startswith("乌兰察布（") and "HK 的香港" in ulanqab, ulanqab
    # English keeps GeoNames' names
    assert rtt_words(user_rtt("alibaba", "cn-wulanchabu", ("CN",))).startswith("Ulanqab (")
