"""What a workload demand's runs pay besides GPU time (data in and out, storage, licences) is in the
tco total, depends on where the runs are placed, and is shown apart; a direct demand's is not
counted and said so, and one that is not known to checkpoint restarts from scratch on spot."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from tco_helpers import priced_offer

from gpuplan.catalog import Store, open_store
from gpuplan.commit import Demand, PricedOffer, TcoProblem, Usage, load_usage, optimise, tco
from gpuplan.commit.adapters import demands_from_usage
from gpuplan.commit.model import RunData
from gpuplan.i18n import use_language
from gpuplan.plan.border import data_origins
from gpuplan.plan.input_types import JobFacts
from gpuplan.report.tco import summary_lines, tco_json, tco_view
from gpuplan.report.tco_html import monthly_cost_svg
from stand_in_profiles import bert_large_profile


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("tco-data")))
    yield st
    st.close()


@pytest.fixture
def bert_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every workload traces as BERT-Large (a recorded profile): no tracing in these tests."""
    import gpuplan.profile

    monkeypatch.setattr(
        gpuplan.profile, "profile", lambda workload, cache=None: bert_large_profile("tco-data-test")
    )


def _offer(region: str, usd_per_hour: float, pricing: str = "on_demand", term: int = 0) -> PricedOffer:
    return priced_offer(region, usd_per_hour, pricing, term_months=term)


def _tagger(transfer_usd: float, **kw: object) -> Demand:
    # 4 runs a month of 1 GPU × 5 h (20 GPU-hours); its data lives in "home": a run placed in "far"
    # moves it in and pays the transfer; storage $1 a run either way.
    return Demand(
        name="tagger",
        gpu="G",
        gpu_hours=(20.0,) * 3,
        run_hours=5.0,
        gpu_step=1.0,
        run_data=(
            RunData(provider="p", region="home", transfer_usd=0.0, storage_usd=1.0),
            RunData(provider="p", region="far", transfer_usd=transfer_usd, storage_usd=1.0),
        ),
        gpu_hours_per_run=5.0,
        **kw,  # type: ignore[arg-type]
    )


def test_a_run_stays_with_its_data_when_the_transfer_costs_more_than_the_cheaper_gpu_saves() -> None:
    offers = (_offer("home", 3.0), _offer("far", 2.0))
    s = optimise(TcoProblem(horizon_months=3, demands=(_tagger(transfer_usd=50.0),), offers=offers))
    # far: 5 h × $2 + $50 + $1 = $61 a run; home: 5 h × $3 + $1 = $16 a run: home.
    assert s.hourly_used["G/on_demand/tagger"].region == "home"
    # 3 months × 4 runs × ($15 GPU time + $1 storage) = $192, of which $12 is not GPU time
    assert s.total_usd == pytest.approx(192.0)
    assert s.data_usd == pytest.approx(12.0)
    assert s.monthly[0].by_pricing_usd == {"on_demand": pytest.approx(60.0)}
    assert s.monthly[0].data_usd == pytest.approx(4.0)
    assert s.all_on_demand_usd == pytest.approx(192.0)


def test_a_run_moves_where_the_gpu_saves_more_than_the_transfer_and_pays_it() -> None:
    offers = (_offer("home", 3.0), _offer("far", 2.0))
    s = optimise(TcoProblem(horizon_months=3, demands=(_tagger(transfer_usd=2.0),), offers=offers))
    # far: $10 + $2 + $1 = $13 a run against home's $16: far, with its transfer in the total
    assert s.hourly_used["G/on_demand/tagger"].region == "far"
    assert s.total_usd == pytest.approx(12 * 13.0)
    assert s.data_usd == pytest.approx(12 * 3.0)


def test_a_region_whose_data_costs_are_not_known_is_not_used_for_free() -> None:
    # "odd" sells the cheapest GPU-hour, but the demand's data costs there are not known: unknown
    # is never 0, so the run is not placed there.
    offers = (_offer("home", 3.0), _offer("odd", 0.5))
    s = optimise(TcoProblem(horizon_months=3, demands=(_tagger(transfer_usd=50.0),), offers=offers))
    assert s.hourly_used["G/on_demand/tagger"].region == "home"
    assert s.total_usd == pytest.approx(192.0)


