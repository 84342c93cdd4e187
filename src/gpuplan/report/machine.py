"""Render ``gpuplan doctor`` findings and ``gpuplan bench`` results: Rich tables and stable JSON.

JSON schemas (``schema_version`` 1; field names carry their units):

doctor::

    {"schema_version": 1, "summary": {"ok": n, "info": n, "warning": n, "error": n},
     "findings": [{"check", "severity", "message", "fix", "gpu_index"}],
     "facts": MachineFacts.to_dict()}

bench::

    {"schema_version": 1, "device", "device_name", "gpu_id", "host", "measured_at", "torch_version",
     "results": [{"metric", "dtype", "value", "unit", "datasheet_value", "efficiency", "details"}],
     "skipped": [{"metric", "dtype", "reason"}], "stored": bool}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import bracketed
from gpuplan.machine.bench import BenchReport, datasheet_note_text
from gpuplan.machine.facts import MachineFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.results import efficiency

__all__ = ["bench_json", "bench_table", "doctor_json", "doctor_table"]

JSON_SCHEMA_VERSION = 1

_STYLE = {Severity.OK: "green", Severity.INFO: "cyan", Severity.WARNING: "yellow", Severity.ERROR: "bold red"}
#: Severity names for people (the JSON keeps the codes).
_SEVERITY_NAMES = {
    Severity.OK: N_("ok"),
    Severity.INFO: N_("info"),
    Severity.WARNING: N_("warning"),
    Severity.ERROR: N_("error"),
}


def doctor_json(facts: MachineFacts, findings: Sequence[Finding]) -> dict[str, Any]:
    """The doctor's ``--json`` document."""
    counts = Counter(f.severity for f in findings)
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "summary": {s.value: counts.get(s, 0) for s in Severity},
        "findings": [
            {
                "check": f.check,
                "severity": f.severity.value,
                "message": f.message,
                "fix": f.fix,
                "gpu_index": f.gpu_index,
            }
            for f in findings
        ],
        "facts": facts.to_dict(),
    }


def doctor_table(findings: Sequence[Finding]) -> Table:
    """One row per finding: severity, what was found, how to fix it."""
    table = Table(title="gpuplan doctor", show_lines=False, expand=False)
    table.add_column("", no_wrap=True)
    table.add_column(_("check"), no_wrap=True)
    # Long tokens (a platform string, a path) fold rather than end in "…".
    table.add_column(_("finding"), overflow="fold")
    table.add_column(_("fix"), overflow="fold")
    for f in findings:
        severity = Text(_(_SEVERITY_NAMES[f.severity]), style=_STYLE[f.severity])
        table.add_row(severity, f.check, f.message, f.fix or "")
    counts = Counter(f.severity for f in findings)
    table.caption = _(", ").join(
        _("{n} {severity}").format(n=counts.get(s, 0), severity=_(_SEVERITY_NAMES[s])) for s in Severity
    )
    return table


def bench_json(report: BenchReport, *, stored: bool) -> dict[str, Any]:
    """The bench's ``--json`` document."""
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "device": report.device,
        "device_name": report.device_name,
        "gpu_id": report.gpu_id,
        "host": report.host,
        "measured_at": report.measured_at,
        "torch_version": report.torch_version,
        "results": [
            {
                "metric": r.metric,
                "dtype": r.dtype,
                "value": r.value,
                "unit": r.unit,
                "datasheet_value": r.datasheet_value,
                "efficiency": efficiency(r),
                "details": r.details,
            }
            for r in report.results
        ],
        "skipped": [{"metric": s.metric, "dtype": s.dtype, "reason": s.reason} for s in report.skipped],
        "stored": stored,
    }


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    text = f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{text} {unit}".strip()


#: What each measurement is, as the table names it (the JSON keeps the metric's id).
_METRIC_NAMES = {
    "matmul_tflops": N_("matmul"),
    "memory_bandwidth_gbps": N_("memory bandwidth"),
    "h2d_gbps": N_("copy host → GPU"),
    "d2h_gbps": N_("copy GPU → host"),
    "train_step_s": N_("training step"),
    "allreduce_busbw_gbps": N_("all-reduce"),
}


def _metric_name(metric: str) -> str:
    return _(_METRIC_NAMES[metric]) if metric in _METRIC_NAMES else metric


def _copy_note(details: dict[str, object]) -> str:
    """The memory bandwidth's buffer, and the last-level cache it is sized against where known."""
    mib = f"{int(details['bytes']) / 2**20:,.0f}"  # type: ignore[call-overload]
    llc = details.get("last_level_cache_bytes")
    if isinstance(llc, int):
        return _("copy of {mib} MiB (last-level cache {llc} MiB)").format(mib=mib, llc=f"{llc / 2**20:,.0f}")
    return _("copy of {mib} MiB").format(mib=mib)


def bench_table(report: BenchReport) -> Table:
    """Measured vs datasheet, one row per result; the skipped measurements and why in the caption."""
    title = f"gpuplan bench — {report.device_name}"
    if report.gpu_id:
        title = bracketed(title, _("datasheet {gpu}").format(gpu=report.gpu_id))
    table = Table(title=title)
    table.add_column(_("metric"), no_wrap=True)
    table.add_column("dtype", no_wrap=True)
    table.add_column(_("measured"), justify="right", no_wrap=True)
    table.add_column(_("datasheet"), justify="right", no_wrap=True)
    table.add_column(_("eff."), justify="right", no_wrap=True)
    table.add_column(_("note"))
    notes: set[str] = set()
    for r in report.results:
        eff = efficiency(r)
        note = ""
        if r.metric == "train_step_s":
            note = _("{rate} samples/s, batch {batch}").format(
                rate=_fmt(r.details.get("samples_per_s")), batch=r.details.get("batch")
            )
        elif r.metric == "memory_bandwidth_gbps" and isinstance(r.details.get("bytes"), int):
            note = _copy_note(r.details)
        if r.metric != "train_step_s" and r.datasheet_value is None and r.details.get("datasheet_note"):
            notes.add(str(r.details["datasheet_note"]))
        table.add_row(
            _metric_name(r.metric),
            r.dtype or "",
            _fmt(r.value, r.unit),
            _fmt(r.datasheet_value, r.unit if r.datasheet_value is not None else ""),
            "—" if eff is None else f"{eff:.0%}",
            note,
        )
    caption = [
        _("no datasheet: {note}").format(note=datasheet_note_text(n, report.device_name))
        for n in sorted(notes)
    ]
    caption += [
        _("skipped {metric}: {reason}").format(
            metric=_metric_name(s.metric) + (f" ({s.dtype})" if s.dtype else ""), reason=s.reason
        )
        for s in report.skipped
    ]
    table.caption = "\n".join(caption) or None
    table.caption_justify = "left"
    return table
