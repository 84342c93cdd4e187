"""Batch generation: a decoder LLM's batch job whose samples each generate ``inputs.output_tokens``
after a prompt of ``inputs.seq_len``. Its step is one batch at the rate an always-full engine
completes requests (prefill, then continuous-batching decode), not the prompt's forward pass alone,
which had priced a summarisation job as if nothing were generated."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.errors import EstimateError
from gpuplan.hardware import get_gpu
from gpuplan.perf.engine_cpu import UNKNOWN_ENGINE
from gpuplan.perf.engines import engine_defaults
from gpuplan.perf.estimate import EstimateRequest, JobSize, run_estimate
from gpuplan.perf.inference import decode_estimate, serving_estimate
from gpuplan.profile.model import ModelShape

#: Llama-3.1-8B's shape (32 layers, 4,096 wide, 32 query and 8 KV heads of 128).
LLAMA8B = ModelShape(
    family="decoder", num_layers=32, hidden_size=4096, num_attention_heads=32, num_kv_heads=8, head_dim=128
)
PARAMS = 8_030_261_248
PROMPT, ANSWER, BATCH = 1024, 256, 16


def _profile(shape: ModelShape = LLAMA8B):  # type: ignore[no-untyped-def]
    return make_profile(
        ops=(op("forward", flops=2.0 * PARAMS * PROMPT * BATCH),),
        peak=breakdown(parameters=2.0 * PARAMS, activations=2 * GIB),
        task="infer",
        batch_size=BATCH,
        seq_len=PROMPT,
        params=PARAMS,
        shape=shape,
    )


def _request(generated: int | None, gpu: str = "L40S", **more):  # type: ignore[no-untyped-def]
    g = get_gpu(gpu)
    return EstimateRequest(
        profile=_profile(),
        gpu=g,
        calibration=SIMPLE_CAL,
        job=JobSize(samples=2_000_000),
        serving_engine=UNKNOWN_ENGINE if generated else None,
        serving_scheduler=engine_defaults(g) if generated else None,
        serving_context_tokens=PROMPT + generated if generated else None,
        generated_tokens=generated,
        **more,
    )


def test_a_generation_step_is_a_batch_at_the_rate_an_always_full_engine_completes() -> None:
    request = _request(ANSWER)
    est = run_estimate(request)
    # The serving model's own figure: an L40S replica always full of 1,024 + 256-token requests.
    dec = decode_estimate(
        request.profile,
        request.gpu,
        calibration=SIMPLE_CAL,
        engine=UNKNOWN_ENGINE,
        scheduler=request.serving_scheduler,
        context_tokens=PROMPT + ANSWER,
    )
    rate = serving_estimate(dec, requests_per_s=0.0, prompt_tokens=PROMPT, output_tokens=ANSWER)
    assert est.step_time_s == pytest.approx(BATCH / rate.capacity_requests_per_s, rel=1e-9)
    assert est.job_time_h == pytest.approx(2_000_000 / rate.capacity_requests_per_s / 3600, rel=1e-9)
    # The forward pass's range, in proportion; tokens/s counts prompt and answer.
    forward = run_estimate(_request(None))
    k = est.step_time_s / forward.step_time_s
    assert est.step_time_s_low == pytest.approx(forward.step_time_s_low * k)
    assert est.step_time_s_high == pytest.approx(forward.step_time_s_high * k)
    assert est.throughput == pytest.approx(BATCH * (PROMPT + ANSWER) / est.step_time_s)
    # 256 generated tokens cost more than the prompt's forward pass alone (what was priced before)
    assert est.step_time_s > 1.5 * forward.step_time_s
    (note,) = [n for n in est.notes if n.startswith("batch generation:")]
    assert "1,024 prompt and 256 generated tokens a sample" in note
    assert f"up to {dec.max_concurrent_sequences:,} sequences" in note


def test_longer_answers_take_longer_and_a_bigger_gpu_less() -> None:
    short, long = (run_estimate(_request(n)) for n in (64, 512))
    assert long.step_time_s > 3 * short.step_time_s
    assert (
        run_estimate(_request(ANSWER, gpu="H100-SXM")).step_time_s
        < run_estimate(_request(ANSWER)).step_time_s
    )


def test_only_a_decoder_generates() -> None:
    encoder = replace(LLAMA8B, family="encoder")
    request = replace(_request(ANSWER), profile=_profile(encoder))
    with pytest.raises(EstimateError, match=r"only a decoder LLM generates tokens after its prompt") as e:
        run_estimate(request)
    assert "\n" not in str(e.value)


# ---- the workload: where output_tokens belongs, and the estimate request it makes ----------------


def _workload(**inputs):  # type: ignore[no-untyped-def]
    from gpuplan.workload import Workload

    doc = {
        "name": "chats",
        "task": "infer",
        "model": {"preset": "llama-8b"},
        "inputs": {"batch_size": BATCH, "seq_len": PROMPT, **inputs},
        "data": {"samples": 2_000_000},
    }
    return doc, Workload


def test_output_tokens_belongs_to_a_batch_job_with_a_prompt() -> None:
    from pydantic import ValidationError

    from gpuplan.workload._validation import one_line_error

    doc, workload = _workload(output_tokens=ANSWER)
    assert workload.model_validate(doc).generated_tokens == ANSWER
    for change, said in [
        ({"task": "train"}, "inputs.output_tokens: the answer length of a batch generation job"),
        (
            {"serving": {"requests_per_s": 1, "prompt_tokens": 10, "output_tokens": 5}},
            "a service gives serving.output_tokens",
        ),
        ({"inputs": {"batch_size": BATCH, "output_tokens": ANSWER}}, "needs inputs.seq_len"),
        # an encoder generates nothing: said when the workload is read, by plan too (it had been
        # "no option is left: … does_not_fit" there, the estimate refusing every GPU)
        ({"model": {"preset": "bert-base"}, "inputs": {"batch_size": 8, "seq_len": 32, "output_tokens": 8}},
         "only a decoder LLM generates tokens after its prompt, and bert-base is not one"),
        # prompt and answer past the model's positions: priced, then cut by deploy's --max-model-len
        ({"model": {"preset": "gpt2"}, "inputs": {"batch_size": 8, "seq_len": 1000, "output_tokens": 200}},
         "a prompt of 1000 and an answer of 200 tokens make 1200, longer than the model allows (1024"),
    ]:  # fmt: skip
        with pytest.raises(ValidationError) as e:
            workload.model_validate({**doc, **change})
        assert said in str(one_line_error(e.value))


def test_the_request_of_a_generation_job_names_its_engine_and_its_requests_length() -> None:
    from gpuplan.perf.workload_request import request_for

    doc, workload = _workload(output_tokens=ANSWER)
    gpu = get_gpu("L40S")
    request = request_for(workload.model_validate(doc), _profile(), gpu)
    assert request.generated_tokens == ANSWER
    assert request.serving_engine == UNKNOWN_ENGINE  # named nowhere: not taken to overlap its CPU work
    assert request.serving_scheduler == engine_defaults(gpu)  # vLLM's latest row, as its job runs
    assert request.serving_context_tokens == PROMPT + ANSWER  # the KV cache holds prompt and answer
    doc, workload = _workload()
    plain = request_for(workload.model_validate(doc), _profile(), gpu)
    assert plain.generated_tokens is None and plain.serving_scheduler is None
