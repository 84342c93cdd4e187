"""``gpuplan measure``: the workload's own step, timed on the GPU this machine has.

``gpuplan measure W.yaml`` runs a few real steps (``machine/measure.py``) and keeps the recording
in the catalog database, where ``estimate`` and ``plan`` anchor the workload on it. ``--out FILE``
also writes the recording; ``--from FILE`` stores a recording made on another machine (checked to
be of this workload). Exit 1 with one line when there is no GPU (``--device cpu`` records a CPU
step, labelled so and never used for GPU estimates). torch is imported only when a step runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpuplan.cli._access import ProjectOption
from gpuplan.cli._i18n import LangOption, apply_language, console
from gpuplan.cli._settings import settings
from gpuplan.i18n import N_, _

if TYPE_CHECKING:
    from gpuplan.documents.measure import MeasurementDocument
    from gpuplan.workload import Workload

#: A recording is a few kB (10 timed steps); the largest allowed holds 10,000 step samples.
_MAX_RECORDING_BYTES = 4 * 1024 * 1024


def measure_cmd(
    ctx: typer.Context,
    workload_file: Annotated[
        Path, typer.Argument(help="Workload YAML file.", metavar="WORKLOAD", show_default=False)
    ],
    device: Annotated[
        str | None,
        typer.Option(
            "--device",
            help="cuda (the default: this machine's GPU) or cpu (a CPU recording, never used for GPU "
            "estimates).",
            show_default=False,
        ),
    ] = None,
    steps: Annotated[int, typer.Option("--steps", min=1, max=1000, help="Timed steps.")] = 10,
    warmup: Annotated[
        int, typer.Option("--warmup", min=0, max=1000, help="Steps run first and left out.")
    ] = 3,
    profiled: Annotated[
        int, typer.Option("--profiled", min=1, max=100, help="Steps under torch.profiler (kernel split).")
    ] = 3,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the recording to this JSON file.")
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--from", help="Store a recording made elsewhere (measure --out) instead of measuring."),
    ] = None,
    no_store: Annotated[
        bool, typer.Option("--no-store", help="Do not save the recording in the database.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the recording as JSON.")] = False,
    lang: LangOption = None,
    project: ProjectOption = None,
) -> None:
    """Time a few real steps of WORKLOAD on this machine's GPU; estimate and plan then anchor on them."""
    apply_language(lang)
    from gpuplan.workload import load_workload

    workload = load_workload(workload_file, project=project)
    if from_file is not None:
        if device is not None or out is not None:
            raise typer.BadParameter(_("--from stores a recording; it takes neither --device nor --out"))
        doc = _recording(from_file, workload)
    else:
        from gpuplan.cli._files import check_writable

        check_writable(out, what=_("recording"))  # before the steps are timed
        doc = _measure(workload, device, steps=steps, warmup=warmup, profiled=profiled, quiet=as_json)
        if out is not None:
            from gpuplan.cli._files import write_text_atomic

            write_text_atomic(out, doc.to_json(), what=_("recording"))
    stored = False
    if not no_store:
        _store(settings(ctx).db, doc, workload)
        stored = True
    if as_json:
        sys.stdout.write(doc.model_copy(update={"stored": stored}).to_json())
        return
    from gpuplan.report.measure import measure_view

    console().print(measure_view(doc))
    if stored:
        sys.stderr.write(_saved_line(doc, workload.name) + "\n")


def _saved_line(doc: MeasurementDocument, name: str) -> str:
    """What storing the recording changes: only a GPU gpuplan has a datasheet of anchors estimates."""
    if doc.device.kind == "cpu":
        return _(
            "saved to the database as a CPU recording: estimate shows it but never anchors a GPU "
            "estimate of {name} on it"
        ).format(name=name)
    if doc.device.gpu_id is None:
        from gpuplan.bounded import printable

        return _(
            "saved to the database; {device} is not in gpuplan's datasheet table, so estimate and plan "
            "of {name} are not anchored on it"
        ).format(device=printable(doc.device.name), name=name)
    return _("saved to the database: estimate and plan of {name} now anchor on it").format(name=name)


