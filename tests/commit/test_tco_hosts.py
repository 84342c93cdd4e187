"""``constraints.hosts: provider`` / ``tco --hosts provider``: a year's schedule buys only machines a
provider runs.

A team whose personal data must stay on provider-run machines got from ``plan --hosts provider`` a
plan on one, and from ``tco`` a year's schedule that bought a community host (a machine an
independent host lists on a marketplace): tco had no such rule. Now the offers it may buy
(commitments, on demand, spot) are filtered by the plan's rule (``provider_runs``: community hosts
and hosts of unknown kind left out), the rows it leaves out are counted in the notes, a workload
demand's own ``constraints.hosts: provider`` holds too (the stricter of the two wins), a schedule it
empties is refused naming the rule, and a typo is one line."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tco_helpers import bert_workload, trace_as_bert

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.providers import provider_runs
from gpuplan.commit import TcoReport, tco
from gpuplan.errors import InfeasibleError, InputError, UnknownChoiceError
from gpuplan.report.tco import tco_json
from one_line import answered, refused

ROOT = Path(__file__).resolve().parents[2]
#: Eight H100 SXM all year: the cheapest is a community host's (vast's), dated this month (:func:`db`).
POOL: dict[str, Any] = {
    "horizon_months": 12,
    "start": "2027-01",
    "demands": [{"name": "pool", "gpu": "H100-SXM", "gpus": 8, "hours_per_month": 730}],
}


@pytest.fixture(scope="module")
def db(seeded_copy: Callable[[str], Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped catalog with a dated community host's H100 and L40S prices, the cheapest known
    to be current: the shipped marketplaces' prices are undated, and tco holds a GPU's prices not known
    to be current out of its schedule where it has a current one (AWS's), so without it every
    H100 or L40S bought would be a provider's own."""
    import json

    from gpuplan.catalog.importers.own import read_own_prices

    path = seeded_copy("tco_hosts")
    quote = {
        "provider": "vast",
        "region": "HR",
        "instance_type": "8x-H100_SXM-quoted",
        "gpu": "H100-SXM",
        "gpu_count": 8,
        "pricing": "on_demand",
        "price": 14.4,
        "currency": "USD",
        "unit": "hour",
        "as_of": "2026-11-20",
        "source": "EXAMPLE figure: a dated marketplace quote",
    }
    # and an L40S, the GPU of the workload demands below
    l40s = {**quote, "instance_type": "1x-L40S-quoted", "gpu": "L40S", "gpu_count": 1, "price": 0.5}
    l40s |= {"vcpus": 32, "memory_gib": 128}  # enough to feed a job sized on another L40S machine
    file = tmp_path_factory.mktemp("quote") / "quote.json"
    file.write_text(json.dumps([quote, l40s]), encoding="utf-8")
    st = open_store(str(path))
    try:
        own = read_own_prices(st, file)
        assert own.rows and not own.rejected, own.rejected
        st.import_offers(own.rows, provider=own.provider, source="test")
    finally:
        st.close()
    return path


@pytest.fixture(scope="module")
def store(db: Path) -> Iterator[Store]:
    st = open_store(str(db))
    yield st
    st.close()


def _bought(report: TcoReport) -> list[tuple[str, str, str]]:
    """(provider, region, instance type) of each offer the schedule buys: hourly and committed."""
    s = report.schedule
    offers = [s.hourly_used[k] for k in s.hourly_bought] + [c.offer for c in s.commitments]
    return [(o.provider, o.region, o.instance_type) for o in offers]


def _provider_run(bought: list[tuple[str, str, str]]) -> bool:
    return bool(bought) and all(provider_runs(p, i, r) for p, r, i in bought)


def _hosts_note(report: TcoReport) -> list[str]:
    return [n for n in report.notes if "not on a machine its provider runs" in n]


def test_hosts_provider_buys_a_provider_run_machine_and_counts_what_it_left_out(store: Store) -> None:
    anywhere = tco(POOL, store=store)
    # without the rule the cheapest buy is a community host: the checks below can fail
    assert not any(provider_runs(p, i, r) for p, r, i in _bought(anywhere))
    assert not _hosts_note(anywhere) and tco_json(anywhere)["hosts"] is None
    kept = tco({**POOL, "constraints": {"hosts": "provider"}}, store=store)
    assert _provider_run(_bought(kept))
    assert kept.problem.offers and all(
        provider_runs(o.provider, o.instance_type, o.region) for o in kept.problem.offers
    )
    assert kept.schedule.total_usd > anywhere.schedule.total_usd
    (note,) = _hosts_note(kept)
    assert note.startswith("left out ") and "constraints.hosts: provider" in note
    assert "cheaper prices may be among them" in note
    # the JSON document records the rule
    assert tco_json(kept)["hosts"] == "provider"
    # the command line's choice replaces the file's, either way
    assert _bought(tco(POOL, store=store, hosts="provider")) == _bought(kept)
    over = tco({**POOL, "constraints": {"hosts": "provider"}}, store=store, hosts="any")
    assert _bought(over) == _bought(anywhere) and not _hosts_note(over)


