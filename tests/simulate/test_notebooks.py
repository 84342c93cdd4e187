"""Notebooks and one-GPU experiments in ``simulate share``: what each way of sharing gives a user."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.errors import InputError
from gpuplan.simulate import mig
from gpuplan.simulate.notebooks import NotebookGroup, slowdown_stats
from gpuplan.simulate.share import TIME_SLICE_MEMORY_SHARE, ServiceDemand, ShareOptions, pack_services
from one_line import refused

GPU = "A100-SXM4-80GB"
USABLE = 79.2  # what a process can allocate on one (nvidia-smi's total)
runner = CliRunner()


def _opts(sharing: str) -> ShareOptions:
    return ShareOptions(gpu_id=GPU, gpu_memory_gib=USABLE, price_usd_per_hour=2.0, sharing=sharing)


def _group(
    name: str = "students", users: int = 8, mem: float = 10.0, share: float = 0.1, **kw
) -> NotebookGroup:
    return NotebookGroup(
        name=name, kind=kw.pop("kind", "notebook"), users=users, memory_gib=mem, active_share=share,
        hours_per_day=8.0, **kw,
    )  # fmt: skip


def _binomial_tail(n: int, p: float, k: int) -> float:
    """P(X ≥ k), X ~ Binomial(n, p), from its definition."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_a_time_sliced_users_slowdown_is_the_binomial_chance_others_compute_with_it() -> None:
    # three neighbours, each computing 10 % of the time: with k of them at once it runs at 0.9/(k+1)
    chance, mean, p95 = slowdown_stats([0.1] * 3, 0.1)
    assert chance == pytest.approx(_binomial_tail(3, 0.1, 1))  # 27.1 %
    expect = (1 - _binomial_tail(3, 0.1, 1)) * 1.0 + sum(
        math.comb(3, k) * 0.1**k * 0.9 ** (3 - k) * (k + 1) / 0.9 for k in range(1, 4)
    )
    assert mean == pytest.approx(expect)
    # P(k ≤ 1) = 97.2 % ≥ 95 %: at the 95th percentile one other computes with it
    assert p95 == pytest.approx(2 / 0.9)
    # an experiment beside another (both computing all the time) is always slowed, by 2 / 0.9
    assert slowdown_stats([1.0], 0.1) == pytest.approx((1.0, 2 / 0.9, 2 / 0.9))


def test_time_slicing_puts_as_many_users_on_a_gpu_as_their_slowdown_target_allows() -> None:
    plan = pack_services([], _opts("time-slice"), [_group()])
    # 4 to a GPU: 3 neighbours at 10 % keep the p95 at ×2.22 (≤ 3); a fifth puts it at ×3.33
    # (P(≥ 2 of 4 others) = 5.2 % > 5 %), although memory would hold 7 of them
    assert _binomial_tail(4, 0.1, 2) > 0.05 >= _binomial_tail(3, 0.1, 2)
    assert plan.gpus_needed == 2 and plan.optimal
    (nb,) = plan.notebooks
    assert nb.users_per_gpu == 4 and nb.p95_slowdown == pytest.approx(2 / 0.9) and nb.meets_targets
    assert nb.slowed_chance == pytest.approx(_binomial_tail(3, 0.1, 1))
    # a looser target lets memory decide: 7 × 10 GiB in the 95 % a shared GPU may fill
    loose = pack_services([], _opts("time-slice"), [_group(max_slowdown=20)])
    assert math.floor(USABLE * TIME_SLICE_MEMORY_SHARE / 10) == 7
    assert loose.gpus_needed == 2 and loose.notebooks[0].users_per_gpu == 7


def test_time_slicing_never_oversubscribes_memory_that_open_kernels_hold() -> None:
    # 30 GiB each, almost never computing: the slow-down allows many, memory only two to a GPU
    plan = pack_services([], _opts("time-slice"), [_group(users=6, mem=30.0, share=0.01)])
    assert plan.gpus_needed == 3
    on = [sum(1 for p in plan.placements if p.gpu_index == g) for g in range(3)]
    assert on == [2, 2, 2]
    assert plan.notebooks[0].oom_risk == 0.0


def test_kernels_that_free_memory_when_idle_may_oversubscribe_within_their_oom_risk() -> None:
    group = _group(users=4, mem=30.0, share=0.05, holds_memory="active", max_slowdown=20)
    plan = pack_services([], _opts("time-slice"), [group])
    # four of 30 GiB on one GPU: out of memory when it computes and 2 of the 3 others do too
    assert plan.gpus_needed == 1
    risk = _binomial_tail(3, 0.05, 2)
    assert plan.notebooks[0].oom_risk == pytest.approx(risk) and risk < 0.01
    # held to a smaller risk, they are split
    strict = pack_services([], _opts("time-slice"), [replace(group, max_oom_risk=0.001)])
    assert strict.gpus_needed == 2 and strict.notebooks[0].oom_risk <= 0.001