def _measure(
    workload: Workload, device: str | None, *, steps: int, warmup: int, profiled: int, quiet: bool
) -> MeasurementDocument:
    from gpuplan.cli._progress import spinner
    from gpuplan.machine.measure import MeasureProgress, MeasureSizes, run_measure

    sizes = MeasureSizes(warmup=warmup, steps=steps, profiled=profiled)
    with spinner(_("measuring {name}…").format(name=workload.name), quiet=quiet) as say:

        def on_progress(p: MeasureProgress) -> None:
            say(f"{workload.name}: {p.label} ({p.done}/{p.total})")

        return run_measure(workload, device=device, sizes=sizes, progress=on_progress)


def _recording(path: Path, workload: Workload) -> MeasurementDocument:
    """The recording in ``path`` (a file from anywhere), checked to be of ``workload``."""
    from gpuplan.bounded import read_text
    from gpuplan.errors import InputError
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.anchor import read_measurement
    from gpuplan.profile.key import is_recording_of, recording_key

    text = read_text(path, what=N_("measurement file"), max_bytes=_MAX_RECORDING_BYTES)
    doc, _m = read_measurement(text, source=str(path))
    # Its trace key under the torch it ran with and any Profile schema so far: a recording from a
    # machine with another torch, or made before a schema change, is still of this workload.
    # Made elsewhere: the same workload wherever its project lay (recording_key), or, for a file
    # from before recordings carried one, its trace key under the torch it ran with.
    same = doc.workload.recording_key is not None and doc.workload.recording_key == recording_key(workload)
    if not same and not is_recording_of(workload, doc.workload.profile_key, doc.device.torch_version):
        raise InputError.worded(
            N_(
                "{path} is a measurement of {measured!r} ({batch} per GPU, {precision}), not of this "
                "workload: its model, batch, precision, optimizer or stack differ; measure "
                "{workload} itself"
            ),
            path=path,
            measured=doc.workload.name,
            batch=doc.workload.batch_size,
            precision=doc.workload.precision,
            workload=workload.name,
        )
    said = (doc.workload.task, doc.workload.precision, doc.workload.batch_size)
    ours = (workload.task.value, workload.precision.value, workload.inputs.batch_size)
    if said != ours:
        # its key matched, its own description did not: one of the two was edited
        raise InputError.worded(
            N_(
                "{path} describes a {task} step in {precision} at batch {batch} per GPU; this workload "
                "is {our_task} in {our_precision} at batch {our_batch}: measure {workload} itself"
            ),
            path=path,
            task=doc.workload.task,
            precision=doc.workload.precision,
            batch=doc.workload.batch_size,
            our_task=workload.task.value,
            our_precision=workload.precision.value,
            our_batch=workload.inputs.batch_size,
            workload=workload.name,
        )
    if doc.device.gpu_id is not None:
        from gpuplan.errors import NotFoundError

        try:
            get_gpu(doc.device.gpu_id)
        except NotFoundError as e:  # a GPU this gpuplan has no datasheet of (a newer gpuplan's file)
            raise InputError.worded(
                N_("{path} was recorded on {gpu}, a GPU this gpuplan has no datasheet of: {why}"),
                path=path,
                gpu=doc.device.gpu_id,
                why=e,
            ) from e
    if doc.device.kind == "cpu" and doc.device.gpu_id is not None:
        raise InputError.worded(N_("{path}: a CPU recording cannot name a GPU"), path=path)
    return doc


def _store(db: str | None, doc: MeasurementDocument, workload: Workload) -> None:
    from gpuplan.catalog import StoredMeasurement, open_store
    from gpuplan.profile import measurement_key

    store = open_store(db, seed=False)
    try:
        store.local.add_step_measurement(
            StoredMeasurement(
                profile_key=doc.workload.profile_key,
                measurement_key=measurement_key(workload),
                workload_name=doc.workload.name,
                device=doc.device.kind,
                gpu_id=doc.device.gpu_id,
                device_name=doc.device.name,
                measured_at=doc.run.measured_at,
                schema_version=doc.schema_version,
                payload=doc.model_copy(update={"stored": True}).to_json(),
            )
        )
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("measure")(measure_cmd)
