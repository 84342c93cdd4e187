"""Constraints that contradict each other, or name nothing the catalog has, are refused up front in
one line; a known filter that leaves nothing is named in the "no option is left" line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.catalog import Store, open_store
from gpuplan.errors import GpuplanError
from gpuplan.i18n import use_language
from gpuplan.i18n.countries import EU_MEMBERS
from gpuplan.i18n.error_text import error_text
from gpuplan.plan import (
    Constraints,
    CostFacts,
    JobFacts,
    OfferTable,
    PlanInfeasibleError,
    PlanOffer,
    plan_offers,
)
from gpuplan.plan.contradictions import check_constraints


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Store:
    return open_store(str(seeded_copy("contradictions")))


def _in_chinese(error: BaseException) -> str:
    with use_language("zh"):
        return error_text(error)


def _refusal(store: Store, **given: object) -> str:
    with pytest.raises(GpuplanError) as info:
        check_constraints(Constraints(**given), store)  # type: ignore[arg-type]
    return str(info.value)


def test_a_pricing_model_the_commitment_forbids_is_named_with_both_settings(store: Store) -> None:
    said = _refusal(store, pricing=("reserved_1y",), commitment="none")
    assert said.startswith("pricing reserved_1y contradicts commitment none"), said
    assert "commitment 1y" in said
    # No commitment given accepts a month at most: a reservation alone needs one said.
    said = _refusal(store, pricing=("reserved_3y",))
    assert "needs commitment 3y" in said, said
    # One pricing model the commitment allows is enough to plan on.
    check_constraints(Constraints(pricing=("reserved_1y", "on_demand"), commitment="none"), store)
    check_constraints(Constraints(pricing=("reserved_1y",), commitment="3y"), store)


def test_a_region_of_none_of_the_named_providers_says_whose_it_is(store: Store) -> None:
    said = _refusal(store, providers=("aws",), regions=("cn-shanghai",))
    assert said.startswith("region cn-shanghai is not a region of aws: it is a region of "), said
    assert "alibaba" in said and "aws," not in said.split("region of ")[2]
    # A region of one of the named providers is fine; a near miss gets the named providers' regions.
    check_constraints(Constraints(providers=("aws", "alibaba"), regions=("cn-shanghai", "us-east-1")), store)
    said = _refusal(store, providers=("aws",), regions=("us-eest-1",))
    assert said.startswith("unknown region 'us-eest-1'; did you mean ") and "'us-east-1'" in said, said


def test_a_real_region_the_catalog_has_no_offer_in_says_so_not_did_you_mean_itself(store: Store) -> None:
    # was: "unknown region 'westeurope'; did you mean 'westeurope' or 'northeurope'?" (the shipped
    # Azure prices are of its US regions)
    said = _refusal(store, regions=("westeurope",))
    assert said.startswith(
        "region westeurope of azure has no offer in the catalog, which holds azure's in "
    ), said
    assert "eastus" in said
    assert "`gpuplan catalog refresh --provider azure`" in said and "did you mean" not in said
    assert "did you mean 'us-east-1'" in _refusal(store, regions=("us-eats-1",))


def test_an_unknown_compliance_label_lists_the_known_ones(store: Store) -> None:
    said = _refusal(store, compliance=("hipaa",))
    assert said == "unknown compliance label 'hipaa'; the catalog knows: MLPS 2.0 level 3"
    assert "did you mean 'MLPS 2.0 level 3'?" in _refusal(store, compliance=("mlps",))
    # Any spelling of a known label is known: what no offer carries is the planner's to say.
    check_constraints(Constraints(compliance=("mlps3",), allow_low_confidence=True), store)


def test_a_label_held_only_as_an_articles_claim_is_refused_unless_low_confidence_is_allowed(
    store: Store,
) -> None:
    # The shipped catalog has MLPS 2.0 level 3 for Huawei only from an undated web article
    # (confidence low): it had met --compliance mlps-3 and been recommended as certified.
    with pytest.raises(GpuplanError) as info:
        check_constraints(Constraints(compliance=("mlps-3",)), store)
    said = error_text(info.value)
    assert said.startswith(
        "MLPS 2.0 level 3 is known for huawei only as the claim of a low-confidence source, "
        "not a certificate ("
    ), said
    assert "undated Chinese web article" in said
    assert said.endswith(
        "check the provider's certificate, then add --allow-low-confidence "
        "(allow_low_confidence: true) to count it"
    ), said
    zh = _in_chinese(info.value)
    assert zh.startswith("MLPS 2.0 level 3 对 huawei 而言仅是低可信度来源的说法，并非证书（"), zh
    then = "请您先核实云厂商的证书，再加上 --allow-low-confidence（allow_low_confidence: true）将其计入"
    assert zh.endswith(then), zh
    # Asked for, the claim counts (the options then say it is one).
    check_constraints(Constraints(compliance=("mlps-3",), allow_low_confidence=True), store)


def test_a_label_a_reliable_source_gives_satisfies_without_low_confidence(fresh_catalog: Path) -> None:
    from sqlalchemy import insert, select

    from gpuplan.catalog import schema as t

    own = open_store(str(fresh_catalog))
    try:
        with own.engine.begin() as conn:
            import_id = conn.execute(select(t.imports.c.id).limit(1)).scalar_one()
            conn.execute(
                insert(t.compliance_labels).values(
                    provider="alibaba", region="cn-shanghai", label="MLPS 2.0 level 3", as_of="2026-01-01",
                    source="the provider's certificate list", confidence="high", import_id=import_id,
                )
            )  # fmt: skip
        own.invalidate_caches()
        assert own.compliance_labels("alibaba", "cn-shanghai") == ("MLPS 2.0 level 3",)
        assert own.compliance_claims("alibaba", "cn-shanghai") == ()
        assert own.compliance_labels("huawei", "cn-north-4") == ()
        assert own.compliance_claims("huawei", "cn-north-4") == ("MLPS 2.0 level 3",)
        check_constraints(Constraints(compliance=("mlps-3",)), own)
        # Among the providers named, Huawei has it only as a claim.
        with pytest.raises(GpuplanError, match="known for huawei only as the claim"):
            check_constraints(Constraints(compliance=("mlps-3",), providers=("huawei",)), own)
        offers = own.offers(provider="alibaba", region="cn-shanghai")
        assert offers and all(
            o.compliance == ("MLPS 2.0 level 3",) and not o.compliance_claimed for o in offers
        )
        offers = own.offers(provider="huawei")
        assert offers and all(
            not o.compliance and o.compliance_claimed == ("MLPS 2.0 level 3",) for o in offers
        )
    finally:
        own.close()


JOB = JobFacts(dataset_gb=10, checkpoint_gb=1, data_location=("aws", "us-east-1"))


@pytest.mark.parametrize(
    ("constraints", "said"),
    [
        (Constraints(countries=("AQ",)), "no option is left: the country filter (AQ) left none; "),
        (Constraints(compliance=("mlps3",)), "no option is left: the compliance filter (mlps3) left none; "),
        (
            Constraints(providers=("aws",), min_gpu_memory_gib=100.0),
            "no option is left: the GPU memory filter (at least 100 GiB) left none; ",
        ),
        (
            Constraints(pricing=("spot",), countries=("US",)),
            "no option is left: the pricing filter (spot) left none; ",
        ),
        (
            Constraints(min_gpus=32, max_nodes=2),
            "no option is left: the GPU count floor (min_gpus: at least 32) left none: 32 GPUs take "
            "more instances than a job may span (2, --max-nodes); give --max-nodes 4 or more; ",
        ),
        (
            # past 64 GPUs the default instance limit (8) was the cause the line did not name
            Constraints(min_gpus=72),
            "no option is left: the GPU count floor (min_gpus: at least 72) left none: 72 GPUs take "
            "more instances than a job may span (8, the limit without --max-nodes); give --max-nodes 9 "
            "or more; ",
        ),
    ],
)
def test_the_filter_that_emptied_the_field_is_named(constraints: Constraints, said: str) -> None:
    # The line gave only the counts ("candidates excluded by country 2"), not which filter it was.
    rows = [offer(), offer(region="eu-west-1", country="IE", price_usd=25.0)]
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), constraints)
    assert str(info.value).startswith(said), str(info.value)


def test_the_max_nodes_the_floor_asks_for_plans_it() -> None:
    # the --max-nodes the line names is enough: 9 instances of 8 GPUs hold the floor of 72
    rows = [offer(), offer(region="eu-west-1", country="IE", price_usd=25.0)]
    held = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        JOB,
        toy_estimator(),
        Constraints(min_gpus=72, max_nodes=9),
    )
    assert held.options and {o.gpu_count for o in held.options} == {72}


def test_a_compliance_label_held_only_where_the_places_leave_out_says_where_it_is_held() -> None:
    # was: "the compliance filter (等保三级) left none; candidates excluded by country …": the only
    # offers claiming MLPS level 3 were Huawei's of region "unspecified" (no known country), which
    # --countries CN left out; the line blamed the label and named it as the user typed it.
    mlps = {"compliance_claimed": ("MLPS 2.0 level 3",)}
    rows = [
        offer(provider="alibaba", region="cn-beijing", country="CN"),
        offer(provider="huawei", region="unspecified", country="", **mlps),  # type: ignore[arg-type]
    ]
    asked = Constraints(compliance=("等保三级",), countries=("CN",), allow_low_confidence=True)
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
    assert str(info.value).startswith(
        "no option is left: the compliance filter (等保三级) left none: the only offers holding "
        "MLPS 2.0 level 3 (huawei/unspecified) are in a region whose country is unknown"
    ), str(info.value)
    # held in a known country, by a provider the user left out: where it is held
    rows[1] = offer(provider="huawei", region="cn-north-4", country="CN", **mlps)  # type: ignore[arg-type]
    asked = Constraints(compliance=("mlps3",), providers=("alibaba",), allow_low_confidence=True)
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
    assert "left none: the only offers holding MLPS 2.0 level 3 are at huawei/cn-north-4, which your " in str(
        info.value
    )


def test_the_service_refuses_a_contradictory_plan_request_before_queueing(store: Store) -> None:
    from gpuplan.web.requests import PlanRequest
    from gpuplan.web.service import check_plan_request
    from gpuplan.workload import load_workload

    workload = load_workload(Path(__file__).resolve().parents[2] / "examples" / "resnet50-imagenet.yaml")
    for fields, said in [
        ({"pricing": ["reserved_1y"], "commitment": "none"}, "contradicts commitment none"),
        ({"providers": ["aws"], "regions": ["cn-shanghai"]}, "is not a region of aws"),
        ({"compliance": ["hipaa"]}, "unknown compliance label 'hipaa'"),
        ({"gpus": ["T4", "A10x"]}, "unknown GPU 'A10x'; did you mean"),
    ]:
        request = PlanRequest(workload={}, **fields)  # type: ignore[arg-type]
        with pytest.raises(GpuplanError, match=said):
            check_plan_request(store, request, workload)


def _infeasible(rows: list[PlanOffer], asked: Constraints) -> PlanInfeasibleError:
    """The refusal a plan of ``rows`` (the toy job) under ``asked`` ends in."""
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
    return info.value


def test_a_pricing_model_the_places_allowed_do_not_sell_says_where_it_is_sold() -> None:
    # Region and pricing together left nothing, neither alone: the line had given only the counts
    # ("candidates excluded by region 4, pricing 2"), not that monthly is sold elsewhere.
    rows = [
        offer(),
        offer(pricing="spot", price_usd=8.0),
        offer(provider="alibaba", region="cn-shanghai", country="CN", pricing="monthly", price_usd=15.0),
        offer(provider="alibaba", region="cn-beijing", country="CN", pricing="on_demand", price_usd=20.0),
    ]
    monthly = Constraints(regions=("us-east-1",), pricing=("monthly",), commitment="monthly")
    said = str(_infeasible(rows, monthly))
    assert (
        "; monthly is priced only at alibaba/cn-shanghai; the offers in region us-east-1 are priced "
        "only as on_demand or spot"
    ) in said, said
    # Where the provider named sells it elsewhere, those places are named first (Azure in the EU had
    # been told of Alibaba's Chinese regions)
    rows.append(offer(region="eu-north-1", country="SE", pricing="monthly", price_usd=14.0))
    aws = Constraints(providers=("aws",), regions=("us-east-1",), pricing=("monthly",), commitment="monthly")
    said = str(_infeasible(rows, aws))
    assert "; monthly is priced only at aws/eu-north-1; the offers of aws in region us-east-1 are" in said
    # none of them within the countries asked for: those outside are counted, not named
    germany = Constraints(providers=("aws",), countries=("DE",), pricing=("monthly",), commitment="monthly")
    said = str(_infeasible(rows, germany))
    assert (
        "; monthly is priced nowhere within country DE, only at 2 places elsewhere; no offer of aws in "
        "country DE is priced"
    ) in said, said
    rows.pop()
    # Where the places do sell it, something else left no option: nothing of the kind is said.
    sold = Constraints(regions=("cn-shanghai",), pricing=("monthly",), commitment="monthly", max_gpus=4)
    said = str(_infeasible(rows, sold))
    assert "priced only at" not in said, said


def test_providers_the_catalog_prices_nowhere_are_refused_for_that_not_for_the_countries() -> None:
    # was (--providers huawei,volcengine --countries CN): "no option is left: the country filter (CN)
    # left none; …", when none of their rows has a price the plan can use: unpriced, or a price whose
    # source names no region (so no country)
    rows = [
        offer(provider="alibaba", region="cn-beijing", country="CN"),
        offer(provider="huawei", region="unspecified", country="", confidence="low"),
        offer(provider="huawei", region="unspecified", country="", pricing="", price_usd=None),
        offer(provider="volcengine", region="unspecified", country="", confidence="low"),
        offer(provider="volcengine", region="cn-beijing", country="CN", confidence="low"),
    ]
    asked = Constraints(providers=("huawei", "volcengine"), countries=("CN",))
    said = str(_infeasible(rows, asked))
    assert said.startswith(
        "no option is left: no offer of huawei or volcengine in the catalog has a price this plan can "
        "use (4 rows: unpriced 1, region not named 2, low-confidence 1); bring your own quotes with "
        "`gpuplan catalog import FILE --format gpuplan --provider huawei`"
    ), said
    assert "country filter" not in said
    # where the pricing models are priced in the countries asked for follows
    assert " is priced only at alibaba/cn-beijing; no offer of huawei or volcengine in country CN" in str(
        _infeasible(rows[:4], asked)
    )
    zh = _in_chinese(_infeasible(rows, asked))
    assert (
        zh.startswith("没有剩下可选的方案：") and "--provider huawei" in zh and "国家/地区筛选" not in zh
    ), zh
    # low-confidence prices allowed, Volcano Engine's in cn-beijing is one the plan uses: no such line
    allowed = replace(asked, allow_low_confidence=True)
    plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), allowed)


def test_where_a_pricing_model_is_priced_names_the_places_in_the_countries_asked_for_only() -> None:
    # was (--countries DE --regions eu-west-1 --pricing reserved_3y): "reserved_3y is priced only at
    # aws/af-south-1, aws/ap-east-1, …": the providers named had been looked at first, the world over
    rows = [
        offer(),
        offer(region="af-south-1", country="ZA", pricing="reserved_3y", price_usd=9.0),
        offer(region="eu-central-1", country="DE", pricing="reserved_3y", price_usd=10.0),
        offer(provider="gcp", region="europe-west3", country="DE", pricing="reserved_3y", price_usd=11.0),
        offer(region="eu-west-1", country="IE", price_usd=12.0),
    ]
    reserved = Constraints(pricing=("reserved_3y",), commitment="3y")
    asked = replace(reserved, providers=("aws",), regions=("eu-west-1",), countries=("DE",))
    said = str(_infeasible(rows, asked))
    assert (
        "; within country DE, reserved_3y is priced only at aws/eu-central-1 (and at 1 place elsewhere); "
        "no offer of aws in region eu-west-1 and country DE is priced: region eu-west-1 is in IE, not DE"
    ) in said, said
    assert "af-south-1" not in said
    zh = _in_chinese(_infeasible(rows, asked))
    assert "af-south-1" not in zh and "aws/eu-central-1" in zh and "国家/地区 DE" in zh, zh
    # a provider with no place in them: the places of others within them, the EU named as one
    eu = replace(reserved, providers=("azure",), countries=EU_MEMBERS)
    said = str(_infeasible(rows, eu))
    assert (
        "; within countries EU, reserved_3y is priced only at aws/eu-central-1, gcp/europe-west3 (and at "
        "1 place elsewhere); no offer of azure in countries EU is priced"
    ) in said, said


def test_the_places_with_no_priced_offer_are_said_as_one_sentence() -> None:
    # was: "…; aws, azure, gcp, us-east-1, DE has no priced offer" (the filters' values in a row)
    rows = [
        offer(),
        offer(region="eu-central-1", country="DE", pricing="spot", price_usd=8.0),
        offer(provider="gcp", region="europe-west3", country="DE", price_usd=9.0),
    ]
    asked = Constraints(providers=("aws", "azure", "gcp"), regions=("us-east-1",), countries=("DE",))
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
    said = str(info.value)
    assert said.endswith(
        "; no offer of aws, azure or gcp in region us-east-1 and country DE is priced: region "
        "us-east-1 is in US, not DE"
    ), said
    zh = _in_chinese(info.value)
    where = "aws、azure 或 gcp 在地域 us-east-1 和国家/地区 DE"
    assert zh.endswith(f"；{where} 的方案都没有报价：地域 us-east-1 位于 US，不在 DE"), zh
    # the EU's 27 members are named as the EU, not code by code
    eu = Constraints(providers=("aws",), regions=("us-east-1",), countries=EU_MEMBERS)
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), eu)
    said = str(info.value)
    assert "the country filter (EU) left none" in said, said
    assert said.endswith("in region us-east-1 and countries EU is priced: region us-east-1 is in US, not EU")


def test_a_provider_priced_only_at_low_confidence_is_not_told_where_else_it_is_sold() -> None:
    # was (--providers 火山引擎): "…left none once low-confidence prices were excluded (…); …;
    # on_demand, spot, … is priced only at alibaba/cn-beijing … and 205 more": the provider does
    # price it, at low confidence, which the line's first clause already says
    rows = [
        offer(),
        offer(provider="volcengine", region="cn-beijing", country="CN", price_usd=15.0, confidence="low"),
    ]
    asked = Constraints(providers=("volcengine",))
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
    said = str(info.value)
    assert "low-confidence" in said and "priced only at" not in said, said


def test_a_reserved_pricing_listed_without_a_commitment_is_said_in_the_notes() -> None:
    # was: pricing [on_demand, spot, reserved_1y] with no commitment planned on the first two, the
    # reserved prices left out with only "needs_commitment 1" among the counts
    rows = [offer(), offer(pricing="reserved_1y", price_usd=12.0)]

    def notes(**given: object) -> list[str]:
        asked = Constraints(**given)  # type: ignore[arg-type]
        plan = plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
        return [n for n in plan.notes if n.startswith("pricing: ")]

    head = (
        "pricing: reserved_1y left out (needs_commitment 8): reserved_1y prices are compared only with "
        "--commitment 1y or longer (constraints.commitment: 1y in the workload); "
    )
    # the one reserved offer on 1 to 8 instances: 8 candidates
    assert notes(pricing=("on_demand", "reserved_1y")) == [
        head + "no commitment was given, which accepts one month at most"
    ]
    assert notes(pricing=("on_demand", "reserved_1y"), commitment="none")[0].endswith(
        "; the commitment given is none"
    )
    # a commitment that compares them, or no pricing listed (every model, reserved ones only with a
    # commitment): nothing to say
    assert notes(pricing=("on_demand", "reserved_1y"), commitment="1y") == []
    assert notes() == []
