"""On a real CUDA machine only: the probe sees the GPUs and the bench's figures are physically plausible.

Skipped without CUDA (the default suite runs on a CPU). Bounds are loose sanity limits, not timings:
a measurement above ~1.2x its datasheet peak means the arithmetic or the timing is wrong.
"""

from __future__ import annotations

import os

import pytest
import torch

from gpuplan.machine import Severity, diagnose, efficiency, probe_machine, run_bench

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]


def test_probe_sees_the_gpus_torch_sees() -> None:
    facts = probe_machine(dict(os.environ))
    assert facts.driver is not None, facts.nvml_error
    assert len(facts.driver.gpus) >= torch.cuda.device_count()
    assert facts.driver.cuda_driver_version is not None
    findings = diagnose(facts)
    assert next(f for f in findings if f.check == "torch_cuda").severity is Severity.OK


def test_quick_bench_is_below_the_datasheet_and_above_zero() -> None:
    report = run_bench(device="cuda", quick=True)
    assert report.device == "cuda"
    for r in report.results:
        assert r.value > 0
        eff = efficiency(r)
        if eff is not None:
            assert eff < 1.2, (r.metric, r.dtype, r.value, r.datasheet_value)
