"""CLI commands for the local machine: ``gpuplan doctor`` and ``gpuplan bench``.

Exit codes: ``doctor`` reports and exits 0 whatever it finds (a finding is not a usage or data
error); with ``--strict`` it exits 1 when any finding is an error, for scripts and CI gates.
``bench`` exits 1 on a GpuplanError (no torch, ``--device cuda`` without CUDA, a store failure).
torch and pynvml are imported only when a command runs, never for ``--help``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from gpuplan.cli._i18n import LangOption, apply_language, console
from gpuplan.cli._settings import settings
from gpuplan.i18n import _

if TYPE_CHECKING:
    from gpuplan.machine.bench import BenchReport


def _print_json(doc: object) -> None:
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")


def doctor(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print findings and the machine facts as JSON.")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit with code 1 when any finding is an error (for CI gates).")
    ] = False,
    lang: LangOption = None,
) -> None:
    """Check this machine's GPU stack: driver, CUDA vs PyTorch, MIG/vGPU, PCIe, ECC, clocks, NCCL settings."""
    from gpuplan.machine import Severity, diagnose, probe_machine
    from gpuplan.report.machine import doctor_json, doctor_table

    apply_language(lang)
    # The environment is read here, in the CLI, and handed to the library (STYLE: library reads no env).
    facts = probe_machine(os.environ)
    findings = diagnose(facts)
    if as_json:
        _print_json(doctor_json(facts, findings))
    else:
        console().print(doctor_table(findings))
    if strict and any(f.severity is Severity.ERROR for f in findings):
        raise typer.Exit(1)


def bench(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="Smaller sizes and fewer repeats (seconds, not a minute).")
    ] = False,
    device: Annotated[
        str | None,
        typer.Option(
            "--device", help="cpu or cuda. Default: cuda when available, else cpu.", show_default=False
        ),
    ] = None,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not save the results in the database.")
    ] = False,
    lang: LangOption = None,
) -> None:
    """Measure this machine against its datasheet: matmul TFLOPS, memory and PCIe bandwidth, a training
    step, all-reduce."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from gpuplan.machine import BenchProgress, run_bench
    from gpuplan.report.machine import bench_json, bench_table

    apply_language(lang)
    if device is not None and device not in ("cpu", "cuda"):
        raise typer.BadParameter(
            _("{device} is not cpu or cuda").format(device=repr(device)), param_hint="--device"
        )
    err = Console(stderr=True, markup=False, emoji=False)
    # A progress bar on a terminal only; piped or redirected output stays quiet.
    if err.is_terminal:
        with Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        ) as bar:
            task = bar.add_task("bench", total=None)

            def on_progress(p: BenchProgress) -> None:
                bar.update(task, total=p.total, completed=p.done, description=p.label)

            report = run_bench(device=device, quick=quick, progress=on_progress)
    else:
        report = run_bench(device=device, quick=quick)

    stored = False
    if not no_store:
        _store(settings(ctx).db, report)
        stored = True
    if as_json:
        _print_json(bench_json(report, stored=stored))
    else:
        console().print(bench_table(report))
        if stored:
            err.print(_("saved {n} results to the database").format(n=len(report.results)))


def _store(db: str | None, report: BenchReport) -> None:
    from gpuplan.catalog import open_store

    store = open_store(db)
    try:
        store.local.add_bench_results(report.results)
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("doctor")(doctor)
    app.command("bench")(bench)
