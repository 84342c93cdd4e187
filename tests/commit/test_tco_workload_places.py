"""A workload demand's own place rules hold in ``gpuplan tco``: its ``constraints.countries``,
``regions`` and ``providers`` (the stricter of the usage's and the workload's) decide where its
hours, its commitments and its all-on-demand figure are bought.

A workload whose client data must stay in the EU (``countries: [EU]``) was planned in the EU by
``gpuplan plan``, and priced by ``gpuplan tco`` at a US region: tco kept only the usage's place
rules. Now the workload's hold too, the demand line says which rule placed it, and a usage and a
workload whose lists have nothing in common are refused in one line naming both."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tco_helpers import bert_workload, trace_as_bert

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.region_countries import region_country
from gpuplan.commit import TcoReport, tco
from gpuplan.errors import InputError
from gpuplan.i18n.countries import EU_MEMBERS
from gpuplan.report.tco import tco_json
from one_line import answered, refused

ROOT = Path(__file__).resolve().parents[2]
PRICING = ["on_demand", "monthly", "reserved_1y"]


@pytest.fixture(scope="module")
def db(seeded_copy: Callable[[str], Path]) -> Path:
    return seeded_copy("tco_places")


@pytest.fixture(scope="module")
def store(db: Path) -> Iterator[Store]:
    st = open_store(str(db))
    yield st
    st.close()


@pytest.fixture(autouse=True)
def bert_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    trace_as_bert(monkeypatch, "tco-places")


def _workload(folder: Path, name: str, **constraints: object) -> str:
    """BERT-Large fine-tuning on H100 SXM, with ``constraints``."""
    return bert_workload(folder, name, "H100-SXM", **constraints)


def _usage(folder: Path, workload: str, **constraints: object) -> dict[str, Any]:
    return {
        "horizon_months": 12,
        "start": "2027-01",
        "base_dir": str(folder),
        "demands": [{"name": "ft", "workload": workload, "runs_per_month": 60}],
        "constraints": {"pricing": PRICING, **constraints},
    }


@pytest.fixture(scope="module")
def plain_year(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Callable[[], TcoReport]:
    """``plain_year()``: the year of BERT fine-tuning with no place rule of its own, priced once per module.

    A tco plans its demand (seconds) and three tests compare with this one; a report is frozen, so
    each gets the one made first, whichever test asks first (with the test's BERT trace in place)."""
    made: list[TcoReport] = []

    def get() -> TcoReport:
        if not made:
            folder = tmp_path_factory.mktemp("tco-places-plain")
            made.append(tco(_usage(folder, _workload(folder, "ft.yaml")), store=store))
        return made[0]

    return get


def _bought(report: TcoReport) -> list[tuple[str, str]]:
    s = report.schedule
    offers = [s.hourly_used[k] for k in s.hourly_bought] + [c.offer for c in s.commitments]
    return [(o.provider, o.region) for o in offers]


def _in_eu(places: list[tuple[str, str]]) -> bool:
    return bool(places) and all(region_country(p, r) in EU_MEMBERS for p, r in places)


def _theirs(report: TcoReport) -> list[tuple[str, str]]:
    """(provider, region) of every offer the demand may be served by: hourly and committed."""
    (d,) = report.problem.demands
    return [(o.provider, o.region) for o in report.problem.offers if d.allows(o)]


def test_a_workloads_countries_hold_as_the_command_lines_do(
    store: Store, plain_year: Callable[[], TcoReport], tmp_path: Path
) -> None:
    plain = plain_year()
    # without a rule the cheapest is outside the EU: the checks below can fail
    assert not _in_eu(_bought(plain))
    eu = tco(_usage(tmp_path, _workload(tmp_path, "ft.yaml")), store=store, countries=["EU"])
    own = tco(_usage(tmp_path, _workload(tmp_path, "fte.yaml", countries=["EU"])), store=store)
    assert _in_eu(_bought(own)) and _in_eu(_theirs(own))
    assert own.schedule.total_usd == pytest.approx(eu.schedule.total_usd, abs=0.01)
    assert own.schedule.all_on_demand_usd == pytest.approx(eu.schedule.all_on_demand_usd, abs=0.01)
    assert own.demands[0].how.endswith("; bought only within countries: EU (the workload's)")
    doc = tco_json(own)
    placed = [(o["provider"], o["region"]) for o in [*doc["hourly_prices"], *doc["commitments"]]]
    assert _in_eu(placed)
    # the usage's list and the workload's: their common part
    both = tco(_usage(tmp_path, "fte.yaml", countries=["DE", "US", "FI"]), store=store)
    assert {region_country(p, r) for p, r in _theirs(both)} <= {"DE", "FI"}
    assert "countries: DE, FI (the usage's and the workload's in common)" in both.demands[0].how


def test_a_un_region_holds_in_tco_as_in_plan(
    store: Store, plain_year: Callable[[], TcoReport], tmp_path: Path
) -> None:
    # `--countries Asia` had been refused with "did you mean 'austria' or 'syria' or 'malaysia'?"
    from gpuplan.i18n.countries import M49_ASIA

    plain = plain_year()
    assert not all(region_country(p, r) in M49_ASIA for p, r in _bought(plain))
    for report in (
        tco(_usage(tmp_path, _workload(tmp_path, "ft.yaml")), store=store, countries=["Asia"]),
        tco(_usage(tmp_path, _workload(tmp_path, "fta.yaml", countries=["亚洲"])), store=store),
    ):
        placed = _bought(report) + _theirs(report)
        assert placed and all(region_country(p, r) in M49_ASIA for p, r in placed), placed


def test_a_usage_and_a_workload_with_no_country_in_common_are_refused_in_one_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = _usage(tmp_path, _workload(tmp_path, "fte.yaml", countries=["EU"]), countries=["US"])
    with pytest.raises(InputError):
        tco(usage, store=None, db=str(db))
    path = tmp_path / "u.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in usage.items() if k != "base_dir"}))
    said = refused(["--db", str(db), "tco", str(path)], capsys)
    assert said == (
        "error: demand 'ft': the usage's constraints.countries (US) and its workload fte.yaml's (EU) have "
        "none in common, so nowhere is left to buy its hours; widen one of them"
    )
    # the command line's countries take the usage's place, and meet the workload's the same way
    path.write_text(
        yaml.safe_dump({k: v for k, v in _usage(tmp_path, "fte.yaml").items() if k != "base_dir"})
    )
    assert "(US) and its workload fte.yaml's (EU)" in refused(
        ["--db", str(db), "tco", str(path), "--countries", "US"], capsys
    )
    doc = json.loads(answered(["--db", str(db), "tco", str(path), "--json"], capsys))
    assert _in_eu([(o["provider"], o["region"]) for o in doc["hourly_prices"] if o["bought"]])


def test_a_workloads_providers_and_regions_hold(
    store: Store, plain_year: Callable[[], TcoReport], tmp_path: Path
) -> None:
    plain = plain_year()
    assert {p for p, _r in _bought(plain)} == {"aws"}
    own = tco(_usage(tmp_path, _workload(tmp_path, "ftn.yaml", providers=["nebius"])), store=store)
    assert _bought(own) and {p for p, _r in _theirs(own)} == {"nebius"}
    assert "providers: nebius (the workload's)" in own.demands[0].how
    both = tco(_usage(tmp_path, "ftn.yaml", providers=["aws", "nebius"]), store=store)
    assert _bought(both) == _bought(own)
    assert "providers: nebius (the usage's and the workload's in common)" in both.demands[0].how
    with pytest.raises(
        InputError, match=r"constraints\.providers \(aws\) and its workload ftn\.yaml's \(nebius\)"
    ):
        tco(_usage(tmp_path, "ftn.yaml", providers=["aws"]), store=store)
    region = tco(_usage(tmp_path, _workload(tmp_path, "ftr.yaml", regions=["us-west-2"])), store=store)
    assert _bought(region) and {r for _p, r in _theirs(region)} == {"us-west-2"}
    assert "regions: us-west-2 (the workload's)" in region.demands[0].how


def test_a_workloads_pricing_models_hold_as_its_countries_do(
    store: Store, plain_year: Callable[[], TcoReport], tmp_path: Path
) -> None:
    # was: the usage's pricing list replaced the workload's (a service whose workload allows only on
    # demand and monthly was bought on spot); now their common part, said in the demand's line
    plain = plain_year()
    (d,) = plain.problem.demands
    # without a rule its commitments may be bought: the checks below can fail
    assert {o.pricing for o in plain.problem.offers if d.allows(o)} > {"on_demand"}
    own = tco(_usage(tmp_path, _workload(tmp_path, "ftp.yaml", pricing=["on_demand", "spot"])), store=store)
    (d,) = own.problem.demands
    assert {o.pricing for o in own.problem.offers if d.allows(o)} == {"on_demand"}
    assert not own.schedule.commitments and not d.interruptible
    assert "option on on demand " in own.demands[0].how
    assert own.demands[0].how.endswith("pricing: on demand (the usage's and the workload's in common)")
    with pytest.raises(
        InputError,
        match=r"constraints\.pricing \(on demand, monthly subscription, reserved 1 year\) and its workload "
        r"fts\.yaml's \(spot\) have none in common",
    ):
        tco(_usage(tmp_path, _workload(tmp_path, "fts.yaml", pricing=["spot"])), store=store)
