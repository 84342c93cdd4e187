"""The few fitted parameters of the performance model, and where they come from.

The parameters are physical: the fraction of a datasheet peak that real kernels reach, and the
smallest time one kernel call takes. ``benchmarks/calibrate.py`` fits them offline
(:mod:`gpuplan.calibration`, on the published measurements in ``calibration/data/``) and writes
``perf/calibration.json`` (with the fit date, the data's hash and each row's residual).
:func:`load_calibration` reads that file — the only thing the run-time estimator takes from the
fit; without it, :data:`PRIOR` (literature values) is used.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from functools import cache, lru_cache
from importlib import resources

from gpuplan.errors import DataError, GpuplanError
from gpuplan.i18n import N_
from gpuplan.perf.measured import BenchMeasurement, MeasuredGPU, measured_gpus

__all__ = ["PRIOR", "Calibration", "CalibrationRow", "load_calibration"]


@dataclass(frozen=True, kw_only=True)
class CalibrationRow:
    """One published measurement and what the model predicted for it at fit time."""

    label: str
    gpu: str
    metric: str
    published: float
    predicted: float
    used_in_fit: bool = True
    publisher: str = ""
    """Who published the figure (the group of leave-one-publisher-out); empty in a file fitted
    before the held-out residuals were stored."""
    architecture: str = ""
    """The GPU's architecture (the group of leave-one-architecture-out); empty as above."""
    lopo_log_error: float | None = None
    """ln(predicted / published) by the fit on every other publisher's rows: what the band is
    built on. None for a row not fitted, or in a file fitted before these were stored."""
    loao_log_error: float | None = None
    """ln(predicted / published) by the fit on every other architecture's rows (the unseen-
    architecture band); None as above."""

    @property
    def log_error(self) -> float:
        """ln(predicted / published): the quantity the fit minimises (symmetric in over/under)."""
        return math.log(self.predicted / self.published)

    @property
    def error_pct(self) -> float:
        return 100.0 * (self.predicted / self.published - 1.0)


