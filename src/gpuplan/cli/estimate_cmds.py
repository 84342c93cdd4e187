"""``gpuplan estimate``: does the workload fit, how fast is a step, how long is the job, on each GPU."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from gpuplan.cli._i18n import LangOption, apply_language, console
from gpuplan.cli._profiles import load_profile, open_cache
from gpuplan.cli._progress import spinner


def estimate_cmd(
    ctx: typer.Context,
    workload_file: Annotated[Path, typer.Argument(help="Workload YAML file.", show_default=False)],
    gpu: Annotated[
        list[str] | None,
        typer.Option("--gpu", "-g", help="GPU to estimate (repeatable; NAME or NAME:COUNT). Default: all."),
    ] = None,
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="GPUs per configuration.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
    lang: LangOption = None,
) -> None:
    """Whether WORKLOAD fits each GPU, its step time, throughput and job time, with advice if it does not."""
    apply_language(lang)
    from gpuplan.api import estimate
    from gpuplan.cli import settings
    from gpuplan.report.estimate import estimate_json, estimate_view
    from gpuplan.workload import load_workload

    workload = load_workload(workload_file)
    # One store for both: the profile cache and the `gpuplan bench` results that refine estimates.
    store = open_cache(settings(ctx).db)
    try:
        with spinner(f"tracing {workload.name} on fake tensors…", quiet=as_json) as say:
            prof = load_profile(workload, settings(ctx).db, store=store)
            say("estimating…")
            measured = store.bench_results() if store is not None else []
            report = estimate(workload, gpu or None, count=count, profile=prof, measurements=measured)
    finally:
        if store is not None:
            store.close()
    prof, outcomes, cal = report.profile, list(report.outcomes), report.calibration
    if gpu and all(o.error for o in outcomes):
        # Every GPU the user named cannot run this workload at all (fp8 on an A100 …): that is an
        # error of the request, not a table of blanks.
        from gpuplan.errors import EstimateError

        raise EstimateError(str(outcomes[0].error))
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
    console().print(estimate_view(prof, outcomes, cal))


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("estimate")(estimate_cmd)
