"""From a usage file and the shipped catalog to the optimiser's inputs: what is used, what is left
out and said, and how a workload demand is sized by the planner."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.commit import load_usage
from gpuplan.commit.adapters import demands_from_usage, priced_offers
from stand_in_profiles import bert_large_profile

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("tco")))
    yield st
    st.close()


def _usage(**constraints: object) -> object:
    return load_usage(
        {
            "horizon_months": 12,
            "demands": [{"name": "d", "gpu": "A10", "gpus": 1, "hours_per_month": 730}],
            "constraints": constraints,
        }
    )


def test_low_confidence_and_fractional_gpu_rows_are_left_out_and_counted(store: Store) -> None:
    offers, notes = priced_offers(store.offers(), _usage(), ["A10", "A100-SXM4-40GB"])  # type: ignore[arg-type]
    assert offers and all(o.confidence != "low" and o.gpus_per_unit >= 1 for o in offers)
    assert any("low-confidence price" in n for n in notes)
    assert any("fractional-GPU instance" in n for n in notes)  # Azure NV6ads A10 v5 is 1/6 of an A10
    assert "reserved_1y: no usable price for A10 in the catalog within the constraints; not offered" in notes


def test_article_rows_are_used_when_allowed_with_their_term(store: Store) -> None:
    usage = _usage(allow_low_confidence=True, pricing=["reserved_3y"])
    offers, _ = priced_offers(store.offers(), usage, ["A100-SXM4-40GB"])  # type: ignore[arg-type]
    assert offers and {o.pricing for o in offers} == {"reserved_3y"}
    assert {o.term_months for o in offers} == {36}
    # e.g. the article's Alibaba row: $1,000 per month.
    ali = next(o for o in offers if o.provider == "alibaba")
    assert ali.usd_per_unit_month == pytest.approx(1000.0)


def test_constraints_filter_providers_and_pricing(store: Store) -> None:
    usage = _usage(providers=["alibaba"], pricing=["on_demand", "monthly"])
    offers, _ = priced_offers(store.offers(), usage, ["A10"])  # type: ignore[arg-type]
    assert offers and {o.provider for o in offers} == {"alibaba"}
    assert {o.pricing for o in offers} == {"on_demand", "monthly"}
    monthly = next(o for o in offers if o.pricing == "monthly" and o.gpus_per_unit == 1)
    assert monthly.term_months == 1


@pytest.fixture
def bert_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every workload traces as BERT-Large (a recorded profile): no tracing in these tests."""
    import gpuplan.profile

    monkeypatch.setattr(
        gpuplan.profile, "profile", lambda workload, cache=None: bert_large_profile("tco-test")
    )


@pytest.mark.usefixtures("bert_traced")
def test_workload_demand_is_sized_by_the_planner(store: Store) -> None:
    usage = load_usage(
        {
            "horizon_months": 4,
            "base_dir": str(ROOT / "examples"),
            "demands": [
                {
                    "name": "ft",
                    "workload": "bert-large-squad.yaml",
                    "runs_by_month": [3, 0],
                    "interruptible": True,
                }
            ],
            "constraints": {"providers": ["aws"]},
        }
    )
    (demand,), (source,) = demands_from_usage(usage, store)  # type: ignore[arg-type]
    per_run = demand.gpu_hours[0] / 3
    assert demand.gpu_hours == pytest.approx((3 * per_run, 0.0, 3 * per_run, 0.0))
    assert per_run > 0 and demand.interruptible and demand.gpus_per_run >= 1
    # a run's GPU-hours: its failure-free hours and the checkpoints it writes off spot
    assert (demand.run_hours + demand.checkpoint_hours_off_spot) * demand.gpus_per_run == pytest.approx(
        per_run
    )
    # interruptible: sized with spot allowed, beside every other pricing model the usage allows and
    # its workload's constraints.pricing too ([on_demand, spot])
    assert "bert-large-squad" in source.how
    allowed = "on demand, spot"
    if source.held_out is None:
        assert f"cheapest option on {allowed}" in source.how
    else:
        # its cheapest rests on a stale spot or commitment price, which the schedule holds out: sized
        # on the planner's best option on prices known to be current, the cheapest named beside it
        assert f"best option on {allowed}" in source.how and "among prices known to be current" in source.how
        assert f"its cheapest, {source.held_out}, rests on a price as of" in source.how
    # priced only on instances its hours hold on: the one the plan sized it on, named in the line
    assert demand.host is not None
    assert f"priced on {demand.host.instance_type}, the instance its hours were sized on" in source.how