def test_hours_on_committed_gpus_pay_the_data_costs_of_the_commitments_region() -> None:
    # Busy all month (146 runs of 5 h = 730 GPU-hours): a $1,000 subscription in "far" against
    # $3/h at home (730 × 3 = $2,190) saves on GPU time, but every run placed there pays $50 in:
    # 146 × $51 = $7,446 a month against home's 146 × $1. Home on demand wins.
    d = _tagger(transfer_usd=50.0)
    busy = replace(d, gpu_hours=(730.0,))
    offers = (_offer("home", 3.0), _offer("far", 1000.0 / 730.0, pricing="monthly", term=1))
    s = optimise(TcoProblem(horizon_months=1, demands=(busy,), offers=offers))
    assert not s.commitments
    assert s.total_usd == pytest.approx(730 * 3.0 + 146 * 1.0)
    # with the subscription at home (no transfer) it pays: $1,000 + 146 × $1 of storage
    home = (_offer("home", 3.0), _offer("home", 1000.0 / 730.0, pricing="monthly", term=1))
    s = optimise(TcoProblem(horizon_months=1, demands=(busy,), offers=home))
    assert [c.offer.region for c in s.commitments] == ["home"]
    assert s.total_usd == pytest.approx(1000.0 + 146 * 1.0)
    assert s.data_usd == pytest.approx(146.0)


def test_on_spot_a_run_keeps_its_disks_for_its_longer_hours() -> None:
    # A 5-h run on spot at 1/24 per h without checkpoints restarts from scratch: it is billed
    # f = (e^(5/24) − 1)(24 + 1/6) / 5 = 1.1209 times its hours, and its $1 of storage is paid for
    # as long; its transfer ($0 at home) is paid once.
    spot = PricedOffer(
        **{**_offer("home", 1.0).__dict__, "pricing": "spot", "interruptions_per_hour": 1 / 24}
    )
    demand = _tagger(transfer_usd=50.0, interruptible=True, restarts_from_scratch=True)
    s = optimise(TcoProblem(horizon_months=3, demands=(demand,), offers=(_offer("home", 3.0), spot)))
    f = math.expm1(5 / 24) * (24 + 1 / 6) / 5
    assert s.spot_overhead["tagger"] == pytest.approx(f)
    assert s.data_usd == pytest.approx(12 * 1.0 * f)
    assert s.total_usd == pytest.approx(12 * (5 * 1.0 * f + 1.0 * f))


def _tagger_usage(
    tmp_path: Path,
    regions: list[str] | None = None,
    data_each_run: str | None = "same",
    location: str = "alibaba/cn-hangzhou",
) -> Usage:
    # A weekly batch-inference run (BERT-Large as traced) over 2 TB kept in Alibaba's Hangzhou (or
    # ``location``, on its provider): the same corpus tagged again each week (data_each_run: same),
    # unless told otherwise.
    (tmp_path / "tagger.yaml").write_text(
        "name: weekly-tagger\ntask: infer\nmodel: {preset: bert-large}\n"
        "inputs: {batch_size: 64, seq_len: 128}\n"
        f"data: {{samples: 2000000, size_gb: 2000, location: {location}}}\n"
    )
    return load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "currency": "CNY",
            "base_dir": str(tmp_path),
            "demands": [
                {
                    "name": "weekly-tagger",
                    "workload": "tagger.yaml",
                    "runs_per_month": 4,
                    **({"data_each_run": data_each_run} if data_each_run else {}),
                }
            ],
            "constraints": {
                "providers": [location.split("/")[0]],
                "pricing": ["on_demand"],
                **({"regions": regions} if regions else {}),
            },
        }
    )


@pytest.mark.usefixtures("bert_traced")
def test_the_transfer_a_run_pays_away_from_its_data_is_the_planners(store: Store, tmp_path: Path) -> None:
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile
    from gpuplan.workload.spec import load_workload

    (demand,), _ = demands_from_usage(_tagger_usage(tmp_path), store)
    data = {r.region: r for r in demand.run_data}
    assert data["cn-hangzhou"].transfer_usd == 0.0
    # the planner's own charge for the same run in Heyuan: its dataset in (one copy, one node) and
    # results back, and the same storage for the same hours
    workload = load_workload(tmp_path / "tagger.yaml")
    plan = plan_workload(
        workload,
        profile(workload),
        store,
        overrides={"providers": ("alibaba",), "regions": ("cn-heyuan",), "pricing": ("on_demand",)},
        top=1,
    )
    best = plan.recommended
    assert best.nodes == 1
    assert data["cn-heyuan"].transfer_usd == pytest.approx(best.cost_breakdown.egress_usd)
    assert data["cn-heyuan"].transfer_usd > 100.0  # 2 TB out of Hangzhou


