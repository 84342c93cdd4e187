"""A replica's serving capacity as ``estimate`` (and ``plan``) take it, against the replica ``simulate``
runs, over a grid of GPUs, models, request lengths and engines.

    PYTHONPATH=src .venv/bin/python benchmarks/capacity_check.py [--quick] [--no-iterations]

For each case it prints the sequences each counts (estimate / simulate) and, in requests per second
of one replica:

- ``estimate``: ``serving_estimate``'s capacity as ``gpuplan estimate`` computes it
  (``perf.sweep.estimate_all`` on the workload's request; the planner's serving rows build the same
  decode estimate);
- ``fleet``: the per-request replica ``simulate autoscale`` runs (``simulate.replica.estimator_replica``)
  with every slot busy: slots ÷ the seconds a request holds its slot at that batch;
- ``iter``, ``iter~``: the iteration-level replica (``simulate.batching.run_replica``, the reference
  the fleet model is checked against) saturated — a closed loop of more clients than it can hold,
  as an open loop past its capacity keeps requests waiting — as requests finished per second
  between the 25th and the 75th percentile of the finishing times; ``iter`` with every answer the
  workload's length, ``iter~`` with answer lengths drawn from an exponential distribution of that
  mean (seeded);

and the estimate's ratio to each, then their distribution. A minute or two without
``--no-iterations`` (the saturated runs preempt and recompute). The profiles are the presets' cached
traces (traced once where the catalog's cache has none).
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

#: (preset, precision): an 8B decoder in bf16 on the 24 GiB cards and up; a 3B one in fp16 for the T4
#: (no bf16, 16 GiB), run on every GPU as well.
MODELS = (("llama-8b", "bf16"), ("llama-3b", "fp16-master"))
GPUS = ("T4", "L4", "A10G", "RTX-4090", "A100-SXM4-80GB", "H100-SXM")
LENGTHS = ((512, 256), (128, 512), (2048, 128), (1024, 1024))
ENGINES = ("vllm==0.6.6", "vllm==0.8.5", "vllm==0.14.0", "sglang==0.4.6")


def _workload(preset: str, precision: str, prompt: int, output: int, engine: str):  # type: ignore[no-untyped-def]
    from gpuplan.workload.spec import load_workload

    return load_workload(
        {
            "name": f"{preset}-service",
            "task": "infer",
            "model": {"preset": preset},
            "inputs": {"batch_size": 16, "seq_len": 768},
            "precision": precision,
            "serving": {
                "requests_per_s": 1,
                "prompt_tokens": prompt,
                "output_tokens": output,
                "engine": engine,
            },
        }
    )


def _estimate_capacity(w, prof, g) -> tuple[float, int] | None:  # type: ignore[no-untyped-def]
    """(requests per second, sequences) of one replica as ``gpuplan estimate`` takes them (the
    planner's serving rows build the same decode estimate); None where it does not fit."""
    from gpuplan.perf.sweep import estimate_all
    from gpuplan.perf.workload_request import request_for, serving_load

    (outcome,) = estimate_all([request_for(w, prof, g)], serving=serving_load(w), with_advice=False)
    if outcome.serving is None or outcome.decode is None:
        return None
    return outcome.serving.capacity_requests_per_s, outcome.decode.max_concurrent_sequences


def _replica(w, prof, g):  # type: ignore[no-untyped-def]
    from gpuplan.perf.workload_request import serving_engine
    from gpuplan.simulate.replica import ServingStack, estimator_replica

    s = w.serving
    stack = ServingStack(
        cuda_graphs=w.uses_cuda_graphs,
        compiled=w.compile,
        engine_cpu=serving_engine(w),
        engine_name=s.engine_name,
        engine_version=s.engine_version,
    )
    rep, _weights = estimator_replica(
        prof, g, stack, prompt_tokens=np.array([s.prompt_tokens]), output_tokens=np.array([s.output_tokens])
    )
    return rep


def _fleet_capacity(rep, prompt: int, output: int) -> float:  # type: ignore[no-untyped-def]
    """Every slot busy: slots ÷ the seconds a request holds its slot at that batch."""
    held = float(rep.service_s(np.array([float(prompt)]), np.array([float(output)]), running=rep.slots)[0])
    return rep.slots / held


def _iteration_capacity(rep, prompt: int, output: int, *, spread: bool) -> float:  # type: ignore[no-untyped-def]
    """The iteration-level replica saturated: a closed loop of more clients than it can hold, so
    that requests always wait (an open loop past its capacity). ``spread``: output lengths drawn
    from an exponential distribution of the same mean (seeded), else every one the same."""
    from gpuplan.simulate.batching import run_replica

    assert rep.step is not None and rep.engine is not None
    cap = rep.step.kv_capacity_tokens
    clients = min(rep.engine.max_num_seqs, cap // max(prompt, 1)) + 8
    n = max(12 * clients, 600)
    outputs = np.full(n, output)
    if spread:
        drawn = np.random.default_rng(0).exponential(output, n)
        outputs = np.clip(np.round(drawn), 1, cap - prompt - 64).astype(np.int64)
    one = np.array([float(prompt)]), np.array([float(output)])
    run = run_replica(
        rep.step,
        rep.engine,
        np.full(n, prompt),
        outputs,
        concurrency=clients,
        stagger_s=float(rep.service_s(*one, running=rep.slots)[0]),
    )
    finish = np.sort(run.finish_s)
    lo, hi = int(0.25 * n), int(0.75 * n)
    return (hi - lo) / (finish[hi] - finish[lo])


def main() -> None:
    from gpuplan.cli._profiles import load_profile
    from gpuplan.hardware import get_gpu

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the 8B model at 512/256 only")
    ap.add_argument("--no-iterations", action="store_true", help="skip the iteration-level runs (slow)")
    args = ap.parse_args()
    models = MODELS[:1] if args.quick else MODELS
    lengths = LENGTHS[:1] if args.quick else LENGTHS
    profiles = {}
    print(
        f"{'model':8} {'GPU':14} {'prompt':>6} {'out':>5} {'engine':13} {'seqs e/s':>9} "
        f"{'estimate':>8} {'fleet':>7} {'iter':>7} {'iter~':>7} {'e/fleet':>7} {'e/iter':>6} {'e/iter~':>7}"
    )
    ratios: dict[str, list[float]] = {"fleet": [], "iterations, fixed lengths": [], "iterations, spread": []}
    for preset, precision in models:
        for gpu_id in GPUS:
            g = get_gpu(gpu_id)
            for prompt, output in lengths:
                for engine in ENGINES:
                    w = _workload(preset, precision, prompt, output, engine)
                    if (preset, precision) not in profiles:
                        profiles[preset, precision] = load_profile(w, None)
                    prof = profiles[preset, precision]
                    head = f"{preset:8} {gpu_id:14} {prompt:>6} {output:>5} {engine:13}"
                    got = _estimate_capacity(w, prof, g)
                    if got is None:
                        print(f"{head} does not fit")
                        continue
                    est, seqs = got
                    rep = _replica(w, prof, g)
                    fleet = _fleet_capacity(rep, prompt, output)
                    fixed = spread = float("nan")
                    if not args.no_iterations:
                        fixed = _iteration_capacity(rep, prompt, output, spread=False)
                        spread = _iteration_capacity(rep, prompt, output, spread=True)
                        ratios["iterations, fixed lengths"].append(est / fixed)
                        ratios["iterations, spread"].append(est / spread)
                    ratios["fleet"].append(est / fleet)
                    print(
                        f"{head} {seqs:>4}/{rep.slots:<4} {est:>8.3f} {fleet:>7.3f} {fixed:>7.3f} "
                        f"{spread:>7.3f} {est / fleet:>7.3f} {est / fixed:>6.3f} {est / spread:>7.3f}",
                        flush=True,
                    )
    for name, xs in ratios.items():
        if xs:
            q = statistics.quantiles(xs, n=20) if len(xs) > 1 else xs * 19
            mid = statistics.median(xs)
            print(
                f"estimate / {name}: {len(xs)} cases, min {min(xs):.3f}, p5 {q[0]:.3f}, "
                f"median {mid:.3f}, p95 {q[-1]:.3f}, max {max(xs):.3f}"
            )


if __name__ == "__main__":
    main()