def test_mig_gives_each_user_the_smallest_real_slice_within_its_slowdown() -> None:
    table = mig.mig_gpu(GPU)
    # 1g.10gb (9.75 GiB; a seventh of the compute, an eighth of the memory bandwidth): ×8
    plan = pack_services([], _opts("mig"), [_group(mem=9.0, max_slowdown=8)])
    (nb,) = plan.notebooks
    assert nb.slice == "1g.10gb" and nb.p95_slowdown == pytest.approx(8.0) and nb.slowed_chance == 0
    assert plan.gpus_needed == math.ceil(8 / table.profile("1g.10gb").max_instances)
    # 10 GiB is more than 1g.10gb holds: 1g.20gb (×7)
    assert pack_services([], _opts("mig"), [_group(max_slowdown=8)]).notebooks[0].slice == "1g.20gb"
    # the default target (×3) needs 3g.40gb (×2.33): two to a GPU
    plan = pack_services([], _opts("mig"), [_group()])
    assert plan.notebooks[0].slice == "3g.40gb" and plan.gpus_needed == 4
    for g in {p.gpu_index for p in plan.placements}:
        assert mig.layout_is_valid(table, [(p.slice, p.start) for p in plan.placements if p.gpu_index == g])


def test_services_and_notebooks_share_the_plan() -> None:
    chat = ServiceDemand(
        name="chat", memory_gib=30, requests_per_s=6, capacity_requests_per_s=20, latency_s=3.0, slo_s=12.0
    )
    students = _group(mem=9.0, max_slowdown=8)
    whole = pack_services([chat], _opts("whole"), [students])
    assert whole.gpus_needed == 1 + 8 and {s.name for s in whole.services} == {"chat"}
    assert whole.cost_usd_per_month == pytest.approx(9 * 2.0 * 730)
    # MIG: the service's slice and the students' 1g slices on the same cards
    shared = pack_services([chat], _opts("mig"), [students])
    assert shared.gpus_needed < whole.gpus_needed
    assert {p.service for p in shared.placements} == {"chat", "students"}
    # time-slicing: the students on GPUs of their own, after the service's
    sliced = pack_services([chat], _opts("time-slice"), [students])
    chat_gpus = {p.gpu_index for p in sliced.placements if p.service == "chat"}
    nb_gpus = {p.gpu_index for p in sliced.placements if p.service == "students"}
    assert not chat_gpus & nb_gpus
    mps = pack_services([chat], _opts("mps"), [students])
    assert mps.notebooks[0].slice == mps.services[0].slice


def test_an_experiment_too_big_for_the_gpu_is_not_placed_and_the_plan_has_no_cost() -> None:
    plan = pack_services(
        [], _opts("time-slice"), [_group(), _group("big", users=1, mem=120.0, kind="experiment")]
    )
    assert [u.service for u in plan.unplaced] == ["big"] and plan.cost_usd_per_hour is None
    assert plan.cost_usd_per_month is None


def test_a_group_named_like_a_service_is_refused() -> None:
    chat = ServiceDemand(name="x", memory_gib=1, requests_per_s=1, capacity_requests_per_s=10, latency_s=1)
    # said as what it is: a service and a group, not "two services"
    with pytest.raises(InputError, match="a service and a notebook group are both named 'x'"):
        pack_services([chat], _opts("whole"), [_group("x")])
    with pytest.raises(InputError, match="two notebook groups are named 'y'"):
        pack_services([], _opts("whole"), [_group("y"), _group("y")])


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "team.yaml"
    p.write_text(text)
    return p


