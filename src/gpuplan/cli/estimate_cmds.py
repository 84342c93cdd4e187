"""``gpuplan estimate``: does the workload fit, how fast is a step, how long is the job, on each GPU."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from gpuplan.perf import JobSize
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload


def _load_profile(workload: Workload, db: str | None) -> Profile:
    """The workload's Profile, from the store's cache when it has one, else traced (and cached)."""
    from gpuplan.catalog.store import open_store
    from gpuplan.errors import StoreError
    from gpuplan.profile import profile

    try:
        store = open_store(db, seed=False)
    except StoreError as e:
        # A broken cache must not block an estimate: trace without it and say so.
        sys.stderr.write(f"warning: profile cache unavailable ({e}); tracing without it\n")
        return profile(workload, None)
    try:
        return profile(workload, store)
    finally:
        store.close()


def _job(workload: Workload) -> JobSize | None:
    from gpuplan.perf import JobSize

    data = workload.data
    if data is None:
        return None
    if data.samples is not None:
        return JobSize(samples=data.samples, epochs=data.epochs)
    if data.tokens is not None and workload.inputs.seq_len:
        return JobSize(samples=data.tokens / workload.inputs.seq_len, epochs=data.epochs)
    return None


def estimate_cmd(
    ctx: typer.Context,
    workload_file: Annotated[Path, typer.Argument(help="Workload YAML file.", show_default=False)],
    gpu: Annotated[
        list[str] | None,
        typer.Option("--gpu", "-g", help="GPU to estimate (repeatable; NAME or NAME:COUNT). Default: all."),
    ] = None,
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="GPUs per configuration.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
) -> None:
    """Whether WORKLOAD fits each GPU, its step time, throughput and job time, with advice if it does not."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from gpuplan.cli import settings
    from gpuplan.hardware import all_gpus, parse_gpu_spec
    from gpuplan.perf import EstimateOutcome, ServingLoad, estimate_all, load_calibration
    from gpuplan.report.estimate import estimate_json, estimate_view
    from gpuplan.workload import load_workload

    workload = load_workload(workload_file)
    specs = [parse_gpu_spec(g) for g in gpu] if gpu else [(g, None) for g in all_gpus()]
    err = Console(stderr=True)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=as_json or not err.is_terminal,
    ) as progress:
        task = progress.add_task(f"tracing {workload.name} on fake tensors…", total=None)
        prof = _load_profile(workload, settings(ctx).db)
        progress.update(task, description=f"estimating on {len(specs)} GPU configuration(s)…")
        cal = load_calibration()
        job = _job(workload)
        serving = None
        if workload.serving is not None:
            serving = ServingLoad(
                requests_per_s=workload.serving.requests_per_s,
                prompt_tokens=workload.serving.prompt_tokens,
                output_tokens=workload.serving.output_tokens,
            )
        outcomes: list[EstimateOutcome] = []
        for g, n in specs:
            outcomes.extend(
                estimate_all(
                    prof,
                    [g],
                    count=n or count,
                    parallelism=workload.parallelism.value,
                    calibration=cal,
                    job=job,
                    grad_accum_steps=workload.gradient_accumulation,
                    serving=serving,
                )
            )
    if as_json:
        doc = estimate_json(
            prof,
            outcomes,
            cal,
            parallelism=workload.parallelism.value,
            gradient_accumulation=workload.gradient_accumulation,
        )
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return
    Console().print(estimate_view(prof, outcomes, cal))


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("estimate")(estimate_cmd)
