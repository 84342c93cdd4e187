"""Render a ``gpuplan measure`` recording on a terminal (the JSON is the recording itself)."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from gpuplan.bounded import printable
from gpuplan.documents.measure import OP_CLASSES, MeasurementDocument
from gpuplan.i18n import _
from gpuplan.perf.anchor import class_name

__all__ = ["SHOWN_CHARS", "measure_view"]


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
