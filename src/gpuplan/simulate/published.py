"""Published serving benchmarks against the iteration-level replica (``data/serving_published.csv``).

Each row is one figure a publisher printed for a serving engine (vLLM) on stated hardware, model,
request lengths and load: ``vllm bench serve`` with a request rate (Poisson arrivals, or every
request at once for ``inf``) or a cap on concurrent requests (closed loop). A case groups the rows of
one run. The replica that reproduces it is :func:`gpuplan.simulate.batching.run_replica` on the
estimator's iteration model of the model traced at the run's prompt length, with vLLM's scheduling
defaults for that GPU, the run's ``gpu_memory_utilization`` (vLLM's default 0.9 is what the
estimator's memory model already assumes) and the CPU work per iteration of the engine version the
row names (:mod:`gpuplan.perf.engine_cpu`, from a published measurement).

Nothing is fitted on these rows: the step times come from the estimator's training fit, so every
error is held out. Throughput is scored only where the server set it (``inf`` or a concurrency
cap); at a finite request rate the throughput is the offered rate and only the latencies count.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from gpuplan.profile.model import Profile
    from gpuplan.simulate.batching import ReplicaRun

__all__ = [
    "THROUGHPUT_METRICS",
    "PublishedCase",
    "Scoring",
    "SourceScore",
    "predict",
    "published_cases",
    "scoring",
]

THROUGHPUT_METRICS = ("total_tokens_per_s", "output_tokens_per_s", "requests_per_s")
LATENCY_METRICS = ("mean_ttft_ms", "mean_tpot_ms")


@dataclass(frozen=True, kw_only=True)
class PublishedCase:
    """One published serving run and its figures."""

    source: str
    label: str
    citation: str
    gpu: str
    engine: str
    """The serving engine as the source names it (its version sets its CPU work per iteration)."""
    preset: str
    input_tokens: int
    output_tokens: int
    requests: int
    request_rate: float
    """Requests per second; ``inf``: all sent at once (or as the concurrency cap allows)."""
    max_concurrency: int | None
    gpu_memory_utilization: float
    figures: dict[str, float]
    """Metric → published value."""

    @property
    def profile_file(self) -> str:
        return f"{self.preset}-in{self.input_tokens}.json"

    @property
    def workload(self) -> dict[str, object]:
        """The inference workload traced for this case (one prompt at the run's length)."""
        return {
            "name": f"{self.preset} prefill {self.input_tokens}",
            "task": "infer",
            "model": {"preset": self.preset},
            "precision": "bf16",
            "inputs": {"batch_size": 1, "seq_len": self.input_tokens},
        }

    def scored(self, metric: str) -> bool:
        """Throughput counts only where the server, not the offered rate, set it."""
        return metric not in THROUGHPUT_METRICS or math.isinf(self.request_rate)


def published_cases() -> tuple[PublishedCase, ...]:
    """Every run of the data file, in file order."""
    text = resources.files("gpuplan.simulate").joinpath("data/serving_published.csv").read_text("utf-8")
    cases: dict[tuple[str, ...], PublishedCase] = {}
    for row in csv.DictReader(text.splitlines()):
        key = tuple(
            row[k]
            for k in (
                "source",
                "preset",
                "gpu",
                "input_tokens",
                "output_tokens",
                "requests",
                "request_rate",
                "max_concurrency",
            )
        )
        if key not in cases:
            conc = row["max_concurrency"]
            cases[key] = PublishedCase(
                source=row["source"],
                label=f"{row['model']} {row['gpu']} in{row['input_tokens']}/out{row['output_tokens']} "
                f"×{row['requests']} rate {row['request_rate']}" + (f" conc {conc}" if conc else ""),
                citation=(
                    f"{row['publisher']}, {row['title']}, {row['url']} ({row['where']}), read {row['read']}"
                ),
                gpu=row["gpu"],
                engine=row["engine"],
                preset=row["preset"],
                input_tokens=int(row["input_tokens"]),
                output_tokens=int(row["output_tokens"]),
                requests=int(row["requests"]),
                request_rate=float(row["request_rate"]),
                max_concurrency=int(conc) if conc else None,
                gpu_memory_utilization=float(row["gpu_memory_utilization"]),
                figures={},
            )
        cases[key].figures[row["metric"]] = float(row["value"])
    return tuple(cases.values())


def _run(case: PublishedCase, profile: Profile, seed: int = 0) -> ReplicaRun:
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.engine_cpu import engine_cpu, named_engine
    from gpuplan.perf.inference import step_model
    from gpuplan.simulate.batching import run_replica
    from gpuplan.simulate.engines import engine_defaults

    gpu = get_gpu(case.gpu)
    # The engine's own defaults at the version the row names; the run's stated memory share, which
    # sizes its KV cache (perf/engine_memory.py).
    settings = replace(
        engine_defaults(gpu, *named_engine(case.engine)), memory_fraction=case.gpu_memory_utilization
    )
    step = step_model(profile, gpu, engine=engine_cpu(case.engine), scheduler=settings)
    n = case.requests
    prompt = np.full(n, case.input_tokens)
    output = np.full(n, case.output_tokens)
    if case.max_concurrency is not None:
        # The clients start spread over one request's time at that concurrency (the steady state
        # that timing jitter brings a real closed loop to; see run_replica).
        c = case.max_concurrency
        ctx = c * (case.input_tokens + case.output_tokens / 2)
        one = case.output_tokens * step.iteration_s(c, ctx, 0) + case.input_tokens * step.prefill_s_per_token
        return run_replica(step, settings, prompt, output, concurrency=c, stagger_s=one)
    if math.isinf(case.request_rate):
        arrival = np.zeros(n)
    else:
        # vllm bench serve's arrivals: exponential gaps at the rate (burstiness 1), seeded.
        arrival = np.cumsum(np.random.default_rng(seed).exponential(1.0 / case.request_rate, n))
    return run_replica(step, settings, prompt, output, arrival_s=arrival)


def predict(case: PublishedCase, profile: Profile) -> dict[str, float]:
    """The replica's figure for each published metric of ``case``, in the row's unit."""
    run = _run(case, profile)
    done = np.isfinite(run.finish_s)
    values = {
        "total_tokens_per_s": run.total_tokens_per_s(),
        "output_tokens_per_s": run.output_tokens_per_s(),
        "requests_per_s": float(done.sum()) / run.duration_s(),
        "mean_ttft_ms": float(np.nanmean(run.ttft_s)) * 1e3,
        "mean_tpot_ms": float(np.nanmean(run.tpot_s)) * 1e3,
    }
    return {m: values[m] for m in case.figures}


@dataclass(frozen=True, kw_only=True)
class SourceScore:
    citation: str
    throughput_n: int
    throughput_median_pct: float | None
    """Median |error| of the source's scored throughput figures, percent."""
    ttft_order: bool
    """Every pair of the source's runs is ordered by predicted mean TTFT as by published."""
    tpot_order: bool


@dataclass(frozen=True, kw_only=True)
class Scoring:
    sources: dict[str, SourceScore]
    throughput_n: int
    throughput_median_pct: float
    orders: int
    orders_right: int


def _ordered(pairs: list[tuple[float, float]]) -> bool:
    """Whether predicted values keep the published order (ties in the published kept as ties)."""
    for i, (pub_a, pred_a) in enumerate(pairs):
        for pub_b, pred_b in pairs[i + 1 :]:
            if (pub_a - pub_b) * (pred_a - pred_b) < 0:
                return False
    return True


def scoring(predictions: list[tuple[PublishedCase, dict[str, float]]]) -> Scoring:
    """Per source: the throughput error and whether TTFT and TPOT are ordered right."""
    by_source: dict[str, list[tuple[PublishedCase, dict[str, float]]]] = {}
    for case, pred in predictions:
        by_source.setdefault(case.source, []).append((case, pred))
    every: list[float] = []
    sources: dict[str, SourceScore] = {}
    orders = right = 0
    for source, runs in by_source.items():
        errs = [
            abs(100.0 * (pred[m] / case.figures[m] - 1.0))
            for case, pred in runs
            for m in case.figures
            if m in THROUGHPUT_METRICS and case.scored(m)
        ]
        every += errs
        flags = []
        for metric in LATENCY_METRICS:
            pairs = [(case.figures[metric], pred[metric]) for case, pred in runs if metric in case.figures]
            ok = _ordered(pairs)
            if len(pairs) > 1:
                orders += 1
                right += ok
            flags.append(ok)
        sources[source] = SourceScore(
            citation=runs[0][0].citation,
            throughput_n=len(errs),
            throughput_median_pct=float(np.median(errs)) if errs else None,
            ttft_order=flags[0],
            tpot_order=flags[1],
        )
    return Scoring(
        sources=sources,
        throughput_n=len(every),
        throughput_median_pct=float(np.median(every)) if every else math.nan,
        orders=orders,
        orders_right=right,
    )