@pytest.mark.usefixtures("bert_traced")
def test_tco_keeps_a_run_with_its_data_and_counts_the_rest_of_its_cost(store: Store, tmp_path: Path) -> None:
    report = tco(_tagger_usage(tmp_path), store=store)
    s = report.schedule
    # Without data costs, the schedule had bought the run's GPU-hours where they are cheapest
    # (Heyuan) and moved 2 TB there each run for free.
    assert s.hourly_used["A10/on_demand/weekly-tagger"].region == "cn-hangzhou"
    (demand,) = report.problem.demands
    at_home = next(r for r in demand.run_data if r.region == "cn-hangzhou")
    # 12 months × 4 runs × the run's storage (and licences) at home
    assert at_home.transfer_usd == 0.0 and at_home.usd > 0
    assert s.data_usd == pytest.approx(48 * at_home.usd)
    assert s.total_usd == pytest.approx(sum(sum(m.by_pricing_usd.values()) for m in s.monthly) + s.data_usd)
    # the planner's assumed prices are said for the region the runs are placed in, not the others
    assert any(n.startswith("weekly-tagger in alibaba/cn-hangzhou: storage: ") for n in report.notes)
    assert not any(n.startswith("weekly-tagger in alibaba/cn-heyuan") for n in report.notes)
    # Allowed only Heyuan, 48 runs away from their 2 TB: one copy moved in once and kept there
    # for the 12 months costs less than moving it in 48 times; the results still go back each run.
    far = tco(_tagger_usage(tmp_path, regions=["cn-heyuan"]), store=store)
    heyuan = next(r for r in far.problem.demands[0].run_data if r.region == "cn-heyuan")
    (copy,) = far.schedule.data_copies
    assert copy.kept and (copy.region, copy.first_month) == ("cn-heyuan", 0)
    kept = heyuan.copy_in_usd + 12 * heyuan.copy_storage_usd_per_month
    assert copy.kept_usd == pytest.approx(kept) and copy.per_run_usd == pytest.approx(
        48 * heyuan.dataset_in_usd
    )
    assert kept < 48 * heyuan.dataset_in_usd
    assert far.schedule.data_usd == pytest.approx(48 * (heyuan.usd - heyuan.dataset_in_usd) + kept)
    assert far.schedule.total_usd > s.total_usd + kept * 0.9
    # Heyuan's object-storage price is not in the catalog: bounded at the highest it holds, said
    from gpuplan.plan.build_inputs import _lowest_highest, _storage_prices

    highest = _lowest_highest(_storage_prices(store, "object"))
    assert highest is not None and highest[1] > 0
    assert heyuan.copy_storage_usd_per_month == pytest.approx(2000 * highest[1])
    assert any(
        n.startswith("weekly-tagger in alibaba/cn-heyuan: storage: object storage price of")
        for n in far.notes
    )
    # the data's own region has no copy to keep, and no copy is said where no run is placed
    assert at_home.dataset_in_usd == 0.0 and not at_home.can_keep_copy
    assert s.data_copies == ()


@pytest.mark.usefixtures("bert_traced")
def test_the_report_shows_the_part_that_is_not_gpu_time_in_both_languages(
    store: Store, tmp_path: Path
) -> None:
    report = tco(_tagger_usage(tmp_path), store=store)
    doc = tco_json(report)
    assert report.schedule.data_usd > 0
    assert doc["data_cost_usd"] == pytest.approx(report.schedule.data_usd, abs=0.01)
    assert doc["data_costs_counted_for"] == ["weekly-tagger"]
    assert "results sent back" in doc["data_cost_covers"]
    month = doc["monthly"][0]
    assert month["cost_usd"] == pytest.approx(
        sum(month["cost_usd_by_pricing"].values()) + month["data_cost_usd"], abs=0.02
    )
    assert any("is not GPU time" in line for line in summary_lines(report))
    # the chart stacks it on the GPU time, so that each bar is the month's total
    assert "besides GPU time" in monthly_cost_svg(report)
    with use_language("zh"):
        zh = tco(_tagger_usage(tmp_path), store=store)
        lines = summary_lines(zh)
        covers = tco_json(zh)["data_cost_covers"]
    assert any("非 GPU 时间" in line for line in lines)
    assert "数据" in covers and not covers.isascii()