@pytest.mark.usefixtures("bert_traced")
def test_a_batch_inference_demand_resumes_by_chunks_and_training_by_checkpoints(
    store: Store, tmp_path: Path
) -> None:
    # Batch inference (task: infer, no serving: block) keeps no checkpoints, but the batch job
    # deploy writes resumes by its output chunks: on spot an interruption loses half a chunk and the
    # restart, as the planner counts it (it had been costed as restarting the run). Training
    # checkpoints.
    (tmp_path / "embed.yaml").write_text(
        "name: embed\ntask: infer\nmodel: {preset: bert-large}\ninputs: {batch_size: 64, seq_len: 128}\n"
        "data: {samples: 2000000, location: aws/us-east-1}\n"
    )
    (tmp_path / "squad.yaml").write_text((ROOT / "examples" / "bert-large-squad.yaml").read_text())
    usage = load_usage(
        {
            "horizon_months": 1,
            "base_dir": str(tmp_path),
            "demands": [
                {"name": "embed", "workload": "embed.yaml", "runs_per_month": 4, "interruptible": True},
                {
                    "name": "ft",
                    "workload": "squad.yaml",
                    "runs_per_month": 1,
                    "interruptible": True,
                },
            ],
            "constraints": {"providers": ["aws"]},
        }
    )
    (embed, ft), _ = demands_from_usage(usage, store)  # type: ignore[arg-type]
    assert embed.checkpoint_write_h == 0.0 and not embed.restarts_from_scratch
    assert ft.checkpoint_write_h > 0 and not ft.restarts_from_scratch
    # the restart carries half a chunk of 64 batches: more than a replacement and nothing redone
    plain = 10.0 / 60.0  # the planner's assumed replacement time (JobFacts.restart_h)
    assert embed.restart_h > plain


@pytest.mark.usefixtures("bert_traced")
def test_a_workload_demand_is_sized_in_the_countries(store: Store) -> None:
    usage = load_usage(
        {
            "horizon_months": 2,
            "base_dir": str(ROOT / "examples"),
            "demands": [{"name": "ft", "workload": "bert-large-squad.yaml", "runs_per_month": 1}],
            "constraints": {"countries": ["CN"]},
        }
    )
    (_demand,), (source,) = demands_from_usage(usage, store)  # type: ignore[arg-type]
    # the planner sizes it on an offer in China: "… on demand, spot: alibaba/cn-… …" (the pricing
    # models its workload allows, [on_demand, spot], of the usage's)
    from gpuplan.plan.region_countries import region_country

    where = source.how.split("on demand, spot: ", 1)[1].split(" ", 1)[0]
    assert region_country(*where.split("/", 1)) == "CN", source.how


def test_an_unknown_gpu_names_the_demand(store: Store) -> None:
    from gpuplan.errors import InputError

    usage = load_usage(
        {"horizon_months": 2, "demands": [{"name": "svc", "gpu": "a100", "gpus": 1, "hours_per_month": 9}]}
    )
    with pytest.raises(InputError, match=r"^demand 'svc': GPU 'a100' is ambiguous; say which one: A100"):
        demands_from_usage(usage, store)  # type: ignore[arg-type]


