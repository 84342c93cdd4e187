"""The GEMM shape parameters fitted on measured matmuls (calibration/gemm_fit.py, data/gemm_shapes.csv)."""

from __future__ import annotations

import math
import statistics
from functools import cache

import pytest

from gpuplan.calibration.gemm_fit import (
    GemmFit,
    GemmRow,
    fit_gemm,
    heldout_errors,
    load_gemm_rows,
    median_abs_pct,
    predict_s,
)
from gpuplan.errors import DataError
from gpuplan.perf.gemm import gemm_multiplier

ROWS = load_gemm_rows()
HEADER = "gpu,sm,dtype,b,m,n,k,flop_per_s,source,read"


@cache
def _h100_fit() -> GemmFit:
    return fit_gemm([r for r in ROWS if r.gpu == "H100-SXM"])


def _predict(f: GemmFit, row: GemmRow, per_call_us: float) -> float:
    return predict_s(
        row,
        132,
        f.rate("H100-SXM"),
        k_overhead=f.k_overhead,
        tile_overhead=f.tile_overhead,
        per_call_us=per_call_us,
    )


def test_the_table_has_375_bf16_shapes_per_gpu_each_with_its_source() -> None:
    assert len(ROWS) == 750
    for gpu in ("H100-SXM", "B200"):
        mine = [r for r in ROWS if r.gpu == gpu]
        assert len(mine) == 375
        assert len({(r.b, r.m, r.n, r.k) for r in mine}) == 375
    assert {r.dtype for r in ROWS} == {"bf16"}
    assert all(r.source.startswith("openxla/xla@71feeddf7cc3c9c7878eee18ea43c983631e6e84 ") for r in ROWS)


def test_no_measured_rate_exceeds_the_datasheet_peak() -> None:
    # A table of FMA/s read as FLOP/s (or sparse peaks) would break this: H100 SXM 989, B200 2,250 TFLOPS.
    from gpuplan.hardware import get_gpu

    for r in ROWS:
        peak = get_gpu(r.gpu).peak_tflops("bf16")
        assert peak is not None and r.flop_per_s < peak * 1e12


def test_the_h100_fit_reproduces_its_parameters_from_the_csv() -> None:
    f = _h100_fit()
    assert f.k_overhead == pytest.approx(164.1, abs=1.0)
    assert f.tile_overhead == pytest.approx(60.4, abs=1.0)
    assert f.per_call_us == pytest.approx(5.45, abs=0.05)
    assert f.rate("H100-SXM") / 1e12 == pytest.approx(869, abs=2)
    assert median_abs_pct(f.log_errors) < 5.0


def test_a_known_shape_costs_what_the_fit_says() -> None:
    # 4096³ on 132 SMs: 32 × 16 tiles of 256 × 128 are 512 tiles in 4 waves of 132 (528 slots),
    # each walking k = 4096 plus the 164-element fixed cost: (528/512) × (4260/4096) = 1.0725.
    f = _h100_fit()
    mult = gemm_multiplier(
        [(1, 1, 4096, 4096, 4096)], 132, k_overhead=f.k_overhead, tile_overhead=f.tile_overhead
    )
    assert mult == pytest.approx((528 / 512) * (4096 + f.k_overhead) / 4096, rel=1e-9)
    row = next(r for r in ROWS if r.gpu == "H100-SXM" and (r.b, r.m, r.n, r.k) == (1, 4096, 4096, 4096))
    t = _predict(f, row, f.per_call_us)
    assert t == pytest.approx(row.time_s, rel=0.03)  # measured 783 TFLOPS


def test_the_b200_held_out_is_predicted_within_ten_percent_and_the_prior_is_not() -> None:
    held = heldout_errors(ROWS, _h100_fit(), "B200")
    assert held is not None and len(held) == 375
    assert median_abs_pct(held) < 10.0
    prior = GemmFit(k_overhead=64.0, tile_overhead=32.0, per_call_us=0.0, rates=(), log_errors=())
    prior_errs = heldout_errors(ROWS, prior, "B200")
    assert prior_errs is not None and median_abs_pct(prior_errs) > 30.0


def test_small_gemms_need_the_per_call_time() -> None:
    # Without it the fitted model cannot reach the 256 × 256 × 256 GEMM's ~5 µs.
    f = _h100_fit()
    small = [r for r in ROWS if r.gpu == "H100-SXM" and r.flops < 1e8]

    def median_abs_log_error(per_call_us: float) -> float:
        return statistics.median(abs(math.log(_predict(f, r, per_call_us) / r.time_s)) for r in small)

    assert median_abs_log_error(f.per_call_us) < 0.1 < median_abs_log_error(0.0)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("H100-SXM,sm_90,bf16,1,256,256,256,0,src,2026-12-02", "flop_per_s"),
        ("H100-SXM,sm_90,bf16,1,256,256,256,1e12,,2026-12-02", "no source"),
        ("H100-SXM,sm_90,bf16,1,,256,256,1e12,src,2026-12-02", "is not a whole number"),
        ("H100-SXM,sm_90,bf16,1,256,256,256,,src,2026-12-02", "flop_per_s"),
        ("H100-SXM,sm_90,bf16,1,0,256,256,1e12,src,2026-12-02", "m must be 1 or more"),
        ("H100-SXM,sm_90,bf16,1,2.5,256,256,1e12,src,2026-12-02", "is not a whole number"),
        ("H10-SXN,sm_90,bf16,1,256,256,256,1e12,src,2026-12-02", "not in the hardware catalog"),
    ],
)
def test_a_bad_row_is_one_line_naming_the_file_and_line(line: str, says: str) -> None:
    with pytest.raises(DataError) as e:
        load_gemm_rows(f"{HEADER}\n{line}\n")
    assert "gemm_shapes.csv line 2" in str(e.value) and says in str(e.value)
    assert "\n" not in str(e.value)