@pytest.mark.usefixtures("bert_traced")
def test_the_report_says_how_the_data_gets_to_a_region_with_both_figures(
    store: Store, tmp_path: Path
) -> None:
    report = tco(_tagger_usage(tmp_path, regions=["cn-heyuan"]), store=store)
    (copy,) = report.schedule.data_copies
    (doc,) = tco_json(report)["data_copies"]
    assert doc["choice"] == "kept_copy" and doc["region"] == "cn-heyuan" and doc["runs"] == 48
    assert doc["kept_copy_usd"] == pytest.approx(copy.kept_usd, abs=0.01)
    assert doc["per_run_transfer_usd"] == pytest.approx(copy.per_run_usd, abs=0.01)
    assert doc["kept_copy_usd"] < doc["per_run_transfer_usd"]
    (line,) = [x for x in summary_lines(report) if x.startswith("weekly-tagger in alibaba/cn-heyuan")]
    assert "kept in the region's object storage" in line and "48 runs" in line
    with use_language("zh"):
        zh = tco(_tagger_usage(tmp_path, regions=["cn-heyuan"]), store=store)
        (said,) = [x for x in summary_lines(zh) if x.startswith("weekly-tagger")]
    assert "对象存储" in said and "48" in said


def test_a_direct_demand_without_checkpoints_restarts_from_scratch_and_its_data_is_not_counted(
    store: Store,
) -> None:
    def usage(**kw: object) -> object:
        demand = {"name": "batch", "gpu": "A10", "gpus": 1, "hours_per_month": 300, "interruptible": True}
        return load_usage({"horizon_months": 2, "demands": [{**demand, **kw}]})

    (nothing,), _ = demands_from_usage(usage(), store)  # type: ignore[arg-type]
    (stateless,), _ = demands_from_usage(usage(checkpoint_gb=0), store)  # type: ignore[arg-type]
    (saved,), _ = demands_from_usage(usage(checkpoint_gb=20), store)  # type: ignore[arg-type]
    # nothing says it can resume: an interruption restarts its run; 0 GB: no state, it resumes
    assert nothing.restarts_from_scratch
    assert not stateless.restarts_from_scratch and not saved.restarts_from_scratch
    assert nothing.run_data == ()
    report = tco(usage(), store=store)
    assert any("batch: given in GPU-hours, with no data facts" in n for n in report.notes)
    assert any("batch: interruptible without checkpoint_gb" in n for n in report.notes)
    assert report.schedule.data_usd == 0.0 and report.schedule.data_copies == ()
    assert not any("is not GPU time" in line for line in summary_lines(report))


def test_a_copy_is_kept_only_where_the_provider_sells_object_storage_read_free_in_the_region(
    store: Store,
) -> None:
    from gpuplan.commit.adapters import _run_data
    from gpuplan.plan.input_types import JobFacts

    usage = load_usage(
        {
            "horizon_months": 12,
            "demands": [{"name": "x", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 10}],
            "constraints": {"providers": ["gcp", "vast"]},
        }
    )
    job = JobFacts(dataset_gb=150.0, data_location=("aws", "us-east-1"))
    data = _run_data(store, usage, "A100-SXM4-40GB", job, nodes=1, run_h=5.0)  # type: ignore[arg-type]
    gcp = [r for r in data if r.provider == "gcp"]
    vast = [r for r in data if r.provider == "vast"]
    assert gcp and vast
    # a cloud: one copy in (150 GB out of us-east-1), stored at the region's object-storage price
    assert all(r.can_keep_copy and r.copy_in_usd == r.dataset_in_usd > 0 for r in gcp)
    assert all(r.copy_storage_usd_per_month > 0 for r in gcp)
    # a marketplace: no bucket known to keep it in, so every run moves it in, and that is said
    assert all(not r.can_keep_copy and r.transfer_usd > 0 for r in vast)
    assert all(any("moved in for every run" in a for a in r.assumptions) for r in vast)