def test_a_schedule_the_rule_empties_is_refused_naming_it(store: Store) -> None:
    # RTX 4090s are sold only on community hosts in the shipped catalog
    usage = {
        "horizon_months": 12,
        "demands": [
            {"name": "render", "gpu": "RTX-4090", "gpus": 2, "gpus_per_run": 1, "hours_per_month": 300}
        ],
    }
    assert _bought(tco(usage, store=store))
    with pytest.raises(InfeasibleError) as e:
        tco(usage, store=store, hosts="provider")
    said = str(e.value)
    assert said.startswith("the demand for RTX-4090 cannot be met: no price of RTX-4090")
    assert "; constraints.hosts: provider left out " in said
    assert said.endswith(
        "offer row(s) of the GPUs demanded on community hosts or hosts of unknown kind, which may meet it: "
        "run with --hosts any to see them priced"
    )


def test_a_mistyped_rule_is_one_line_with_did_you_mean(store: Store) -> None:
    with pytest.raises(
        InputError, match=r"constraints\.hosts: unknown host rule 'providr'; did you mean 'provider'\?"
    ):
        tco({**POOL, "constraints": {"hosts": "providr"}}, store=store)
    with pytest.raises(UnknownChoiceError, match=r"did you mean 'provider'\?"):
        tco(POOL, store=store, hosts="providr")


@pytest.fixture
def bert_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    trace_as_bert(monkeypatch, "tco-hosts")


def _workload(folder: Path, name: str, **constraints: object) -> str:
    """BERT-Large fine-tuning on L40S (sold cheapest on a community host, :func:`db`), with
    ``constraints``."""
    return bert_workload(folder, name, "L40S", **constraints)


@pytest.mark.usefixtures("bert_traced")
def test_a_workload_demands_own_rule_holds_and_the_stricter_wins(store: Store, tmp_path: Path) -> None:
    def usage(workload: str, **constraints: object) -> dict[str, Any]:
        return {
            "horizon_months": 12,
            "base_dir": str(tmp_path),
            "demands": [{"name": "ft", "workload": workload, "runs_per_month": 20}],
            "constraints": constraints,
        }

    plain = tco(usage(_workload(tmp_path, "ft.yaml")), store=store)
    assert not any(provider_runs(p, i, r) for p, r, i in _bought(plain))
    # the workload asks it, the usage does not: sized and bought on provider-run machines only,
    # the rows its rule alone keeps its hours off counted
    own = tco(usage(_workload(tmp_path, "ftp.yaml", hosts="provider")), store=store)
    assert _provider_run(_bought(own))
    assert "only on machines a provider runs (hosts: provider)" in own.demands[0].how
    assert [n for n in own.notes if n.startswith("ft: its workload's constraints.hosts: provider keeps")]
    # the usage asks it, the workload says any: the usage's holds for the sizing and the buying
    said_any = tco(usage(_workload(tmp_path, "fta.yaml", hosts="any"), hosts="provider"), store=store)
    assert _provider_run(_bought(said_any)) and _bought(said_any) == _bought(own)


def test_the_command_line_and_its_typo(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path = tmp_path / "u.yaml"
    path.write_text(yaml.safe_dump({**POOL, "constraints": {"hosts": "provider"}}))
    base = ["--db", str(db), "tco", str(path), "--json"]
    doc = json.loads(answered(base, capsys))
    bought = [
        (o["provider"], o["region"], o["instance_type"]) for o in [*doc["commitments"], *doc["hourly_prices"]]
    ]
    assert doc["hosts"] == "provider" and _provider_run(bought)
    assert any("not on a machine its provider runs" in n for n in doc["notes"])
    doc = json.loads(answered([*base, "--hosts", "any"], capsys))
    assert doc["hosts"] is None
    assert not any(
        provider_runs(o["provider"], o["instance_type"], o["region"])
        for o in doc["hourly_prices"]
        if o.get("bought")
    )
    said = refused([*base, "--hosts", "providr"], capsys)
    assert said == "error: unknown host rule 'providr'; did you mean 'provider'?"
    path.write_text(yaml.safe_dump({**POOL, "constraints": {"hosts": "providr"}}))
    said = refused(base, capsys)
    assert said.endswith("constraints.hosts: unknown host rule 'providr'; did you mean 'provider'?")