def test_floored_spot_prices_are_said_by_the_dated_price_they_were_held_to(store: Store) -> None:
    # af-south-1 publishes only its average spot price: the note said every floored price was
    # "below all" dated prices of its region, which there is one average.
    usage = _usage(providers=["aws"], regions=["af-south-1"], pricing=["spot"])
    offers, notes = priced_offers(store.offers(), usage, ["T4"])  # type: ignore[arg-type]
    floored = [n for n in notes if n.startswith("costed ")]
    assert floored == [
        "costed 5 spot price(s) of unknown age at the region's dated average spot price (no lowest zone "
        "published) (each was below it): af-south-1 (5)"
    ]
    held = [o for o in offers if o.floor_as_of]
    assert len(held) == 5 and all(o.own_usd_per_unit_hour is not None for o in held)
    assert all(o.usd_per_unit_hour > (o.own_usd_per_unit_hour or 0.0) for o in held)
    # each held to its own floor: no af-south-1 spot row is costed below its region's average
    average = {
        (p.instance_type, p.zone): f.usd_per_hour
        for p in store.offers(provider="aws", region="af-south-1", pricing="spot")
        if (f := p.dated_floor_usd_per_hour()) is not None
    }
    south = [o for o in offers if o.region == "af-south-1"]
    assert average and south
    assert all(
        o.usd_per_unit_hour >= min(average.values()) - 1e-9
        for o in south
        if o.instance_type in {k[0] for k in average}
    )


def test_a_stale_spot_price_held_to_a_fresh_one_is_said_stale_not_undated(store: Store) -> None:
    # a dated spot price older than the limit, below a fresh dated one of its GPU, is costed at the
    # fresh one; the note and the price's flag had called it "of unknown age" / "undated"
    from dataclasses import replace
    from datetime import timedelta

    usage = _usage(providers=["aws"], regions=["af-south-1"], pricing=["spot"])
    row = next(
        p
        for p in store.offers(provider="aws", region="af-south-1", pricing="spot", gpu="T4")
        if p.gpu_count == 1 and p.priced_on is not None
    )
    assert row.priced_on is not None and row.price_usd_per_gpu_hour is not None
    fresh_day = (row.priced_on - timedelta(days=5)).isoformat()
    floor = {
        "usd_per_gpu_hour": 9.0,
        "as_of": fresh_day,
        "basis": "gpu-catalog",
        "region": "aws/x",
        "source": "t",
    }
    stale = replace(
        row,
        as_of="2025-01-10",
        as_of_precision="day",
        staleness="stale",
        stale=True,
        term={"gpu_spot_floor": floor},
    )
    [offer], notes = priced_offers([stale], usage, ["T4"])  # type: ignore[arg-type]
    assert offer.usd_per_unit_hour == pytest.approx(9.0) and offer.own_stale_as_of == "2025-01-10"
    assert [n for n in notes if n.startswith("costed ")] == [
        "costed 1 spot price(s) older than the limit at the lowest dated spot price per GPU-hour of the same "
        "GPU in the catalog (aws/x; none dated in the offer's own region) (each was below it): af-south-1 (1)"
    ]


def _country(offer: object) -> str:
    from gpuplan.plan.region_countries import region_country

    return region_country(offer.provider, offer.region)  # type: ignore[attr-defined]


def _countries_used(schedule: object) -> set[str]:
    used = [c.offer for c in schedule.commitments] + list(schedule.hourly_used.values())  # type: ignore[attr-defined]
    return {_country(o) for o in used}


def test_a_tco_restricted_to_china_never_buys_outside_it(store: Store) -> None:
    from gpuplan.commit import tco

    data = {
        "horizon_months": 12,
        "demands": [
            {"name": "pool", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730},
            {"name": "burst", "gpu": "A10", "gpus": 2, "hours_per_month": 200, "interruptible": True},
        ],
    }
    anywhere = tco(data, store=store)
    # without the constraint the cheapest schedule buys outside China: the test below can fail
    assert _countries_used(anywhere.schedule) - {"CN"}
    for china in (
        tco({**data, "constraints": {"countries": ["China"]}}, store=store),
        tco(data, store=store, countries=["中国"]),  # the CLI's --countries
    ):
        assert _countries_used(china.schedule) == {"CN"}
        assert china.problem.offers and {_country(o) for o in china.problem.offers} == {"CN"}
        # the cheaper rows abroad are counted and said, not dropped unsaid
        (said,) = [n for n in china.notes if "outside constraints.countries" in n]
        assert said.startswith("left out ") and "cheaper prices may be among them" in said
    assert not [n for n in anywhere.notes if "outside constraints.countries" in n]