@dataclass(frozen=True, kw_only=True)
class Calibration:
    """Efficiencies against datasheet peaks, fitted on measured runs (published ones, and steps
    ``gpuplan measure`` timed on a real GPU: ``calibration/recorded_cases.py``)."""

    tensor_matmul_efficiency: float
    """Fraction of the dense tensor-core peak (TF32/FP16/BF16/FP8) reached by matmul and attention."""
    tensor_conv_efficiency: float
    """Fraction of the dense tensor-core peak reached by cuDNN convolutions (forward and backward)."""
    vector_efficiency: float
    """Fraction of the non-tensor FP32 peak reached by FP32 matmuls/convs (no TF32)."""
    bandwidth_efficiency: float
    """Fraction of the datasheet memory bandwidth reached by bandwidth-bound kernels."""
    min_kernel_time_us: float
    """Smallest GPU time of one kernel (launch gap between back-to-back kernels), microseconds."""
    tf32_factor: float = 1.0
    """Multiplier on the tensor-core efficiencies for TF32 kernels: their operands are twice as
    wide per FLOP as FP16's, so the same tiles need twice the shared-memory and L2 traffic."""
    fp8_factor: float = 1.0
    """Multiplier on the tensor-core efficiencies for FP8 GEMMs: their datasheet peak is twice
    FP16's, but the same-size tiles finish in half the time, so fixed costs (epilogues, scaling)
    weigh twice, and (without :attr:`fp8_casts`) so do the casts of Transformer Engine or torchao
    float8; fitted on the fp8 rows. With :attr:`matmul_fractions` the GPU's measured FP8 matmul
    fraction applies before this factor."""
    tensor_tail_gflop_per_call: float = 0.0
    """Work, GFLOP, that each matmul/attention call wastes beyond its own FLOPs: its last wave of
    output tiles leaves SMs idle (wave quantization) — half a wave on average, ~1.8 GFLOP for
    128×128 tiles with K = 1024 on a 108-SM A100. Used only for a record traced without its shapes
    (profiles older than schema 5); with shapes, ``perf/gemm.py`` costs the tiles and waves."""
    gemm_shapes: bool = False
    """Whether matmul and attention records are costed by their traced shapes (``perf/gemm.py``)
    rather than the per-call tail. Off in the prior. Fitted with shapes and the three shape
    parameters free on the training rows (``benchmarks/calibrate.py --shapes``), two of them sat at
    their bounds and the ablation found that fitting none of the three improves the grouped figure
    (``benchmarks/results/calibration_shapes.txt``); with ``--shapes --gemm-fit`` the GEMM parameters
    and :attr:`gemm_call_us` are fitted on measured GEMMs instead and held (``calibration/gemm_fit.py``),
    which on 2026-12-02 gave a leave-one-publisher-out median of 9.7 % and leave-one-architecture-out
    of 11.7 %, against 9.9 % and 12.5 % without shapes."""
    gemm_k_overhead: float = 64.0
    """Fixed cost of one GEMM thread-block tile (filling its load pipeline, writing its output), in
    elements of ``k`` (``perf/gemm.py``): what makes a small-``k`` GEMM less efficient. Prior: two
    32-deep k-blocks, the fill of a 3-stage mainloop (CUTLASS's Ampere default
    ``ThreadblockShape<128, 128, 32>`` with 3 stages; ASSUMPTION until fitted). With
    ``benchmarks/calibrate.py --gemm-fit`` it is fitted on measured GEMMs (``calibration/gemm_fit.py``)."""
    gemm_tile_overhead: float = 32.0
    """Operand traffic of a GEMM tile in units of its FLOPs (``perf/gemm.tile_rate``): the larger,
    the slower the small tiles a narrow layer gets. Prior 32: a 64 × 64 tile at 0.69 of a 256 × 128
    one (ASSUMPTION until fitted; the guide ranks 64 × 64 the least efficient without a figure). With
    ``--gemm-fit``, fitted on measured GEMMs as :attr:`gemm_k_overhead`."""
    gemm_call_us: float = 0.0
    """Fixed GPU time of one matmul call beyond its shape-costed FLOPs (launch ramp, epilogue),
    microseconds; with :attr:`gemm_shapes` only. Fitted with :attr:`gemm_k_overhead` and
    :attr:`gemm_tile_overhead` on measured GEMMs (``calibration/gemm_fit.py``), not on training rows;
    0 in the prior."""
    attention_head_overhead: float = 32.0
    """A fused attention block's softmax work in head-dimension columns (``perf/gemm.py``): a head
    of ``d`` runs at ``d / (d + this)`` of a large GEMM's rate before waves. Prior 32: head 64 at
    0.89 of head 128 (ASSUMPTION: no per-shape attention measurement is read; FlashAttention-2's
    Figs. 4–6 rank 64 below 128). With the shipped fit a head of 128 runs at 0.8 × 0.857 × 0.869 ≈
    0.60 of an A100's peak, inside the 50–73 % FlashAttention-2 reports on an A100 (Dao 2023,
    arXiv:2307.08691, abstract); fitted freely on the training rows it came out 141, i.e. 0.38 of
    peak, below that range, and the long-sequence rows of that paper then lost the gain their
    causal kernel shows, so it is held at the prior."""
    host_overhead_us: float = 0.0
    """CPU time eager PyTorch spends issuing one op (Python, dispatcher, launch), microseconds. A
    step is host-bound when its ops issue slower than the GPU runs them (small batches, decode)."""
    attention_factor: float = 1.0
    """Multiplier on the matmul efficiency for fused attention kernels (FlashAttention reaches a
    smaller share of the peak than a large GEMM)."""
    matmul_fractions: bool = False
    """Whether the tensor-core efficiencies are fractions of each GPU's measured achievable matmul
    rate (``gpus.csv`` ``matmul_fraction``: its datasheet peak × the largest share of it a matmul
    was measured to reach) rather than of its datasheet peak. The faster GPUs reach less of their
    datasheet (A100 SXM 86.9 %, H100 SXM 80.3 %, B200 77.6 %): with the measured fraction, a GPU
    the fit never saw is costed from that fact about it, not from another architecture's fitted
    factor. An unmeasured GPU takes the lowest measured fraction of its vendor's parts of its
    architecture (``hardware.achievable_matmul_fraction``)."""
    fp8_casts: bool = False
    """Whether an FP8 GEMM also pays for casting its operands to FP8, kernels of their own costed by
    their bytes (``perf/roofline.py``); without it :attr:`fp8_factor` carries them."""
    arch_factors: tuple[tuple[str, float], ...] = ()
    """(GPU architecture, multiplier on the tensor-core efficiencies): fitted where an architecture
    has ≥ 3 rows and pulled toward 1 (the global value) by a prior; absent → 1."""
    elementwise_fractions: tuple[tuple[str, float], ...] = ()
    """(GPU id, fraction of its datasheet memory bandwidth PyTorch's own bandwidth-bound kernels —
    elementwise, normalisation, reductions, the optimizer's foreach updates — reached in eager
    steps ``gpuplan measure`` timed on it): measured, not fitted (``calibration/recorded_cases.py``).
    On the GPUs listed those ops of an eager step are costed at it instead of
    :attr:`bandwidth_efficiency`, which a copy reaches on every GPU but eager kernels need not: on
    one H200 they moved 2.2–3.2 TB/s of the 4.8 TB/s datasheet where a copy moved 4.2. Other kernels
    (cuBLAS, cuDNN and their layout transposes, fused and custom kernels) and a compiled step's
    (:meth:`for_compiled`) keep the fitted efficiency."""
    nchw_norm_fractions: tuple[tuple[str, float], ...] = ()
    """(GPU id, fraction of its datasheet memory bandwidth batch norm in training over NCHW
    activations reached in eager steps ``gpuplan measure`` timed on it, counting each element at 4
    bytes whatever its dtype): measured, not fitted (``calibration/recorded_cases.py``). Those ops
    (``profile.model.NCHW_NORM_SUFFIX``) are costed at it where it is slower than
    :meth:`elementwise_efficiency`: on one H200 they moved 0.15 of its bandwidth in 16-bit and
    0.35 in fp32 — about the same elements a second, each channel reduced over strided memory —
    where the same networks' ``channels_last`` batch norms ran with the other elementwise ops.
    A GPU takes it by the rules of :meth:`elementwise_efficiency`; none applies: no other rate."""
    misaligned_gemm_rates: tuple[tuple[str, float], ...] = ()
    """(GPU id, rate of a tensor-core GEMM whose leading dimensions are not 16-byte aligned over an
    aligned one's) measured in steps ``gpuplan measure`` timed on it: measured, not fitted
    (``calibration/recorded_cases.py``). Every part of the GPU's architecture takes it; the others
    take ``perf/gemm.misaligned_rate``'s (:meth:`misaligned_rate`)."""
    compile_speedup: float = 1.3
    """Step-time divisor of ``compile: true``: the PyTorch 2.0 announcement (pytorch.org/get-started/
    pytorch-2.0, 2022-12-02) measured torch.compile 1.3–1.5× faster (AMP, A100) on 163 open-source
    models; frozen at 1.3 while fewer than 3 calibration rows run compiled."""
    overlap_cost: float = 0.0
    """Share of a collective's time that still lengthens the step while compute "hides" it: NCCL's
    kernels take SMs and memory bandwidth from the compute kernels they overlap with, so overlap is
    not free. 0 is perfect overlap (the FSDP and DDP designs' premise, and the prior); fitted on the
    multi-GPU rows."""
    time_band: float = 1.15
    """Multiplicative band on step time from the calibration residuals (exp of the 90th percentile
    of |ln(predicted/published)|); used only when no held-out half-width is recorded."""
    time_log_halfwidth: float | None = None
    """Split-conformal half-width of the 80 % interval on ln(step time) for a publisher (software
    stack) the fit never saw: from the leave-one-publisher-out residuals, at the level whose
    left-out publishers are ≥ 80 % inside (``calibration/crossval.grouped_band``). None for the
    prior (then :attr:`time_band` and the software spread are used)."""
    time_log_halfwidth_thin: float | None = None
    """The same from leave-one-architecture-out residuals grouped by architecture: for a GPU
    architecture or model family with no calibration rows (wider: nothing of it was ever fitted)."""
    seen_architectures: tuple[str, ...] = ()
    seen_families: tuple[str, ...] = ()
    heldout: tuple[tuple[str, float], ...] = ()
    """Held-out figures of the fit (name, value): k-fold median and worst |error| %, band
    coverage, row counts — what ``gpuplan estimate --json`` reports as the calibration's accuracy."""
    memory_band: float = 1.10
    """Multiplicative band on the traced peak from the memory rows' residuals."""
    fitted_on: str = ""
    """Fit date (ISO), or empty for the prior."""
    data_sha256: str = ""
    """SHA-256 of the calibration CSV the fit read."""
    source: str = "prior"
    rows: tuple[CalibrationRow, ...] = field(default_factory=tuple)
    measured: tuple[MeasuredGPU, ...] = field(default_factory=tuple)
    """Bench results per GPU (:meth:`with_measurements`); applied by :meth:`for_gpu`."""
    matmul_caps: tuple[tuple[str, float], ...] = field(default_factory=tuple)
    """(dtype path, ceiling) on the tensor/FP32 efficiencies of the one GPU being estimated — its
    measured matmul fraction; set by :meth:`for_gpu`, empty otherwise."""

    def __post_init__(self) -> None:
        for name in (
            "tensor_matmul_efficiency",
            "tensor_conv_efficiency",
            "vector_efficiency",
            "bandwidth_efficiency",
            "tf32_factor",
            "fp8_factor",
        ):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise DataError.worded(
                    N_("calibration {name}={value} is outside (0, 1]; refit or fix calibration.json"),
                    name=name,
                    value=value,
                )
        if (
            self.tensor_tail_gflop_per_call < 0
            or self.min_kernel_time_us < 0
            or self.host_overhead_us < 0
            or min(self.gemm_k_overhead, self.gemm_tile_overhead, self.attention_head_overhead) < 0
            or self.gemm_call_us < 0
            or self.time_band < 1.0
            or self.memory_band < 1.0
            or self.attention_factor <= 0
            or self.compile_speedup <= 0
            or not 0.0 <= self.overlap_cost <= 1.0
            or any(f <= 0 for _, f in self.arch_factors)
            or any(not 0.0 < f <= 1.0 for _, f in self._measured_rates())
        ):
            raise DataError.worded(
                N_("calibration kernel time and tail must be >= 0 and bands >= 1; refit calibration.json")
            )

    def compute_efficiency(self, path: str, op_class: str) -> float:
        """Efficiency for one dtype path (``fp32`` = non-tensor) and op class."""
        if path == "fp32":
            eff = self.vector_efficiency
        else:
            eff = self.tensor_conv_efficiency if op_class == "conv" else self.tensor_matmul_efficiency
            eff = eff * self.tf32_factor if path == "tf32" else eff
            eff = eff * self.fp8_factor if path == "fp8" else eff
            eff = min(1.0, eff * self.attention_factor) if op_class == "attention" else eff
        return self.capped(path, eff)

    def capped(self, path: str, efficiency: float) -> float:
        """``efficiency`` limited by the measured matmul fraction of ``path``, if one applies."""
        cap = dict(self.matmul_caps).get(path)
        return min(efficiency, cap) if cap is not None else efficiency

    def with_measurements(self, results: Iterable[BenchMeasurement]) -> Calibration:
        """This calibration plus ``gpuplan bench`` results (``BenchResult``-shaped rows).

        A GPU measured again replaces its earlier entry; other GPUs keep theirs. Nothing changes
        until an estimate for a measured GPU calls :meth:`for_gpu`.
        """
        new = {m.gpu_id: m for m in measured_gpus(results)}
        kept = tuple(m for m in self.measured if m.gpu_id not in new)
        return replace(self, measured=kept + tuple(new[k] for k in sorted(new)))

    def measurement(self, gpu_id: str) -> MeasuredGPU | None:
        """The bench result for ``gpu_id``, if one was added."""
        return next((m for m in self.measured if m.gpu_id == gpu_id), None)

    def elementwise_efficiency(self, gpu_id: str) -> float:
        """Fraction of ``gpu_id``'s datasheet bandwidth PyTorch's own bandwidth-bound kernels reach.

        - The GPU, or another part of its chip (architecture, memory type and SM count alike: the
          H200 NVL for the H200 SXM, a lower power cap on the same memory system), is in
          :attr:`elementwise_fractions`: the measured share.
        - A GPU of its architecture is: :attr:`bandwidth_efficiency`, but no more than the measured
          part's rate in bytes/s — the same SMs keep as many loads in flight, so an unmeasured
          sibling is not costed at a rate its measured sibling fell short of (H100 SXM: 2.73 TB/s of
          the H200's 4.8 × 0.568, 0.81 of its 3.35 where the fit says 0.91).
        - An architecture without calibration rows (Blackwell, CDNA 3): the lowest measured share,
          where below :attr:`bandwidth_efficiency` — nothing says its eager kernels do better than
          the measured one's, and costing them at the fitted rate would rank it ahead for the lack
          of a measurement.
        - Else :attr:`bandwidth_efficiency`.
        """
        share = self._measured_share(gpu_id, self.elementwise_fractions)
        return self.bandwidth_efficiency if share is None else share

    def nchw_norm_efficiency(self, gpu_id: str) -> float | None:
        """Fraction of ``gpu_id``'s datasheet bandwidth, its elements counted at 4 bytes, batch norm
        in training over NCHW activations reaches (:attr:`nchw_norm_fractions`), by the rules of
        :meth:`elementwise_efficiency` but one: an architecture without rows is held to the measured
        rate in bytes/s, as a sibling is, not given the measured share of its own bandwidth — those
        kernels ran at the same elements a second in 16-bit and fp32, bound by the SMs rather than
        the bandwidth, so more bandwidth is no evidence of a faster norm (a B200: 0.20 of its 7.7 TB/s,
        not 0.315). None where no rule applies (an architecture whose published rows the fit saw: its
        fitted :attr:`bandwidth_efficiency` covers them with the other ops)."""
        return self._measured_share(gpu_id, self.nchw_norm_fractions, unseen_at_rate=True)

    def _measured_share(
        self, gpu_id: str, table: tuple[tuple[str, float], ...], *, unseen_at_rate: bool = False
    ) -> float | None:
        """A share measured on the GPUs of ``table`` as ``gpu_id`` takes it: its chip's, a sibling's
        rate in bytes/s, or an unseen architecture's lowest share (with ``unseen_at_rate``, its rate
        in bytes/s) — none above :attr:`bandwidth_efficiency` but its own chip's."""
        if not table:
            return None
        found = _elementwise_source(gpu_id, table, self.seen_architectures)
        if found is None:
            return None
        source, how = found
        share = dict(table)[source]
        if how == "chip":
            return share
        if how == "unseen" and not unseen_at_rate:
            return min(self.bandwidth_efficiency, share)
        from gpuplan.hardware import get_gpu

        rate = share * get_gpu(source).memory_bandwidth_gbps
        return min(self.bandwidth_efficiency, rate / get_gpu(gpu_id).memory_bandwidth_gbps)

    def elementwise_measured_on(self, gpu_id: str, *, nchw_norms: bool = False) -> str | None:
        """The GPU of :attr:`elementwise_fractions` (with ``nchw_norms``, of
        :attr:`nchw_norm_fractions`) that :meth:`elementwise_efficiency` (:meth:`nchw_norm_efficiency`)
        takes ``gpu_id``'s figure from (itself, a part of its chip, the measured part of its
        architecture with the lowest rate in bytes/s, or for an architecture without rows the part
        with the lowest share); None: the fitted :attr:`bandwidth_efficiency` applies."""
        table = self.nchw_norm_fractions if nchw_norms else self.elementwise_fractions
        found = _elementwise_source(gpu_id, table, self.seen_architectures) if table else None
        return found[0] if found else None

    def _measured_rates(self) -> tuple[tuple[str, float], ...]:
        """Every measured share and rate (each a fraction in (0, 1])."""
        return (*self.elementwise_fractions, *self.nchw_norm_fractions, *self.misaligned_gemm_rates)

    def misaligned_rate(self, architecture: str) -> float:
        """The rate a misaligned tensor-core GEMM runs at on ``architecture`` over an aligned one's:
        :attr:`misaligned_gemm_rates` where a part of it was measured, else ``perf/gemm.py``'s. A
        compiled step too: Inductor pads a misaligned matmul only where its own benchmark finds the
        padded one faster (``torch/_inductor/fx_passes/pad_mm.py``), and on an A100 (PyTorch 2.6)
        padding GPT-2's vocabulary still made a compiled step 14 % faster."""
        return _misaligned_source(architecture, self.misaligned_gemm_rates)[0]

    def misaligned_measured_on(self, architecture: str) -> tuple[str, bool] | None:
        """(the GPU of :attr:`misaligned_gemm_rates` whose rate :meth:`misaligned_rate` takes for
        ``architecture``, whether it is of that architecture); None: ``perf/gemm.py``'s published
        rate applies."""
        _rate, gpu_id, own = _misaligned_source(architecture, self.misaligned_gemm_rates)
        return None if gpu_id is None else (gpu_id, own)

    def for_compiled(self, compiled: bool) -> Calibration:
        """This calibration for a step run under ``torch.compile`` (``compiled``) or eagerly: compiled,
        Inductor generates its own kernels in place of PyTorch's elementwise ones, whose measured
        shares (:attr:`elementwise_fractions`, :attr:`nchw_norm_fractions`) then do not apply."""
        if not compiled or not (self.elementwise_fractions or self.nchw_norm_fractions):
            return self
        return replace(self, elementwise_fractions=(), nchw_norm_fractions=())

    def arch_factor(self, architecture: str) -> float:
        """The fitted factor of ``architecture``; for one without calibration rows, the lowest fitted
        factor of any architecture (1 when none is fitted).

        An unseen architecture is not taken at full efficiency: the fit finds the newest, fastest
        tensor cores the hardest to keep busy in eager PyTorch (Hopper's factor is the lowest), and a
        GPU with no rows — a newer generation (Blackwell), another vendor's stack (CDNA 3) — has no
        evidence of doing better. Unknown is costed at its conservative bound, never the best case.
        """
        fitted = dict(self.arch_factors)
        if architecture in fitted:
            return fitted[architecture]
        return min(fitted.values(), default=1.0)

    def time_log_halfwidth_for(self, architecture: str, family: str) -> float | None:
        """The 80 % half-width on ln(step time) for this GPU architecture and model family: the
        thin-data one when either was never in the calibration data."""
        if self.time_log_halfwidth is None:
            return None
        seen = architecture in self.seen_architectures and (
            not self.seen_families or family in self.seen_families
        )
        if not seen and self.time_log_halfwidth_thin is not None:
            return max(self.time_log_halfwidth, self.time_log_halfwidth_thin)
        return self.time_log_halfwidth

    def for_gpu(self, gpu_id: str, architecture: str | None = None) -> Calibration:
        """The calibration to estimate ``gpu_id`` with: its architecture's factor and (with
        :attr:`matmul_fractions`) its achievable matmul fraction on the tensor-core efficiencies —
        this unit's own ``gpuplan bench`` matmul where one ran, else the published measurement of
        the model — and its ``gpuplan bench`` fractions capping the fitted matmul efficiency per
        dtype and the bandwidth efficiency (see ``perf/measured.py`` for why, without
        :attr:`matmul_fractions`, a bare GEMM's fraction is a ceiling, not a replacement). The
        result has both applied: asked again, it changes nothing more."""
        cal = self
        f = self.arch_factor(architecture) if architecture else 1.0
        fp8 = 1.0
        if self.matmul_fractions:
            from gpuplan.hardware import achievable_matmul_fraction, get_gpu

            gpu = get_gpu(gpu_id)
            # This unit's own `gpuplan bench` matmul, where it ran one, is a better fact about it
            # than the published measurement of another unit of the model (its clocks, its power
            # cap, its driver): it takes that figure's place.
            bench = self.measurement(gpu_id)
            own = bench.matmul("bf16") or bench.matmul("fp16") if bench is not None else None
            measured = own or achievable_matmul_fraction(gpu)
            f *= measured
            # FP8 GEMMs reach their own measured share of the FP8 peak, not the BF16 one.
            own_fp8 = bench.matmul("fp8") if bench is not None else None
            fp8 = (own_fp8 or min(achievable_matmul_fraction(gpu, "fp8"), measured)) / measured
        if f != 1.0 or self.matmul_fractions:
            cal = replace(
                self,
                tensor_matmul_efficiency=min(1.0, self.tensor_matmul_efficiency * f),
                tensor_conv_efficiency=min(1.0, self.tensor_conv_efficiency * f),
                fp8_factor=min(1.0, self.fp8_factor * fp8),
                arch_factors=(),
                matmul_fractions=False,
            )
        return cal._measured_for(gpu_id)

    def _measured_for(self, gpu_id: str) -> Calibration:
        m = self.measurement(gpu_id)
        if m is None:
            return self
        bw = self.bandwidth_efficiency
        if m.bandwidth_fraction is not None:
            bw = min(bw, m.bandwidth_fraction)
        return replace(self, bandwidth_efficiency=bw, matmul_caps=m.matmul_fraction)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        d = json.loads(text)
        d["rows"] = tuple(CalibrationRow(**r) for r in d.get("rows", ()))
        d["measured"] = tuple(
            MeasuredGPU(**(m | {"matmul_fraction": tuple(map(tuple, m.get("matmul_fraction", ())))}))
            for m in d.get("measured", ())
        )
        d["matmul_caps"] = tuple((str(p), float(c)) for p, c in d.get("matmul_caps", ()))
        for name in (
            "arch_factors",
            "heldout",
            "elementwise_fractions",
            "nchw_norm_fractions",
            "misaligned_gemm_rates",
        ):
            d[name] = tuple((str(k), float(v)) for k, v in d.get(name, ()))
        for name in ("seen_architectures", "seen_families"):
            d[name] = tuple(d.get(name, ()))
        return cls(**d)

    def with_rows(self, rows: tuple[CalibrationRow, ...]) -> Calibration:
        return replace(self, rows=rows)


