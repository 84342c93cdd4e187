"""``gpuplan measure``'s machinery on this machine's CPU (the same code path as on a GPU), and on a
real GPU when there is one (marked ``gpu``, skipped without CUDA)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from gpuplan.catalog import StoredMeasurement, open_store
from gpuplan.documents.measure import OP_CLASSES, MeasurementDocument
from gpuplan.errors import InputError
from gpuplan.machine.measure import MeasureSizes, run_measure
from gpuplan.perf.anchor import read_measurement, workload_measurements
from gpuplan.profile import measurement_key
from gpuplan.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "deploy" / "fixtures" / "userproj" / "job.yaml"
RECORDING = ROOT / "tests" / "machine" / "fixtures" / "measure" / "gpt2-lora.cpu.json"
ONE = MeasureSizes(warmup=1, steps=2, profiled=1)


def _tiny_gpt2(**extra: object) -> dict[str, object]:
    """GPT-2 (124 M) training one sequence of 16 tokens in fp32: a real step a CPU runs in seconds."""
    return {
        "name": "tiny-gpt2",
        "task": "train",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 1, "seq_len": 16},
        "precision": "fp32",
        "optimizer": "adamw",
        **extra,
    }


def test_a_cpu_step_is_timed_split_and_labelled_as_cpu() -> None:
    doc = run_measure(load_workload(TINY), device="cpu", sizes=ONE)
    assert doc.device.kind == "cpu" and doc.device.gpu_id is None
    assert len(doc.step_time.samples_s) == 2 and doc.step_time.median_s > 0
    k = doc.kernel_time_s
    assert k.busy_s == pytest.approx(sum(getattr(k, c) for c in OP_CLASSES))
    assert k.gemm > 0 and k.memory > 0  # the tiny model's linears and its relu/add/optimizer
    assert doc.memory.peak_allocated_gib is None and doc.memory.how  # no CUDA allocator: said why
    assert any("CPU recording" in n for n in doc.notes)
    assert doc.step_time.issue_s is None  # a CPU step is synchronous: no hidden CPU time to keep
    # The document is the recording format: it reads back as one.
    again, m = read_measurement(doc.to_json(), source="test")
    assert again == doc and m.device == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_no_gpu_is_one_line() -> None:
    with pytest.raises(InputError, match="no CUDA GPU here"):
        run_measure(load_workload(TINY), sizes=ONE)


def test_the_recorded_cpu_step_is_real_and_complete() -> None:
    doc = MeasurementDocument.read(json.loads(RECORDING.read_text(encoding="utf-8")))
    assert doc.device.kind == "cpu" and doc.workload.name == "gpt2-lora-tiny"
    assert doc.step_time.low_s <= doc.step_time.median_s <= doc.step_time.high_s
    assert len(doc.step_time.samples_s) == doc.run.timed_steps


def test_the_catalog_keeps_recordings_by_what_was_measured(tmp_path: Path) -> None:
    w = load_workload(RECORDING.with_name("gpt2-lora.yaml"))
    store = open_store(str(tmp_path / "c.sqlite"), seed=False)
    try:
        text = RECORDING.read_text(encoding="utf-8")
        doc, _m = read_measurement(text, source="recording")
        row = StoredMeasurement(
            profile_key=doc.workload.profile_key,
            measurement_key=measurement_key(w),
            workload_name=doc.workload.name,
            device=doc.device.kind,
            gpu_id=None,
            device_name=doc.device.name,
            measured_at=doc.run.measured_at,
            schema_version=1,
            payload=text,
        )
        store.local.add_step_measurement(row)
        store.local.add_step_measurement(replace(row, measurement_key="0" * 64))  # another workload's
        mine = store.local.step_measurements(measurement_key(w))
        assert [r.measurement_key for r in mine] == [measurement_key(w)]
        broken = replace(row, payload="{")
        steps, problems = workload_measurements(w, lambda _key: [*mine, broken])
        assert len(steps) == 1 and steps[0].step_time_s == doc.step_time.median_s and len(problems) == 1
    finally:
        store.close()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_the_step_anchors_its_own_estimate(tmp_path: Path) -> None:
    from gpuplan.api import estimate
    from gpuplan.perf.anchor import StepMeasurement

    w = load_workload(ROOT / "examples" / "resnet50-imagenet.yaml")
    w = w.model_copy(update={"inputs": w.inputs.model_copy(update={"batch_size": 32})})
    doc = run_measure(w, device="cuda")
    assert doc.device.kind == "cuda" and doc.memory.peak_allocated_gib and doc.memory.peak_reserved_gib
    assert doc.kernel_time_s.gemm > 0 and doc.kernel_time_s.busy_s <= 1.5 * doc.step_time.median_s
    # The CPU's issue time is kept unless GradScaler makes the step wait for the GPU (amp-fp16).
    waits = w.precision.value == "amp-fp16"
    assert (doc.step_time.issue_s is None) == waits
    assert waits or 0 < doc.step_time.issue_s <= 1.05 * doc.step_time.high_s  # type: ignore[operator]
    if doc.device.gpu_id is None:
        pytest.skip(f"{doc.device.name} is not in gpuplan's datasheet table")
    m = StepMeasurement.from_document(doc)
    report = estimate(w, [doc.device.gpu_id, "H100-SXM"], measured_steps=[m])
    own, other = (o.estimate for o in report.outcomes)
    assert own is not None and own.anchored is not None and not own.anchored.transferred
    assert own.step_time_s == pytest.approx(doc.step_time.median_s, rel=0.02)
    assert other is not None and other.anchored is not None


@pytest.mark.parametrize("mode", ["full", "selective"])
def test_a_checkpointed_step_compiles_as_measure_runs_it(mode: str) -> None:
    """``compile: true`` with activation checkpointing: dynamo takes torch's own checkpoint
    contexts, not a closure around them (on a GPU, every such workload stopped at the first step
    with "checkpoint not implemented for NestedUserFunctionVariable context_fn")."""
    from gpuplan.profile.tracer import step_parts
    from gpuplan.workload.sources import open_bundle

    w = load_workload(_tiny_gpt2(activation_checkpointing=mode))
    torch.manual_seed(0)
    with open_bundle(w) as bundle:
        parts = step_parts(w, bundle)
        model = torch.compile(parts.model, backend="eager", fullgraph=False)
        batch = bundle.make_batch()
        out = model(*batch.args, **batch.kwargs)
        loss = parts.loss(out, batch)
        loss.backward()
    assert any(p.grad is not None for p in parts.model.parameters())


@pytest.mark.parametrize("precision", ["tf32", "fp32"])
def test_a_tf32_step_runs_its_fp32_matmuls_on_tf32(
    precision: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """PyTorch runs fp32 matmuls in full FP32 unless told otherwise: a ``precision: tf32`` step
    measured on an H200 ran BERT-Large's matmuls at the FP32 rate (4-5x its AMP step). The
    setting holds during the steps only, and an fp32 step keeps full FP32."""
    import gpuplan.machine.measure as measure

    matmul = torch.backends.cuda.matmul
    seen: list[str] = []
    real = measure._step_fn

    def step_fn(*a: object, **k: object) -> object:
        step = real(*a, **k)  # type: ignore[arg-type]

        def spy() -> None:
            seen.append(matmul.fp32_precision)
            step()

        return spy

    monkeypatch.setattr(measure, "_step_fn", step_fn)
    before = matmul.fp32_precision
    import shutil

    project = tmp_path / "proj"
    shutil.copytree(TINY.parent, project)
    (project / TINY.name).write_text(TINY.read_text(encoding="utf-8") + f"precision: {precision}\n", "utf-8")
    run_measure(load_workload(project / TINY.name), device="cpu", sizes=ONE)
    assert seen and set(seen) == {"tf32" if precision == "tf32" else before}
    assert matmul.fp32_precision == before


def test_a_step_of_a_stack_with_fused_kernels_says_it_ran_them_unfused() -> None:
    """measure runs a stated fused kernel as gpuplan's reference operator (the unfused ops): on an
    H200, DeepSpeed's BERT rows so measured were 3x slower than the kernels they name."""
    spec = _tiny_gpt2(stack={"fused_kernels": ["dropout-add-norm"]})
    doc = run_measure(load_workload(spec), device="cpu", sizes=ONE)
    assert any("fused kernels dropout-add-norm: run here by gpuplan's reference code" in n for n in doc.notes)
    plain = run_measure(load_workload({**spec, "stack": {}}), device="cpu", sizes=ONE)
    assert not any("fused kernels" in n for n in plain.notes)