def test_a_mistyped_country_override_is_one_line_with_did_you_mean(store: Store) -> None:
    from gpuplan.commit import tco
    from gpuplan.errors import NotFoundError

    with pytest.raises(NotFoundError, match=r"unknown country 'Chian'; did you mean 'china'"):
        tco(_usage(), store=store, countries=["Chian"])  # type: ignore[arg-type]


def test_a_lora_demand_restarts_as_the_planner_counts_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: a reclaimed LoRA/QLoRA run's restart read the checkpoint back but not the frozen base
    # the replacement loads again (16.06 GB at gp3's baseline 0.131 GB/s: 123 s), which the planner
    # now counts.
    from dataclasses import replace

    import gpuplan.profile

    base, adapters = 8_030_261_248, 13_631_488  # Llama-3.1-8B and rank-16 q, k, v, o adapters
    p = bert_large_profile("lora")
    lora = replace(
        p,
        params=base + adapters,
        trainable_params=adapters,
        precision="bf16",
        base_quantization="nf4",
        peak=replace(p.peak, parameters_bytes=base * 0.53 + adapters * 4.0, gradients_bytes=adapters * 4.0),
    )
    monkeypatch.setattr(gpuplan.profile, "profile", lambda workload, cache=None: lora)
    usage = load_usage(
        {
            "horizon_months": 1,
            "base_dir": str(ROOT / "examples"),
            "demands": [
                {"name": "ft", "workload": "llama8b-qlora.yaml", "runs_per_month": 1, "interruptible": True}
            ],
            "constraints": {"providers": ["aws"]},
        }
    )
    (demand,), _ = demands_from_usage(usage, store)  # type: ignore[arg-type]
    read_base_h = base * 2 / 1e9 / 0.131 / 3600  # the 16-bit checkpoint as downloaded, at gp3's baseline
    # and its dataset (0.1 GB) copied again: a reclaim is taken to lose its disk, as the planner costs it
    copy_h = 0.1 / 0.131 / 3600
    assert demand.restart_h == pytest.approx(10 / 60 + demand.checkpoint_write_h + read_base_h + copy_h)


def test_a_serving_demand_restarts_as_the_planner_counts_it(store: Store) -> None:
    # was: a reclaimed serving instance came back after the 10-minute restart alone; the planner's
    # service model also reads the replica's model weights back from the instance's disk (llama-8b
    # in bf16: 16.06 GB at gp3's baseline 0.131 GB/s, 123 s), once per replica the instance holds.
    from gpuplan.plan.build_inputs import job_facts_from
    from gpuplan.profile import profile
    from gpuplan.workload.spec import load_workload

    usage = load_usage(
        {
            "horizon_months": 1,
            "base_dir": str(ROOT / "examples"),
            "demands": [
                {
                    "name": "chat",
                    "workload": "llm-inference-service.yaml",
                    "runs_per_month": 1,
                    "interruptible": True,
                }
            ],
            "constraints": {"providers": ["aws"]},
        }
    )
    (demand,), _ = demands_from_usage(usage, store)  # type: ignore[arg-type]
    workload = load_workload(ROOT / "examples" / "llm-inference-service.yaml")
    job, _ = job_facts_from(workload, profile(workload, store.local))
    assert job.weights_gb == pytest.approx(16.06, abs=0.01)
    assert demand.gpus_per_run == 1  # one L40S: one replica on its instance
    # a new instance's boot, the engine's start and the weights read: the start-up plan counts
    assert demand.restart_h == pytest.approx(10 / 60 + 60 / 3600 + job.weights_gb / 0.131 / 3600)


