"""Advice that reads the workload: nothing it already does, "would fit" by the estimate's own
verdict, another GPU only where it is offered (or said not to be)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from perf_helpers import GIB, breakdown, make_profile, op

from gpuplan.catalog.gpu_hour import NO_ON_DEMAND_OFFER, GpuHourPrice
from gpuplan.hardware import get_gpu
from gpuplan.perf import EstimateRequest, estimate
from gpuplan.perf.advisor import Advice, Current, advise
from gpuplan.profile.model import ModelShape, Profile

KNOWN = Path(__file__).parent / "fixtures" / "known"
RTX = get_gpu("RTX-4090")


def _llm(checkpointing: str = "none") -> Profile:
    """A 3.2e9-parameter bf16 decoder whose peak is its activations and fp32 logits (the advisor
    test's fine-tune, 29.8 GiB allocated): every memory change applies."""
    params = 3 * 2**30
    peak = breakdown(
        parameters=2.0 * params,
        optimizer_state=4.0 * params,
        activations=4 * GIB,
        temporaries=8.0 * 2 * 4096 * 128_256,
    )
    shape = ModelShape(family="decoder", num_layers=28, hidden_size=3072, vocab_size=128_256)
    p = make_profile(
        ops=(op(flops=1e14),),
        peak=peak,
        task="finetune",
        params=params,
        batch_size=2,
        seq_len=4096,
        shape=shape,
    )
    return replace(p, activation_checkpointing=checkpointing)


def _price(gpu: str, usd: float) -> GpuHourPrice:
    """A fresh on-demand price of ``gpu``, ``usd`` per GPU-hour, from a dated AWS offer."""
    return GpuHourPrice(
        gpu=gpu,
        price_usd_per_gpu_hour=usd,
        provider="aws",
        region="us-east-1",
        instance_type="test",
        as_of="2026-11-01",
        age_days=34,
        staleness="fresh",
        stale=False,
        stale_after_days=180,
        source="test",
    )


def _actions(profile: Profile, gpu_id: str = "RTX-4090", **kw: object) -> dict[str, Advice]:
    advice = advise(EstimateRequest(profile=profile, gpu=get_gpu(gpu_id)), **kw)  # type: ignore[arg-type]
    return {a.action: a for a in advice}


def test_no_checkpointing_advice_for_a_workload_that_checkpoints_every_block() -> None:
    assert not estimate(_llm("full"), RTX).fits
    assert "gradient_checkpointing" not in _actions(_llm("full"))
    # Selective checkpointing is told to go full, not to "enable checkpointing".
    selective = _actions(_llm("selective"))["gradient_checkpointing"]
    assert "instead of selective" in selective.summary
    assert _actions(_llm())["gradient_checkpointing"].summary == "enable activation (gradient) checkpointing"


def test_nothing_the_workload_already_does_is_advised() -> None:
    p = _llm()
    assert {"adamw_8bit", "chunked_loss", "fused_linear_loss", "lora"} <= set(_actions(p))
    already = Current(optimizer="adamw-8bit", loss="chunked", lora=True, optimizer_in_backward=True)
    advised = set(_actions(p, current=already))
    assert not advised & {"adamw_8bit", "paged_adamw_8bit", "chunked_loss", "lora", "optimizer_in_backward"}
    assert "fused_linear_loss" in advised  # lighter than chunked: still a change
    assert not set(_actions(p, current=Current(loss="fused-linear"))) & {"chunked_loss", "fused_linear_loss"}


def test_would_fit_is_the_estimates_own_verdict_and_shows_its_figures() -> None:
    advice = list(_actions(_llm()).values())
    for a in advice:
        assert a.required_gib is not None and a.capacity_gib is not None
        assert a.fits == (a.required_gib <= a.capacity_gib)
    # An L4's usable memory is 22.5 GiB (24 × 15/16), not the "22" a rounded table showed.
    l4 = _actions(_llm(), "L4")
    assert next(iter(l4.values())).capacity_gib == pytest.approx(22.5)


def test_another_gpu_is_one_with_offers_or_says_it_has_none() -> None:
    p = _llm()
    free = _actions(p)["bigger_gpu"]
    assert free.offered is None  # no catalog to ask
    offered = _actions(p, offered=dict.fromkeys({"H100-SXM", "A100-SXM4-80GB"}))["bigger_gpu"]
    assert offered.gpu in {"H100-SXM", "A100-SXM4-80GB"} and offered.offered is True
    assert "not offered" not in offered.summary
    # No offer of any GPU that fits: the pick says so.
    none = _actions(p, offered={"T4": _price("T4", 0.35)})["bigger_gpu"]
    assert none.offered is False and none.summary.endswith("not offered in the catalog")


def test_another_gpu_is_the_one_whose_step_costs_least_and_an_unknown_price_is_not_first() -> None:
    # The pick had been the smallest larger memory, then the fastest: an H100 before an A100 80GB
    # whatever they cost. Now the step's cost at each GPU's lowest on-demand price decides.
    p = _llm()
    a100, h100 = estimate(p, get_gpu("A100-SXM4-80GB")), estimate(p, get_gpu("H100-SXM"))
    assert a100.fits and h100.fits and h100.step_time_s < a100.step_time_s
    # Priced so that the slower A100 costs less per step, then so that the H100 does.
    ratio = a100.step_time_s / h100.step_time_s
    cheap_a100 = {
        "A100-SXM4-80GB": _price("A100-SXM4-80GB", 1.0),
        "H100-SXM": _price("H100-SXM", ratio * 1.5),
    }
    pick = _actions(p, offered=cheap_a100)["bigger_gpu"]
    assert pick.gpu == "A100-SXM4-80GB" and pick.gpu_price == cheap_a100["A100-SXM4-80GB"]
    assert pick.summary.endswith("$1.00/GPU-h on demand at aws/us-east-1, as of 2026-11-01: 34 d old")
    cheap_h100 = {
        "A100-SXM4-80GB": _price("A100-SXM4-80GB", 1.0),
        "H100-SXM": _price("H100-SXM", ratio * 0.5),
    }
    assert _actions(p, offered=cheap_h100)["bigger_gpu"].gpu == "H100-SXM"
    # A GPU of no known price never wins over a priced one, however fast: neither one whose price
    # was not looked up nor one the catalog has no on-demand price of.
    a100_only = _price("A100-SXM4-80GB", 9.0)
    for unknown in (None, GpuHourPrice.unknown("H100-SXM", NO_ON_DEMAND_OFFER)):
        pick = _actions(p, offered={"A100-SXM4-80GB": a100_only, "H100-SXM": unknown})["bigger_gpu"]
        assert pick.gpu == "A100-SXM4-80GB" and pick.gpu_price == a100_only
    # Where it is the only one offered, its price is said to be unknown, and why.
    alone = _actions(p, offered={"H100-SXM": GpuHourPrice.unknown("H100-SXM", NO_ON_DEMAND_OFFER)})[
        "bigger_gpu"
    ]
    assert alone.gpu == "H100-SXM" and alone.gpu_price is not None
    assert alone.gpu_price.price_usd_per_gpu_hour is None
    assert alone.summary.endswith("on-demand price unknown: the catalog has no on-demand offer of it")


def test_current_reads_a_workload() -> None:
    from gpuplan.workload import Workload

    w = Workload.from_yaml(Path(__file__).resolve().parents[2] / "examples" / "llama7b-lora.yaml")
    c = Current.of(w)
    assert c.lora and c.optimizer == "adamw" and c.loss == "standard" and not c.optimizer_in_backward


def test_another_gpu_is_ranked_by_what_the_job_pays_for_the_whole_instance() -> None:
    # An H100 cheaper per GPU-hour, but only as an 8-GPU box, against a one-GPU A100: a one-GPU job
    # pays the box's eight GPUs. Ranked by the GPU's share it had been the H100 at an eighth of
    # what the job pays.
    p = _llm()
    a100, h100 = estimate(p, get_gpu("A100-SXM4-80GB")), estimate(p, get_gpu("H100-SXM"))
    ratio = a100.step_time_s / h100.step_time_s
    box = replace(
        _price("H100-SXM", ratio * 0.5),
        instance_type="box-8xH100",
        gpus_per_instance=8,
        price_usd_per_instance_hour=8 * ratio * 0.5,
        job_gpus=1,
    )
    pick = _actions(p, offered={"A100-SXM4-80GB": _price("A100-SXM4-80GB", 1.0), "H100-SXM": box})
    assert pick["bigger_gpu"].gpu == "A100-SXM4-80GB"
    # Alone, the box is quoted at its instance's price with the per-GPU figure beside it.
    alone = _actions(p, offered={"H100-SXM": box})["bigger_gpu"]
    assert f"${8 * ratio * 0.5:.2f}/h on demand for one box-8xH100 (8 GPUs," in alone.summary


def test_the_fused_linear_loss_says_it_needs_the_liger_kernels() -> None:
    # A HF/PEFT user must install and patch in Liger for it; the row had named Liger as an author.
    fused = _actions(_llm())["fused_linear_loss"]
    assert "needs the Liger kernels: pip install liger-kernel" in fused.summary