@pytest.mark.usefixtures("bert_traced")
def test_batch_inference_moves_its_new_inputs_in_for_every_run_unless_they_are_the_same(
    store: Store, tmp_path: Path
) -> None:
    # A night's inputs are not the night before's: batch inference kept "its dataset" in the
    # region, moved in once, as if every run read the same data.
    new = tco(_tagger_usage(tmp_path, regions=["cn-heyuan"], data_each_run=None), store=store)
    (demand,) = new.problem.demands
    heyuan = next(r for r in demand.run_data if r.region == "cn-heyuan")
    assert not heyuan.can_keep_copy and heyuan.copy_in_usd == 0.0
    assert new.schedule.data_copies == ()
    assert any("each run reads new data: data_each_run is new" in a for a in heyuan.assumptions)
    # 48 runs, each paying its 2 TB in (the whole transfer, results back included) and its disks
    assert new.schedule.data_usd == pytest.approx(48 * heyuan.usd)
    assert any(
        n.startswith("weekly-tagger in alibaba/cn-heyuan: dataset in: moved in for every run (each run")
        for n in new.notes
    )
    # said the same: one copy kept, as for training's dataset
    same = tco(_tagger_usage(tmp_path, regions=["cn-heyuan"], data_each_run="same"), store=store)
    (copy,) = same.schedule.data_copies
    assert copy.kept and same.schedule.data_usd < new.schedule.data_usd
    # said new, as the default is: the same as not saying
    told = tco(_tagger_usage(tmp_path, regions=["cn-heyuan"], data_each_run="new"), store=store)
    assert told.schedule.data_usd == pytest.approx(new.schedule.data_usd)


def test_data_each_run_is_new_or_same_and_goes_with_a_workload() -> None:
    from gpuplan.errors import InputError

    workload = {"name": "w", "workload": "w.yaml", "runs_per_month": 1}
    assert (
        load_usage({"horizon_months": 1, "demands": [{**workload, "data_each_run": "Same"}]})
        .demands[0]
        .data_each_run
        == "same"
    )
    with pytest.raises(InputError, match="did you mean 'new'"):
        load_usage({"horizon_months": 1, "demands": [{**workload, "data_each_run": "nwe"}]})
    direct = {"name": "d", "gpu": "A10", "gpus": 1, "hours_per_month": 10, "data_each_run": "new"}
    with pytest.raises(InputError, match="data_each_run goes with workload"):
        load_usage({"horizon_months": 1, "demands": [direct]})


def _beijing_tagger(transfer_usd: float) -> Demand:
    """The tagger with its road-camera images in Alibaba's Beijing: a run in Hong Kong moves them out."""
    return replace(
        _tagger(transfer_usd),
        run_data=(
            RunData(provider="alibaba", region="cn-beijing", transfer_usd=0.0, storage_usd=1.0),
            RunData(provider="alibaba", region="cn-hongkong", transfer_usd=transfer_usd, storage_usd=1.0),
        ),
        job=JobFacts(dataset_gb=50.0, data_location=("alibaba", "cn-beijing")),
    )


def test_runs_placed_outside_mainland_china_for_data_in_it_are_said_with_the_rules() -> None:
    from gpuplan.commit.crossings import border_notes

    offers = (
        replace(_offer("cn-beijing", 3.0), provider="alibaba"),
        replace(_offer("cn-hongkong", 2.0), provider="alibaba"),
    )
    problem = TcoProblem(horizon_months=3, demands=(_beijing_tagger(2.0),), offers=offers)
    s = optimise(problem)
    assert s.hourly_used["G/on_demand/tagger"].region == "cn-hongkong"  # cheaper, and it crosses
    (note,) = border_notes(problem, s)
    # the plan's words for an option there
    assert note.startswith(
        "tagger: mainland-China border: the data is in alibaba/cn-beijing and alibaba/cn-hongkong are "
        "outside mainland China: the dataset leaves mainland China for them and the results come back in"
    ), note
    # the general rules with their official texts; no sector's rules, which the demand does not name
    assert "http://www.npc.gov.cn/npc/c30834/202108/a8c4e3672c74491a80b53a172bb753fe.shtml" in note
    assert "https://www.cac.gov.cn/2024-03/22/c_1712776611775634.htm" in note and "utomotive" not in note
    assert note.endswith("--countries CN")
    # kept in Beijing where the transfer costs more than Hong Kong saves: nothing to say
    near = TcoProblem(horizon_months=3, demands=(_beijing_tagger(50.0),), offers=offers)
    assert border_notes(near, optimise(near)) == []
    with use_language("zh"):
        (zh,) = border_notes(problem, s)
    assert "数据集将出境" in zh and "个人信息保护法" in zh and "汽车" not in zh
    # a run that takes nothing from its data's place (no dataset in, no results back: the plan's
    # data_origins is empty) moves nothing out of mainland China: was "the data … leaves mainland China"
    moves_nothing = JobFacts(data_location=("alibaba", "cn-beijing"))
    still = replace(problem, demands=(replace(_beijing_tagger(2.0), job=moves_nothing),))
    assert border_notes(still, optimise(still)) == []


