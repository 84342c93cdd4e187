"""``--hosts provider`` / ``constraints.hosts: provider``: only machines a provider runs are planned.

A team with personal data (GDPR) had asked for the EU and been recommended a community host, a
machine a private individual lists on a marketplace, with no way to keep such hosts out. With
``hosts: provider`` community hosts and hosts of unknown kind are left out (unknown is never taken
for the best case), the plan says how many, a plan they empty is refused naming the filter, and a
plan that recommends one under a countries constraint names the flag beside its provider-run
alternative."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.errors import InfeasibleError, UnknownChoiceError
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.allowed_offers import allowed_offers
from gpuplan.plan.build_inputs import constraints_from_spec
from gpuplan.workload.spec import ConstraintsSpec

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice

NO_DATA = JobFacts(checkpoint_gb=5)
#: A community host (lium lists independent hosts' machines), a host of unknown kind (a provider no
#: module states terms for), both cheaper than AWS's own VM.
COMMUNITY = offer(provider="lium", region="RO", country="RO", instance_type="H100-SXM_8x", price_usd=1.0)
UNKNOWN = offer(provider="acme_gpu", region="eu-1", country="DE", instance_type="x", price_usd=2.0)


def _plan(rows, constraints: Constraints):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), NO_DATA, toy_estimator(), constraints
    )


def test_hosts_provider_recommends_a_provider_run_machine_and_says_what_it_left_out() -> None:
    rows = [COMMUNITY, UNKNOWN, offer()]
    before = _plan(rows, Constraints())
    assert (before.recommended.provider, before.recommended.host_kind) == ("lium", "community_host")
    after = _plan(rows, Constraints(hosts="provider"))
    assert (after.recommended.provider, after.recommended.host_kind) == ("aws", "cloud_vm")
    assert {o.provider for o in after.options} == {"aws"}
    assert after.excluded.get("hosts", 0) > 0
    note = next(n for n in after.notes if n.startswith("hosts: "))
    assert note.startswith("hosts: 2 community or unknown-kind hosts left out by --hosts provider (")
    # any: every host, as without it
    assert _plan(rows, Constraints(hosts="any")).recommended.provider == "lium"
    assert not any(n.startswith("hosts: ") for n in before.notes)


def test_a_community_winner_under_countries_names_hosts_provider_beside_its_alternative() -> None:
    eu_aws = offer(region="eu-central-1", country="DE")
    plan = _plan([COMMUNITY, eu_aws], Constraints(countries=("RO", "DE")))
    assert plan.recommended.provider == "lium"
    assert "aws/eu-central-1 p4d.24xlarge" in plan.host and "--hosts provider" in plan.host
    # without a countries constraint the note is as it was
    assert "--hosts" not in _plan([COMMUNITY, eu_aws], Constraints()).host


def test_the_provider_run_alternative_in_another_country_says_the_data_leaves_for_it() -> None:
    # the host line named "aws/us-east-1 p4d.24xlarge" for data in Frankfurt with no word that the
    # dataset leaves Germany for it, which the table says under the same option
    frankfurt = JobFacts(task="train", dataset_gb=20.0, data_location=("aws", "eu-central-1"))
    costs = CostFacts([aws_costs(), replace(aws_costs(), region="eu-central-1")])
    plan = plan_offers(
        OfferTable.from_rows([COMMUNITY, offer()]), costs, frankfurt, toy_estimator(), Constraints()
    )
    assert plan.recommended.provider == "lium"
    assert "aws/us-east-1 p4d.24xlarge" in plan.host and plan.host.endswith("more); data leaves DE for US")


def test_a_community_host_for_data_at_a_named_place_is_cautioned_under_the_headline() -> None:
    # "Recommended: vast/DE 1× RTX-4090 on_demand" for data in aws/eu-central-1 had said it was a
    # community host only in a line further down, with no word that the host can read the data
    import io

    from rich.console import Console

    from gpuplan.i18n import use_language
    from gpuplan.report.plan_html import plan_html
    from gpuplan.report.plan_view import plan_view

    with_data = JobFacts(checkpoint_gb=5, data_location=("aws", "eu-central-1"))
    plan = _plan_for(with_data, [COMMUNITY, offer()], Constraints(countries=("RO", "US")))
    assert plan.recommended.provider == "lium"  # the ranking is the user's: unchanged
    assert plan.host_caution == (
        "caution: a community host, a machine an independent host lists on lium: the host can read the "
        "data you put on it; --hosts provider (constraints.hosts: provider) keeps to machines a provider runs"
    )
    buf = io.StringIO()
    Console(file=buf, width=400, color_system=None).print(plan_view(plan))
    lines = buf.getvalue().splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Recommended: "))
    assert lines[at + 1].strip() == plan.host_caution
    assert plan.host_caution in plan_html(plan, "toy")
    # and in --json (what the team service's API returns), beside the host line: both had been
    # left out of the document, so a dashboard built on it never showed the caution
    from gpuplan.report.plan import plan_json

    doc = plan_json(plan, {"name": "toy", "task": "train"})
    assert (doc.host_caution, doc.host) == (plan.host_caution, plan.host)
    assert doc.host.startswith("host: a community host (")
    # a dataset brought from the user's own site is data on the host too
    assert _plan_for(JobFacts(dataset_gb=20.0), [COMMUNITY, offer()], Constraints()).host_caution
    # no data brought, or a provider-run machine recommended: nothing added
    assert _plan(([COMMUNITY, offer()]), Constraints()).host_caution == ""
    assert _plan_for(with_data, [offer()], Constraints()).host_caution == ""
    with use_language("zh"):
        zh = _plan_for(with_data, [COMMUNITY, offer()], Constraints()).host_caution
    assert zh and "--hosts provider" in zh and "caution" not in zh


def _plan_for(job: JobFacts, rows, constraints: Constraints):  # type: ignore[no-untyped-def]
    costs = CostFacts([aws_costs(), replace(aws_costs(), region="eu-central-1")])
    return plan_offers(OfferTable.from_rows(rows), costs, job, toy_estimator(), constraints)


def test_a_plan_hosts_provider_empties_is_refused_naming_the_hosts_filter() -> None:
    with pytest.raises(InfeasibleError) as e:
        _plan([COMMUNITY, UNKNOWN], Constraints(hosts="provider"))
    assert str(e.value).startswith(
        "no option is left: the hosts filter (--hosts provider: community hosts and hosts of unknown "
        "kind left out) left none"
    )
    # a budget none meets: the hosts it left out, which may meet it, are named
    with pytest.raises(InfeasibleError) as e:
        _plan([COMMUNITY, offer()], Constraints(hosts="provider", budget_usd=1.0))
    assert "--hosts provider left out 1 community or unknown-kind host" in str(e.value)


def test_the_workload_constraint_is_read_and_the_command_line_wins() -> None:
    spec = ConstraintsSpec.model_validate({"countries": ["EU"], "hosts": "Provider"})
    assert spec.hosts == "provider"
    assert constraints_from_spec(spec).provider_hosts_only
    assert not constraints_from_spec(spec, hosts="any").provider_hosts_only
    assert constraints_from_spec(ConstraintsSpec(), hosts="provider").provider_hosts_only
    with pytest.raises(ValueError, match="did you mean 'provider'"):
        ConstraintsSpec.model_validate({"hosts": "providr"})
    with pytest.raises(UnknownChoiceError, match="did you mean 'provider'"):
        Constraints(hosts="providr")


def test_estimate_and_simulate_prices_keep_to_provider_run_hosts() -> None:
    def price(provider: str, region: str, instance_type: str) -> OfferPrice:
        # what the filter reads of a catalog row
        return cast(
            "OfferPrice", SimpleNamespace(provider=provider, region=region, instance_type=instance_type)
        )

    offers = [price("lium", "RO", "H100-SXM_8x"), price("aws", "eu-central-1", "p5.48xlarge")]
    allowed = allowed_offers(offers, ConstraintsSpec(hosts="provider"))
    assert [o.provider for o in allowed.offers] == ["aws"]
    assert allowed.words() == "constraints.hosts: provider"
    assert len(allowed_offers(offers, ConstraintsSpec()).offers) == 2