def _bert_usage(**demand: object) -> object:
    return load_usage(
        {
            "horizon_months": 12,
            "base_dir": str(ROOT / "examples"),
            "demands": [{"name": "ft", "workload": "bert-large-squad.yaml", **demand}],
            "constraints": {"providers": ["aws"], "pricing": ["on_demand", "spot", "reserved_1y"]},
        }
    )


@pytest.mark.usefixtures("bert_traced")
def test_a_workload_demand_grows_by_whole_runs_not_by_fractions_of_gpus(store: Store) -> None:
    (demand,), _sources = demands_from_usage(_bert_usage(runs_per_month=30, growth_pct_per_month=5), store)  # type: ignore[arg-type]
    # a run's hours: its failure-free hours and the checkpoints it writes off spot
    run_gpus, run_h = demand.gpus_per_run, demand.run_hours + demand.checkpoint_hours_off_spot
    assert run_gpus >= 1 and 30 * 1.05**11 * run_h < 730  # the runs fit in a month
    for m in range(12):
        # 30 × 1.05^m runs one after another: the run's GPUs at once, for longer each month
        # (the GPU-hours grow as before: 30 × 1.05^m × GPUs × hours).
        assert demand.gpu_hours[m] == pytest.approx(30 * 1.05**m * run_gpus * run_h)
        assert demand.levels(m) == ((run_gpus, pytest.approx(30 * 1.05**m * run_h)),)
        assert demand.gpus_at_once(m) == run_gpus  # not run_gpus × 1.05^m
    # Runs that do not fit in a month overlap in whole runs: k runs all month and one more for
    # the rest, e.g. 1.5 months of runs = one run all month and another for half of it.
    many = 1.5 * 730 / run_h
    (crowded,), _sources = demands_from_usage(_bert_usage(runs_per_month=many), store)  # type: ignore[arg-type]
    assert crowded.levels(0) == ((run_gpus, 730), (run_gpus, pytest.approx(365)))
    assert crowded.gpus_at_once(0) == 2 * run_gpus


@pytest.fixture
def current_store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    """The seeded catalog with every price taken to be current (a 20-year staleness limit): its
    spot prices are older than 180 days, and a demand is sized on a spot option only where its
    price is known to be current (tco holds stale ones out of its schedule)."""
    st = open_store(str(seeded_copy("tco-current")), stale_after_days=7300)
    yield st
    st.close()


