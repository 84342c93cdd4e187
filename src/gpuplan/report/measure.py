"""Render a ``gpuplan measure`` recording on a terminal (the JSON is the recording itself), and the
stored recordings (``gpuplan catalog recordings list``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from gpuplan.bounded import printable
from gpuplan.documents.measure import OP_CLASSES, MeasurementDocument
from gpuplan.i18n import _
from gpuplan.perf.anchor import class_name

if TYPE_CHECKING:
    from gpuplan.catalog.model import StoredMeasurement
    from gpuplan.documents.measure import RecordingsDocument

__all__ = ["SHOWN_CHARS", "measure_view", "recordings_json", "recordings_view"]


def _ms(s: float) -> str:
    return _("{n} ms").format(n=f"{s * 1e3:.4g}")


#: Characters of a recording's text field (a note, how memory was read, a device name) shown on a
#: terminal: the recording may come from anywhere, and gpuplan's own notes are under 200.
SHOWN_CHARS = 300


def _shown(text: str) -> str:
    """A text field of the recording on one line of the terminal: control characters escaped (an
    ESC sequence in a file from elsewhere would recolour or retitle the terminal), cut to
    :data:`SHOWN_CHARS` (a 1 MB note was printed whole)."""
    return printable(text[:SHOWN_CHARS]) + ("…" if len(text) > SHOWN_CHARS else "")


def _step(s: float | None) -> str:
    """A step time in ms below 10 s, in s from there (a CPU step of 21 s is not 2.128e+04 ms)."""
    if s is None:
        return "—"
    return _ms(s) if s < 10 else _("{n} s").format(n=f"{s:.4g}")


def _gib(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def measure_view(doc: MeasurementDocument) -> Group:
    """The step time, its kernel split by op class and the peak memory."""
    w, d, t, k, m = doc.workload, doc.device, doc.step_time, doc.kernel_time_s, doc.memory
    batch = (
        _("batch {b} × {s} tokens").format(b=w.batch_size, s=w.seq_len)
        if w.seq_len
        else _("batch {b}").format(b=w.batch_size)
    )
    where = _shown(d.gpu_id or d.name)
    label = _("CPU recording") if d.kind == "cpu" else _("GPU")
    head = Text.assemble(
        (_shown(w.name), "bold"),
        ": "
        + _("{task}, {precision}, {batch} on {where} ({label}), {when}").format(
            task=w.task,
            precision=_shown(w.precision),
            batch=batch,
            where=where,
            label=label,
            when=_shown(doc.run.measured_at),
        ),
    )
    step = Text(
        _("step {median} (fastest {low}, slowest {high}; {n} timed after {warmup} warm-up steps)").format(
            median=_ms(t.median_s),
            low=_ms(t.low_s),
            high=_ms(t.high_s),
            n=doc.run.timed_steps,
            warmup=doc.run.warmup_steps,
        )
    )
    table = Table(
        title=Text(
            _("Kernel time per step by op class")
            if d.kind == "cuda"
            else _("Operator time per step by op class (CPU)")
        ),
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column(_("op class"))
    table.add_column(_("time"), justify="right")
    table.add_column(_("share"), justify="right")
    idle = max(0.0, t.median_s - k.busy_s)
    # Shares of the larger of the step and the kernel sum: profiled steps run a little slower than
    # timed ones, and kernels on several streams overlap.
    whole = max(t.median_s, k.busy_s)
    for c in OP_CLASSES:
        s = float(getattr(k, c))
        table.add_row(class_name(c), _ms(s), f"{100 * s / whole:.1f} %")
    table.add_row(_("not in kernels (CPU)"), _ms(idle), f"{100 * idle / whole:.1f} %")
    memory = Text(
        _("peak memory (GiB): allocated {allocated}, reserved {reserved}, nvidia-smi {smi}").format(
            allocated=_gib(m.peak_allocated_gib),
            reserved=_gib(m.peak_reserved_gib),
            smi=_gib(m.nvidia_smi_gib),
        )
    )
    notes = [Text("· " + _shown(n), style="dim") for n in (*m.how, *doc.notes)]
    return Group(head, step, table, memory, *notes)


def recordings_json(stored: Sequence[StoredMeasurement]) -> RecordingsDocument:
    """The ``catalog recordings list --json`` document: each stored recording's id, what and where it
    measured, its step and its memory."""
    from gpuplan.documents.measure import RecordingItem, RecordingsDocument
    from gpuplan.errors import DataError
    from gpuplan.perf.anchor import read_measurement

    items = []
    for s in stored:
        step = smi = reserved = problem = None
        try:
            _doc, m = read_measurement(s.payload, source=_("the stored measurement"), error=DataError)
            step, smi, reserved = m.step_time_s, m.nvidia_smi_gib, m.peak_reserved_gib
        except DataError as e:
            problem = str(e)
        items.append(
            RecordingItem(
                id=s.id or 0,
                workload=s.workload_name,
                device=s.device,
                gpu_id=s.gpu_id,
                device_name=s.device_name,
                measured_at=s.measured_at,
                step_time_s=step,
                nvidia_smi_gib=smi,
                peak_reserved_gib=reserved,
                problem=problem,
            )
        )
    return RecordingsDocument(recordings=items)


def recordings_view(doc: RecordingsDocument) -> Table | Text:
    """The stored recordings as a table (oldest first), or the line that says there are none."""
    from gpuplan.report.common import house_table

    if not doc.recordings:
        return Text(_("no recordings stored (gpuplan measure WORKLOAD stores one)"))
    table = house_table()
    table.add_column(_("id"), justify="right", no_wrap=True)
    table.add_column(_("workload"), overflow="fold")
    table.add_column("GPU", overflow="fold")
    table.add_column(_("measured at"), no_wrap=True)
    table.add_column(_("step time"), justify="right", no_wrap=True)
    table.add_column(_("nvidia-smi (GiB)"), justify="right", no_wrap=True)
    table.add_column(_("reserved (GiB)"), justify="right", no_wrap=True)
    for r in doc.recordings:
        device = r.gpu_id or (_("CPU: {name}") if r.device == "cpu" else "{name}").format(name=r.device_name)
        step = _("unreadable") if r.problem is not None else _step(r.step_time_s)
        table.add_row(
            str(r.id),
            _shown(r.workload),
            _shown(device),
            r.measured_at,
            step,
            _gib(r.nvidia_smi_gib),
            _gib(r.peak_reserved_gib),
        )
    return table