def test_data_brought_into_mainland_china_and_users_served_from_outside_are_said_as_plan_says() -> None:
    # tco had words for data leaving mainland China only: a corpus in Singapore tagged in Beijing, or
    # users in mainland China answered from Hong Kong, went without the note the plan gives its options.
    from gpuplan.commit.crossings import border_notes, country_notes

    offers = (replace(_offer("cn-beijing", 2.0), provider="alibaba"),)
    inbound = replace(
        _tagger(0.0),
        run_data=(RunData(provider="alibaba", region="cn-beijing", transfer_usd=1.0, storage_usd=1.0),),
        job=JobFacts(dataset_gb=50.0, data_location=("alibaba", "ap-southeast-1")),
    )
    problem = TcoProblem(horizon_months=3, demands=(inbound,), offers=offers)
    s = optimise(problem)
    (note,) = border_notes(problem, s)
    assert note.startswith(
        "tagger: mainland-China border: the data is in alibaba/ap-southeast-1, outside mainland China, and "
        "alibaba/cn-beijing are in it: the dataset enters mainland China"
    ), note
    assert note.endswith("to keep the data out of mainland China: --countries SG"), note
    assert country_notes(problem, s) == []  # said once, with its rules, not again as "SG for CN"
    served = replace(
        _tagger(0.0),
        run_data=(RunData(provider="alibaba", region="cn-hongkong", transfer_usd=0.0, storage_usd=1.0),),
        job=JobFacts(task="infer", calendar_months=1.0, users_in=("CN",)),
    )
    offers = (replace(_offer("cn-hongkong", 2.0), provider="alibaba"),)
    problem = TcoProblem(horizon_months=3, demands=(served,), offers=offers)
    s = optimise(problem)
    (note,) = border_notes(problem, s)
    assert (
        "your users are in mainland China (serving.users_in) and alibaba/cn-hongkong are outside it" in note
    )
    assert note.endswith("to keep the data inside mainland China: --countries CN"), note
    assert country_notes(problem, s) == []


@pytest.mark.usefixtures("bert_traced")
def test_hours_bought_in_another_country_than_the_datas_are_said_from_which_to_which(
    store: Store, tmp_path: Path
) -> None:
    # A Singapore lab's corpus tagged on GPUs bought in the US, no countries rule given: tco had said
    # nothing, its only words on data abroad being for data in mainland China.
    usage = _tagger_usage(tmp_path, regions=["us-east-1"], location="aws/ap-southeast-1")
    report = tco(usage, store=store)
    (demand,) = report.problem.demands
    assert demand.job is not None and data_origins(demand.job) == ("SG",)
    (note,) = [n for n in report.notes if n.startswith("weekly-tagger: data across a border")]
    assert "aws/us-east-1 (data leaves SG for US)" in note, note
    assert "does not judge whether it is lawful" in note and note.endswith("--countries SG")
    (doc,) = tco_json(report)["demands"]
    assert doc["data_leaves_country"] == [
        {"provider": "aws", "region": "us-east-1", "from_countries": ["SG"], "to_country": "US"}
    ]
    console = Console(width=400, record=True)
    console.print(tco_view(report))
    assert "Note: weekly-tagger: data across a border" in console.export_text()
    with use_language("zh"):
        (zh,) = [n for n in tco(usage, store=store).notes if "数据从 SG 出境至 US" in n]
    assert zh.startswith("weekly-tagger") and zh.endswith("--countries SG"), zh
    # kept in Singapore: nothing to say, and an empty list
    home_only = usage.constraints.model_copy(update={"regions": ("ap-southeast-1",)})
    home = tco(usage.model_copy(update={"constraints": home_only}), store=store)
    assert not any("data across a border" in n for n in home.notes)
    assert tco_json(home)["demands"][0]["data_leaves_country"] == []