@pytest.mark.usefixtures("bert_traced")
def test_an_interruptible_workload_demand_is_sized_with_the_planners_spot_options(
    current_store: Store,
) -> None:
    import numpy as np

    from gpuplan.commit.model import PricedOffer
    from gpuplan.commit.recourse import spot_overhead
    from gpuplan.plan import plan_workload
    from gpuplan.plan.build_inputs import job_facts_from
    from gpuplan.plan.spot import checkpoint_writes_h
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.named import named_workload

    store = current_store
    usage = _bert_usage(runs_per_month=4, interruptible=True)
    (spot_demand,), (spot_source,) = demands_from_usage(usage, store)  # type: ignore[arg-type]
    (firm,), (firm_source,) = demands_from_usage(_bert_usage(runs_per_month=4, interruptible=False), store)  # type: ignore[arg-type]
    folder = usage.folder  # type: ignore[attr-defined]
    _path, workload = named_workload(
        "bert-large-squad.yaml", base=ROOT / "examples", folder=folder, field="w", allow_code=False
    )
    prof = trace_profile(workload, store.local)

    def best(*pricing: str) -> object:
        overrides = {"providers": ("aws",), "pricing": pricing}
        return plan_workload(workload, prof, store, overrides=overrides, top=1).recommended

    with_spot, on_demand = best("on_demand", "spot"), best("on_demand")
    assert with_spot.pricing == "spot"  # type: ignore[attr-defined]
    # Interruptible: the planner's cheapest option with spot allowed gives the GPU and the count,
    # and the run's failure-free hours (the optimiser adds the spot overhead itself).
    job, _unused = job_facts_from(workload, prof)
    assert (spot_demand.gpu, spot_demand.gpus_per_run) == (with_spot.gpu, with_spot.gpu_count)  # type: ignore[attr-defined]
    assert spot_demand.run_hours == pytest.approx(with_spot.compute_time_h + job.setup_h)  # type: ignore[attr-defined]
    # the usage's pricing models its workload's [on_demand, spot] allow
    assert "on demand, spot: " + with_spot.label in spot_source.how  # type: ignore[attr-defined]
    # was: sized on spot, its hours on demand and on a commitment left out the checkpoints the
    # launch's train.py writes every 30 min whatever the pricing, which the planner's job time off
    # spot holds; on spot, a restart did not copy the dataset again (a reclaim may lose the disk)
    writes = checkpoint_writes_h(np.array([with_spot.compute_time_h]), job.checkpoint_write_h, 0.5)[0]  # type: ignore[attr-defined]
    assert writes > 0 and spot_demand.checkpoint_hours_off_spot == pytest.approx(writes)
    assert spot_demand.gpu_hours[0] == pytest.approx(
        4 * with_spot.gpu_count * (spot_demand.run_hours + writes)
    )  # type: ignore[attr-defined]
    recopy = job.recopy_hours(np.array([with_spot.nodes]))[0]  # type: ignore[attr-defined]
    assert recopy > 0 and spot_demand.restart_h == pytest.approx(job.spot_restart_h + recopy)
    assert "on spot each restart copies the 0.5 GB dataset again" in spot_source.how
    # a run's hours on spot are the planner's expected time of the option it was sized on
    risk = with_spot.spot  # type: ignore[attr-defined]
    offer = PricedOffer(
        provider="aws",
        region="us-east-1",
        instance_type=with_spot.instance_type,  # type: ignore[attr-defined]
        gpu=with_spot.gpu,  # type: ignore[attr-defined]
        gpus_per_unit=float(with_spot.gpus_per_node),  # type: ignore[attr-defined]
        pricing="spot",
        usd_per_unit_hour=1.0,
        interruptions_per_hour=risk.interruptions_per_instance_hour,
    )
    overhead = spot_overhead(spot_demand, offer)
    assert overhead is not None
    assert overhead * (spot_demand.run_hours + writes) == pytest.approx(with_spot.job_time_h)  # type: ignore[attr-defined]
    # Not interruptible: spot is not among the pricing it is sized on (a reserved year, priced
    # whole for one short run, is dearer than the hours).
    assert (firm.gpu, firm.gpus_per_run) == (on_demand.gpu, on_demand.gpu_count)  # type: ignore[attr-defined]
    # its run's hours are the planner's job time on demand, the checkpoint writes included
    assert firm.run_hours + firm.checkpoint_hours_off_spot == pytest.approx(on_demand.job_time_h)  # type: ignore[attr-defined]
    assert "option on on demand: " + on_demand.label in firm_source.how  # type: ignore[attr-defined]


def test_a_misspelt_region_is_refused_as_plan_refuses_it(store: Store) -> None:
    # Not "the demand … cannot be met … name more providers or regions": the region is named, with
    # the regions it is likely a slip of, before any demand is sized.
    from gpuplan.commit import tco
    from gpuplan.errors import NotFoundError

    usage = {
        "horizon_months": 12,
        "demands": [{"name": "d", "gpu": "A100-SXM4-80GB", "gpus": 8, "hours_per_month": 730}],
        "constraints": {"providers": ["alibaba"], "regions": ["cn-shanghia"]},
    }
    with pytest.raises(NotFoundError) as caught:
        tco(usage, store=store)
    assert str(caught.value).startswith("unknown region 'cn-shanghia'; did you mean 'cn-shanghai'")


