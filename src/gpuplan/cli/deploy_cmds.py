"""CLI: ``gpuplan deploy`` writes the files that launch a plan (or a workload) on a target."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from gpuplan.cli._i18n import LangOption, apply_language
from gpuplan.cli._numbers import finite_float
from gpuplan.i18n import N_, _

_TARGETS_HELP = "torchrun | docker | k8s | skypilot"


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command(name="deploy")(deploy)


def deploy(
    source: Annotated[
        Path,
        typer.Argument(
            help="A plan file (plan.json from `gpuplan plan --json`) or a workload file (job.yaml).",
            metavar="PLAN.json|WORKLOAD.yaml",
            show_default=False,
        ),
    ],
    target: Annotated[str, typer.Option("--target", "-t", help=f"What to generate: {_TARGETS_HELP}.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the files into.")],
    force: Annotated[
        bool, typer.Option("--force", help="Write into a non-empty --out, replacing files of the same name.")
    ] = False,
    gpu: Annotated[
        str | None,
        typer.Option(help="Workload files only: the GPU (A100-80GB, H100-SXM, T4 ...).", show_default=False),
    ] = None,
    count: Annotated[int, typer.Option(min=1, help="Workload files only: GPUs on the one node.")] = 1,
    provider: Annotated[
        str | None, typer.Option(help="Workload files only: aws, azure, gcp, alibaba ...", show_default=False)
    ] = None,
    region: Annotated[
        str | None, typer.Option(help="Workload files only: the region.", show_default=False)
    ] = None,
    spot: Annotated[bool, typer.Option("--spot", help="Workload files only: run on spot capacity.")] = False,
    autoscaler: Annotated[
        str, typer.Option(help="k8s serving: hpa (prometheus-adapter) or keda.", case_sensitive=False)
    ] = "hpa",
    image: Annotated[
        str | None,
        typer.Option(
            help="k8s: run this image (built from the Dockerfile) instead of mounting the code.",
            show_default=False,
        ),
    ] = None,
    base_image: Annotated[
        str | None,
        typer.Option(
            help="docker/k8s: base image instead of the one chosen for the GPU.", show_default=False
        ),
    ] = None,
    utilization_target: Annotated[
        float | None,
        typer.Option(
            help="k8s serving: scale out above this GPU utilisation, percent (default 80).",
            show_default=False,
            parser=finite_float,
        ),
    ] = None,
    share_gpu: Annotated[
        int | None,
        typer.Option(
            help="k8s serving: replicas per GPU by time-slicing (4 = a quarter card each).",
            show_default=False,
        ),
    ] = None,
    mig_profile: Annotated[
        str | None,
        typer.Option(help="k8s serving: one MIG slice per replica, e.g. 1g.10gb.", show_default=False),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
    steps: Annotated[
        int | None,
        typer.Option(min=1, help="Training steps (default: from samples x epochs).", show_default=False),
    ] = None,
    lang: LangOption = None,
) -> None:
    """Write the files that launch a plan (or a workload): torchrun, Docker, Kubernetes or SkyPilot.

    Each target's directory holds a README.md that says how to start it."""
    # Imported here so that `gpuplan --help` does not pay for pydantic models and YAML.
    from gpuplan.deploy import GenerateOptions, generate, get_generator, load_spec, write_files
    from gpuplan.errors import InputError

    apply_language(lang)
    generator = get_generator(target)  # fails fast, with "did you mean", before reading anything
    if autoscaler.lower() not in ("hpa", "keda"):
        raise InputError.worded(N_("--autoscaler must be hpa or keda, not {value!r}"), value=autoscaler)
    is_plan = source.suffix.lower() == ".json"
    workload_only = {"--gpu": gpu, "--provider": provider, "--region": region, "--spot": spot or None}
    if is_plan and (
        given := [k for k, v in workload_only.items() if v is not None] + (["--count"] if count != 1 else [])
    ):
        warning = _("warning: {options} ignored: the plan file already says where to run")
        sys.stderr.write(warning.format(options=", ".join(given)) + "\n")
    spec = load_spec(
        str(source),
        gpu=gpu,
        count=count,
        provider=provider,
        region=region,
        pricing="spot" if spot else "on_demand",
    ).with_serving(gpu_utilization_target=utilization_target, share_gpu=share_gpu, mig_profile=mig_profile)
    options = GenerateOptions(
        autoscaler="keda" if autoscaler.lower() == "keda" else "hpa",
        image=image,
        base_image=base_image,
        steps=steps,
    )
    files = generate(spec, generator.name, options)
    written = write_files(files, out, force=force)
    if json_out:
        # Stable document (schema_version 1): what was written where, and what to read next.
        doc = {
            "schema_version": 1,
            "target": generator.name,
            "out_dir": str(out),
            "files": [f.path for f in files],
            "readme": str(out / "README.md"),
        }
        typer.echo(json.dumps(doc, indent=2))
        return
    typer.echo(
        _("wrote {n} files to {out}/ for {target}: {files}").format(
            n=len(written), out=out, target=generator.name, files=", ".join(f.path for f in files)
        )
    )
    typer.echo(_("next: read {readme}").format(readme=out / "README.md"))