def test_cli_prices_the_month_and_best_meets_every_users_target(tmp_path: Path) -> None:
    f = _write(
        tmp_path,
        "gpu: A100-SXM4-80GB\nnotebooks:\n"
        "  - {name: students, users: 8, memory_gib: 10, active_share: 0.1}\n"
        "  - {name: finetune, kind: experiment, users: 2, memory_gib: 30, hours_per_day: 6}\n",
    )
    res = runner.invoke(app, ["simulate", "share", str(f), "--price", "2", "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["cost_usd_per_month"] == pytest.approx(doc["gpus_needed"] * 2 * 730)
    groups = {n["name"]: n for n in doc["notebooks"]}
    assert groups["finetune"]["active_share"] == 1.0 and groups["finetune"]["hours_per_day"] == 6
    assert groups["students"]["hours_per_day"] == 8
    assert all(n["meets_targets"] for n in doc["notebooks"])
    # time-slicing holds the students 4 to a GPU and the two experiments on one (×2.22 ≤ 3): 3 GPUs
    assert doc["sharing"] == "time-slice" and doc["gpus_needed"] == 3
    text = runner.invoke(app, ["simulate", "share", str(f), "--price", "2", "--sharing", "mig"]).stdout
    assert "students (notebook)" in text and "A month (730 h" in text, text


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("{name: s, users: 8, memory_gib: 10}", "give active_share"),
        ("{name: s, users: 8, memory_gib: 10, active_share: 0.1, active_hours_per_day: 1}", "not both"),
        ("{name: s, users: 8, memory_gib: 10, active_hours_per_day: 9}", "more than its hours_per_day 8"),
        ("{name: s, users: 8, memory_gib: 10, active_share: 1.5}", "notebooks.0.active_share"),
        ("{name: s, users: 8, memory_gib: 10, active_share: 0.1, kind: lab}", "notebooks.0.kind"),
    ],
)
def test_cli_refuses_a_notebook_group_in_one_line(
    tmp_path: Path, entry: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _write(tmp_path, f"gpu: A100-SXM4-80GB\nnotebooks:\n  - {entry}\n")
    assert words in refused(["simulate", "share", str(f), "--price", "2"], capsys)


def test_cli_refuses_k8s_out_with_notebooks_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _write(
        tmp_path,
        "gpu: A100-SXM4-80GB\nnotebooks:\n  - {name: s, users: 2, memory_gib: 10, active_share: 0.1}\n",
    )
    out = tmp_path / "k8s"
    line = refused(["simulate", "share", str(f), "--price", "2", "--k8s-out", str(out)], capsys)
    assert "--k8s-out" in line and not out.exists()


def test_best_breaks_a_tie_on_gpus_by_the_users_slowdown_and_says_so(tmp_path: Path) -> None:
    # 7 students of 9 GiB: one GPU whether MIG (1g.10gb each, ×8), MPS (7 parts, ×7.37) or
    # time-slicing (×3.33 at p95); time-slicing slows them least
    f = _write(
        tmp_path,
        "gpu: A100-SXM4-80GB\nnotebooks:\n"
        "  - {name: students, users: 7, memory_gib: 9, active_share: 0.1, max_slowdown: 8}\n",
    )
    res = runner.invoke(app, ["simulate", "share", str(f), "--price", "2", "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["sharing"] == "time-slice" and doc["gpus_needed"] == 1
    assert doc["notebooks"][0]["p95_slowdown"] == pytest.approx(3 / 0.9)
    tie = doc["notes"][0]
    assert "need the same 1 GPU; time-slice chosen" in tie, tie
    assert "p95 slow-down ×3.33 vs ×8.00 under mig for students" in tie, tie


def test_a_group_too_big_for_any_gpu_leaves_the_plan_incomplete_counting_the_others(tmp_path: Path) -> None:
    f = _write(
        tmp_path,
        "gpu: A100-SXM4-80GB\nnotebooks:\n  - {name: s, users: 2, memory_gib: 10, active_share: 0.1}\n"
        "  - {name: big, kind: experiment, users: 1, memory_gib: 100}\n",
    )
    res = runner.invoke(app, ["simulate", "share", str(f), "--price", "2", "--sharing", "mig"])
    assert res.exit_code != 0
    # notebook groups counted as what they are, not as services
    assert (
        "Incomplete: 1 of 2 notebook groups cannot run on one A100-SXM4-80GB; the other 1 need"
        in " ".join(res.stdout.split())
    )
    assert str(res.exception) == "1 of 2 notebook groups cannot run on one A100-SXM4-80GB (big)"


def test_mps_says_it_shares_faults_and_the_columns_say_what_they_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under MPS a user is never slowed by a neighbour (0 %) yet is ×2.11 slower than a whole GPU on
    its half: the columns say which is which (they had read "Chance slowed 0 %" beside "×2.11"), and
    MPS, like time-slicing, is said not to isolate faults (it had had no such note)."""
    from one_line import answered

    monkeypatch.setenv("COLUMNS", "200")
    f = _write(
        tmp_path,
        "gpu: A100-SXM4-80GB\nnotebooks:\n"
        "  - {name: eng, users: 20, memory_gib: 8, active_hours_per_day: 1.5, hours_per_day: 10}\n",
    )
    text = " ".join(
        answered(["simulate", "share", str(f), "--price", "2", "--sharing", "mps"], capsys).split()
    )
    assert "Neighbour slows it" in text and "× whole GPU, mean / p95" in text, text
    assert (
        "MPS isolates memory (a limit per client, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT) but not faults: one "
        "client's fatal GPU error reaches every client on the same GPU" in text
    ), text
    zh = " ".join(
        answered(
            ["--lang", "zh", "simulate", "share", str(f), "--price", "2", "--sharing", "mps"], capsys
        ).split()
    )
    assert "邻居拖慢概率" in zh and "较整卡（平均 / p95）" in zh and "MPS 隔离显存" in zh, zh