def test_a_region_error_of_a_usage_file_is_prefixed_with_the_file_as_its_other_errors_are(
    store: Store, tmp_path: Path
) -> None:
    # was: "error: 'singapore' names a country, not a region: …" where the file's other errors read
    # "error: u_sg.yaml: …"; a mapping has no file to name, and its error is as before
    from gpuplan.commit import tco
    from gpuplan.errors import InputError

    file = tmp_path / "u_sg.yaml"
    file.write_text(
        "horizon_months: 12\n"
        "demands: [{name: d, gpu: A100-SXM4-80GB, gpus: 8, hours_per_month: 730}]\n"
        "constraints: {regions: [singapore]}\n"
    )
    with pytest.raises(InputError) as caught:
        tco(file, store=store)
    assert str(caught.value).startswith(f"{file}: 'singapore' names a country, not a region: ")
    with pytest.raises(InputError) as unnamed:
        tco(
            {
                "horizon_months": 12,
                "demands": [{"name": "d", "gpu": "A100-SXM4-80GB", "gpus": 8, "hours_per_month": 730}],
                "constraints": {"regions": ["singapore"]},
            },
            store=store,
        )
    assert str(unnamed.value).startswith("'singapore' names a country, not a region: ")


def test_a_workload_budget_does_not_refuse_sizing_what_the_year_prices_otherwise(
    store: Store, tmp_path: Path
) -> None:
    # A service whose monthly budget only a cheaper pricing fits: sizing priced it on demand and
    # applied the budget ("no option costs under ¥80,000"), refusing what `plan` accepts.
    served = (ROOT / "examples" / "llm-inference-service.yaml").read_text()
    assert "budget" not in served
    (tmp_path / "chat.yaml").write_text(served.replace("constraints:", "constraints:\n  budget_usd: 1", 1))
    usage = load_usage(
        {
            "horizon_months": 1,
            "base_dir": str(tmp_path),
            "demands": [{"name": "chat", "workload": "chat.yaml", "runs_per_month": 1}],
            "constraints": {"providers": ["aws"]},
        }
    )
    (demand,), _ = demands_from_usage(usage, store)  # type: ignore[arg-type]
    assert demand.gpu_hours[0] > 0


#: A llama-8b chat service in China (a tester's acme-chat, its ¥60,000 budget left out).
_CHAT = """\
name: acme-chat
task: infer
model: {preset: llama-8b}
inputs: {batch_size: 16, seq_len: 850}
precision: bf16
serving:
  {requests_per_s: 25, mean_requests_per_s: 8, prompt_tokens: 600, output_tokens: 250, ttft_p95_ms: 800}
constraints:
  pricing: [on_demand, monthly]
  objective: cost
"""
#: A negotiated monthly quote for one A100 80GB on Alibaba: ¥13,500 a month (¥18.49/GPU-h), far
#: below that GPU's on-demand prices in the catalog.
_A100_80GB_MONTHLY_QUOTE = (
    "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,pricing,price,currency,unit,as_of,source\n"
    "alibaba,cn-shenzhen,,ecs.gn7e-c16g1.4xlarge,A100-SXM4-80GB,1,16,125,monthly,13500,CNY,month,2026-11-20,"
    "account manager's quote\n"
)


