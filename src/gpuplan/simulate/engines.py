"""The serving engines' scheduling defaults, as the simulation reads them: the table lives in
:mod:`gpuplan.perf.engines`, below the planner and the estimate, which cap a replica's sequences
at the same engine's ``max_num_seqs``."""

from __future__ import annotations

from gpuplan.perf.engines import ESTIMATOR_MEMORY_FRACTION, engine_defaults

__all__ = ["ESTIMATOR_MEMORY_FRACTION", "engine_defaults"]
