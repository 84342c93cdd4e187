"""A doctor's finding: what was seen, how bad it is, how to fix it."""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.vocab import Choice

__all__ = ["Finding", "Severity"]


class Severity(Choice):
    """How bad a finding is, in increasing order."""

    OK = "ok"
    """Checked and fine."""
    INFO = "info"
    """Worth knowing; nothing to fix, or expected on this kind of machine."""
    WARNING = "warning"
    """Jobs run, but slower or less safely than they could."""
    ERROR = "error"
    """Jobs fail, or their results cannot be trusted, until this is fixed."""

    @property
    def rank(self) -> int:
        """0 for ok … 3 for error, to sort and to compare with a threshold."""
        return list(Severity).index(self)


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One result of one check."""

    check: str
    """Id of the check that produced it (``cuda_compat``, ``pcie_link`` …): stable, for scripts."""
    severity: Severity
    message: str
    """What was found, one sentence."""
    fix: str | None = None
    """What to do about it; None when there is nothing to do."""
    gpu_index: int | None = None
    """The NVML index of the GPU it concerns; None for machine-wide findings."""