def test_a_service_cheapest_on_a_monthly_quote_is_sized_on_that_gpu_and_the_year_buys_it(
    tmp_path: Path,
) -> None:
    # Sized on the planner's cheapest on-demand option, the service got another GPU type (A100
    # 40GB by the hour) and the year bought that type's older, dearer monthly price: the quote,
    # cheapest for a month of the service, was never looked at.
    from typer.testing import CliRunner

    from gpuplan.cli import app
    from gpuplan.commit import tco
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.spec import load_workload

    db = tmp_path / "catalog.sqlite"
    (tmp_path / "quote.csv").write_text(_A100_80GB_MONTHLY_QUOTE)
    imported = CliRunner().invoke(
        app, ["--db", str(db), "catalog", "import", str(tmp_path / "quote.csv"), "--format", "gpuplan"]
    )
    assert imported.exit_code == 0, imported.output
    (tmp_path / "chat.yaml").write_text(_CHAT)
    constraints = {"providers": ["alibaba", "tencent", "huawei", "volcengine"], "countries": ["CN"]}
    usage = load_usage(
        {
            "horizon_months": 12,
            "base_dir": str(tmp_path),
            "demands": [{"name": "chat", "workload": "chat.yaml", "runs_per_month": 1}],
            "constraints": {**constraints, "pricing": ["on_demand", "monthly"]},
        }
    )
    store = open_store(str(db))
    try:
        workload = load_workload(tmp_path / "chat.yaml")
        prof = trace_profile(workload, store.local)
        by_the_hour = plan_workload(
            workload, prof, store, overrides={**constraints, "pricing": ("on_demand",)}, top=1
        ).recommended
        report = tco(usage, store=store)
    finally:
        store.close()
    # the case: by the hour, another GPU type is the cheapest
    assert by_the_hour.gpu != "A100-SXM4-80GB"
    (source,) = report.demands
    assert source.gpu == "A100-SXM4-80GB"
    assert "on demand, monthly subscription: alibaba/cn-shenzhen" in source.how, source.how
    # the year buys the quote for the service's month after month
    assert report.schedule.commitments
    assert {c.offer.instance_type for c in report.schedule.commitments} == {"ecs.gn7e-c16g1.4xlarge"}


def test_a_spot_runs_set_up_is_its_options_own(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # The set-up of an option depends on its node count (n copies of an on-site dataset share the
    # site's uplink: JobFacts.setup_hours); a spot run's hours had taken the one-instance figure.
    import numpy as np

    from gpuplan.plan.input_types import JobFacts

    asked: list[float] = []

    def setup_hours(self: JobFacts, nodes: object, network_gbps: object = None) -> object:
        asked.extend(np.asarray(nodes, dtype=float).tolist())
        return np.full(np.asarray(nodes).shape, 7.0)  # a figure no other path gives

    (plain,), _sources = demands_from_usage(_bert_usage(runs_per_month=4, interruptible=True), store)  # type: ignore[arg-type]
    monkeypatch.setattr(JobFacts, "setup_hours", setup_hours)
    (spot,), _sources = demands_from_usage(_bert_usage(runs_per_month=4, interruptible=True), store)  # type: ignore[arg-type]
    assert asked and spot.run_hours > plain.run_hours + 6.0  # type: ignore[attr-defined]


@pytest.mark.usefixtures("bert_traced")
def test_a_big_checkpoints_runs_off_spot_write_at_the_planners_longer_interval(store: Store) -> None:
    import numpy as np

    from gpuplan.plan.build_inputs import job_facts_from
    from gpuplan.plan.spot import checkpoint_writes_h
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.named import named_workload

    # was: a run on demand paid a 177 GB checkpoint every 30 min (22.5 min a write at 0.131 GB/s:
    # 43 % of its hours) where the planner and the launch write it every 451 min (5 % at most)
    usage = _bert_usage(runs_per_month=4, checkpoint_gb=177.24)
    (demand,), (source,) = demands_from_usage(usage, store)  # type: ignore[arg-type]
    _path, workload = named_workload(
        "bert-large-squad.yaml",
        base=ROOT / "examples",
        folder=usage.folder,  # type: ignore[attr-defined]
        field="w",
        allow_code=False,
    )
    job, _notes = job_facts_from(workload, trace_profile(workload))
    write_h = 177.24 / 0.131 / 3600
    assert demand.checkpoint_write_h == pytest.approx(write_h)
    compute_h = demand.run_hours - job.setup_h  # the option's failure-free hours, its set-up out
    writes = checkpoint_writes_h(np.array([compute_h]), write_h, 451 / 60)[0]
    assert writes > 0 and demand.checkpoint_hours_off_spot == pytest.approx(writes)
    assert "checkpoints every 451 min (not the default 30 min: a write takes 22.5 min" in source.how