@lru_cache(maxsize=256)
def _chip(gpu_id: str) -> tuple[str, str, int | None] | None:
    from gpuplan.hardware import get_gpu

    try:
        gpu = get_gpu(gpu_id)
    except GpuplanError:
        return None
    return gpu.architecture, gpu.memory_type, gpu.sm_count


@lru_cache(maxsize=256)
def _misaligned_source(
    architecture: str, measured: tuple[tuple[str, float], ...]
) -> tuple[float, str | None, bool]:
    """(the misaligned-GEMM rate ``architecture`` takes, the measured GPU it is of — None for
    ``perf/gemm.py``'s published rate —, whether that GPU is of ``architecture``)."""
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.gemm import misaligned_rate

    slowest: dict[str, tuple[float, str]] = {}  # architecture -> (its lowest measured rate, that GPU)
    for gpu_id, rate in measured:
        arch = get_gpu(gpu_id).architecture
        slowest[arch] = min((rate, gpu_id), slowest.get(arch, (rate, gpu_id)))
    rate = misaligned_rate(architecture, {a: r for a, (r, _g) in slowest.items()})
    if architecture in slowest:
        return rate, slowest[architecture][1], True
    return rate, next((g for r, g in sorted(slowest.values()) if r == rate), None), False


@lru_cache(maxsize=256)
def _elementwise_source(
    gpu_id: str, measured: tuple[tuple[str, float], ...], seen: tuple[str, ...]
) -> tuple[str, str] | None:
    """(the measured GPU, how ``gpu_id`` relates to it: ``chip``, ``sibling`` or ``unseen``)."""
    chip = _chip(gpu_id)
    if chip is None:
        return None
    same_chip = [g for g, _ in measured if g == gpu_id or _chip(g) == chip]
    if same_chip:
        return same_chip[0], "chip"
    from gpuplan.hardware import get_gpu

    siblings = [
        (f * get_gpu(g).memory_bandwidth_gbps, g) for g, f in measured if (_chip(g) or ("",))[0] == chip[0]
    ]
    if siblings:
        return min(siblings)[1], "sibling"
    if seen and chip[0] not in seen:
        return min((f, g) for g, f in measured)[1], "unseen"
    return None


#: Literature priors, used only when no fitted calibration.json ships:
#: llm-analysis suggests ~0.5 FLOP efficiency for training, 0.9 for memory (ESTIMATION_NOTES 2.1);
#: ~0.7 is typical for large cuBLAS GEMMs; a few µs is the gap between back-to-back CUDA kernels;
#: eager PyTorch issues an op in roughly 10–50 µs of CPU time.
PRIOR = Calibration(
    tensor_matmul_efficiency=0.6,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.8,
    min_kernel_time_us=3.0,
    host_overhead_us=20.0,
    time_band=1.3,
    memory_band=1.15,
)


@cache
def load_calibration() -> Calibration:
    """The fitted calibration shipped in the package, or :data:`PRIOR` if none was fitted yet."""
    ref = resources.files("gpuplan.perf").joinpath("calibration.json")
    if not ref.is_file():
        return PRIOR
    try:
        return Calibration.from_json(ref.read_text(encoding="utf-8"))
    except (ValueError, TypeError, KeyError) as e:
        raise DataError.worded(
            N_("perf/calibration.json is malformed ({why}); rerun benchmarks/calibrate.py"), why=e
        ) from e
