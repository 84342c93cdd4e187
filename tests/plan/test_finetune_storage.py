"""A LoRA/QLoRA fine-tune's disks: the frozen base model's weights sit on every instance's disk as
they were downloaded (a QLoRA base is quantized while loading, from its 16-bit checkpoint), beside
the dataset and the checkpoints of the trainable state, and are priced with them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from plan_helpers import GPU_HOURS, aws_costs, offer, toy_estimator

from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.plan.spot import spot_times
from gpuplan.profile.model import Profile
from gpuplan.report.plan import option_json
from gpuplan.report.plan_view import spot_lines
from gpuplan.vocab import Precision, Task
from gpuplan.workload import Workload
from stand_in_profiles import bert_large_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Llama-3.1-8B with rank-16 adapters on q, k, v, o: 8,030,261,248 weights of the base (Meta's
#: model card: 8.03 B), 13,631,488 of adapters (32 layers × 16 × (4096 + 4096 + 4096 + 1024 + 4096 +
#: 1024 + 4096 + 4096) = 13,631,488).
BASE = 8_030_261_248
ADAPTERS = 13_631_488


def _lora_profile(quantized: bool) -> Profile:
    p = bert_large_profile("lora")
    # The trace holds a 4-bit base at about half a byte a weight: not what was downloaded.
    held = BASE * (0.53 if quantized else 2.0) + ADAPTERS * 4.0
    return replace(
        p,
        params=BASE + ADAPTERS,
        trainable_params=ADAPTERS,
        precision="bf16",
        base_quantization="nf4" if quantized else "none",
        peak=replace(p.peak, parameters_bytes=held, gradients_bytes=ADAPTERS * 4.0),
    )


def test_a_qlora_fine_tune_stores_its_base_as_the_16_bit_checkpoint_it_was_downloaded_as() -> None:
    w = Workload.from_yaml(EXAMPLES / "llama8b-qlora.yaml")
    job, notes = job_facts_from(w, _lora_profile(quantized=True))
    # 8,030,261,248 base weights × 2 bytes (bf16 checkpoint, quantized to nf4 while loading) = 16.06 GB
    assert job.weights_gb == pytest.approx(BASE * 2 / 1e9)
    # on each disk: 0.1 GB of data, 2 checkpoints of the adapters' state, and the base
    assert job.stored_gb_per_copy == pytest.approx(0.1 + 2 * job.checkpoint_gb + BASE * 2 / 1e9)
    assert any("base model's weights 16.06 GB" in n for n in notes)


def test_a_qlora_fine_tunes_set_up_downloads_its_base_at_the_rate_a_restart_reads_it() -> None:
    # was: set-up = 10 min boot + the 0.1 GB dataset only, while a restart read the 16 GB base back
    w = Workload.from_yaml(EXAMPLES / "llama8b-qlora.yaml")
    job, notes = job_facts_from(w, _lora_profile(quantized=True))
    download_h = BASE * 2 / 1e9 / 0.131 / 3600  # 16.06 GB at the assumed 0.131 GB/s: 2.0 min
    assert job.setup_h == pytest.approx(10 / 60 + 0.1 / 0.131 / 3600 + download_h)
    setup = next(n for n in notes if n.startswith("set-up"))
    assert setup.startswith("set-up 12 min")
    assert "the base model's weights (16.06 GB) downloaded once" in setup
    assert "the rate a restart reads weights and checkpoints back at" in setup
    # training from scratch downloads no base: its set-up is the boot and the copy only
    scratch = job_facts_from(w.model_copy(update={"task": Task.TRAIN}), bert_large_profile("own"))[0]
    assert scratch.setup_h == pytest.approx(10 / 60 + 0.1 / 0.131 / 3600)


def test_a_lora_base_is_stored_at_the_width_the_job_holds_its_weights() -> None:
    w = Workload.from_yaml(EXAMPLES / "llama7b-lora.yaml")
    bf16, _ = job_facts_from(w, _lora_profile(quantized=False))
    assert bf16.weights_gb == pytest.approx(BASE * 2 / 1e9)  # precision: bf16 → 2 bytes a weight
    # amp-bf16 keeps fp32 weights: an fp32 base (4 bytes a weight), the larger figure where the
    # checkpoint's own width is not given
    amp = w.model_copy(update={"precision": Precision.AMP_BF16})
    fp32, _ = job_facts_from(amp, _lora_profile(quantized=False))
    assert fp32.weights_gb == pytest.approx(BASE * 4 / 1e9)


def test_a_full_fine_tune_has_no_separate_base_volume() -> None:
    # every weight is trained: the checkpoints hold them all, so nothing frozen is stored beside them
    w = Workload.from_yaml(EXAMPLES / "bert-large-squad.yaml")
    job, _ = job_facts_from(w, bert_large_profile("full"))
    assert job.weights_gb == 0.0


def test_the_plan_prices_the_base_weights_volume_and_says_its_size() -> None:
    job = JobFacts(task="finetune", dataset_gb=0.1, checkpoint_gb=0.27, weights_gb=16.06)
    plan = plan_offers(
        OfferTable.from_rows([offer()]), CostFacts([aws_costs()]), job, toy_estimator(), Constraints()
    )
    o = plan.recommended
    # (0.1 + 2 × 0.27 + 16.06) = 16.7 GB on the disk, launched (and priced) as 256 GB: 16.7 × 1.15
    # + 64 = 83.2 GB, below the default disk; × $0.08/GB-month for the job's billed hours (was the
    # 16.7 GB alone)
    hours = o.job_time_h
    assert plan.disk_gb == pytest.approx(16.7) and plan.launch_disk_gb == 256
    assert o.cost_breakdown.storage_usd == pytest.approx(256 * 0.08 / 730 * hours)
    assert any("16.1 GB of the frozen base model's weights" in a for a in o.assumptions)
    assert any("base model's weights (16.1 GB)" in n for n in plan.notes)


def test_a_spot_restart_reads_the_base_weights_again_as_it_reads_the_checkpoint() -> None:
    # was: a reclaimed LoRA/QLoRA job's replacement was costed the 10-minute restart and the
    # checkpoint read back, but not the frozen base it must load again (the checkpoints hold only
    # the adapters' state): 16.06 GB at the 0.131 GB/s the checkpoint is read at, 123 s a restart.
    job = JobFacts(task="finetune", dataset_gb=0.1, checkpoint_gb=0.27, weights_gb=16.06)
    plan = plan_offers(
        OfferTable.from_rows([offer(pricing="spot", price_usd=8.0)]),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(max_nodes=1),
    )
    o = plan.recommended
    assert o.spot is not None and o.nodes == 1
    write_h = 0.27 / 0.131 / 3600
    # and the 0.1 GB dataset copied again (a reclaim is taken to lose the disk)
    restart_h = 10 / 60 + (0.27 + 16.06 + 0.1) / 0.131 / 3600
    # the toy estimator's failure-free time on one 8-GPU instance; no band: 1 per 24 instance-hours
    work = GPU_HOURS["A100-SXM4-40GB"] / 8
    expected = spot_times(np.array([work]), np.array([1 / 24]), write_h, restart_h)
    assert o.job_time_h == pytest.approx(float(expected.expected_h[0]), rel=1e-9)
    assert o.spot.restart_min == pytest.approx(restart_h * 60)
    assert o.spot.restart_assumed == (
        "assumed: 10 min to get a replacement instance, boot it and pull the image, plus the checkpoint "
        "(0.27 GB) and the base model's weights (16.06 GB) read at 0.131 GB/s, and the dataset (0.1 GB) "
        "copied again: +1 s (a reclaim is taken to lose its disks)"
    )
    doc = option_json(o).model_dump(mode="json")
    assert doc["spot"]["restart_min"] == pytest.approx(restart_h * 60)
    assert "the base model's weights (16.06 GB)" in doc["spot"]["restart_assumed"]
    assert f"each restart {restart_h * 60:.1f} min" in " ".join(spot_lines(o))


def test_a_full_fine_tune_restart_reads_its_checkpoint_only() -> None:
    job = JobFacts(task="finetune", dataset_gb=0.1, checkpoint_gb=0.27)
    plan = plan_offers(
        OfferTable.from_rows([offer(pricing="spot", price_usd=8.0)]),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(max_nodes=1),
    )
    spot = plan.recommended.spot
    assert spot is not None
    assert spot.restart_min == pytest.approx(10 + (0.27 + 0.1) / 0.131 / 60)
    assert spot.restart_assumed == (
        "assumed: 10 min to get a replacement instance, boot it and pull the image, plus the checkpoint "
        "(0.27 GB) read at 0.131 GB/s, and the dataset (0.1 GB) copied again: +1 s (a reclaim is "
        "taken to lose its disks)"
    )