def test_a_compiled_training_step_compiles_its_loss_as_the_trace_keeps_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The trace of ``compile: true`` keeps what the partitioner keeps for the model's blocks and for
    the loss (profile/compiled.py, as torchtune and torchtitan compile it); measure compiled the
    model only, so on an H200 the compiled steps kept the eager loss's tensors (29-31 % above the
    trace)."""
    compiled: list[object] = []

    def spy(fn: object, *a: object, **k: object) -> object:
        compiled.append(fn)
        return fn  # run eager: what is asked to compile is what this checks

    monkeypatch.setattr(torch, "compile", spy)
    spec = _tiny_gpt2(compile=True)
    doc = run_measure(load_workload(spec), device="cpu", sizes=ONE)
    assert len(compiled) == 2 and isinstance(compiled[0], torch.nn.Module) and callable(compiled[1])
    assert any("model and its loss ran under torch.compile" in n for n in doc.notes)


def test_the_kernel_split_leaves_out_the_gpu_spans_of_annotated_regions() -> None:
    """torch.profiler puts a device-side span for each annotated region (the optimizer's
    ``Optimizer.step#AdamW.step``) among the kernels; counted as one, an H200 step of 265 ms had
    11.7 s of "other" kernel time. torch's own table leaves them out (``is_user_annotation``)."""
    from types import SimpleNamespace

    from gpuplan.machine.measure import _kernel_split

    def event(key: str, us: float, device: str, annotation: bool = False) -> SimpleNamespace:
        return SimpleNamespace(
            key=key, self_device_time_total=us, device_type=device, is_user_annotation=annotation
        )

    averages = [
        event("aten::mm", 600.0, "DeviceType.CPU"),
        event("aten::add_", 300.0, "DeviceType.CPU"),
        event("sm90_xmma_gemm_bf16", 600.0, "DeviceType.CUDA"),
        event("vectorized_elementwise_kernel", 300.0, "DeviceType.CUDA"),
        event("Optimizer.step#AdamW.step", 50_000.0, "DeviceType.CUDA", annotation=True),
    ]
    split = _kernel_split(SimpleNamespace(key_averages=lambda: averages), "cuda", steps=1)
    assert split["gemm"] == pytest.approx(600e-6) and split["memory"] == pytest.approx(300e-6)
    assert split["other"] == 0.0
