"""Efficiency from shapes: what a GEMM or a fused attention call loses to its shape on a given GPU.

A tensor-core GEMM (cuBLAS, CUTLASS) cuts its ``m × n`` output into thread-block tiles; each tile
walks the whole ``k`` dimension, and the GPU runs one tile per SM at a time, in *waves* of as many
tiles as it has SMs (NVIDIA, "Matrix Multiplication Background User's Guide", DU-09799-001,
§2.1 "GPU Implementation", §3.1 "Tile Quantization", §3.2 "Wave Quantization",
https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/, read
2026-12-02). Three losses follow from the shape alone, and this module costs each:

- **tile quantization**: an output edge that is not a multiple of the tile computes the padding;
- **wave quantization**: the last wave leaves SMs idle (``tiles`` not a multiple of the SM count);
  a GEMM with fewer tiles than SMs runs on a fraction of the GPU, unless the library splits ``k``
  across several tiles (split-K, as cuBLAS and CUTLASS do for such shapes), which is tried here
  with ``k`` split in 1, 2, 4, 8 or 16;
- **small ``k`` and narrow layers**: every tile pays a fixed start and finish (filling the
  load pipeline, writing its output) worth :attr:`~gpuplan.perf.calibration.Calibration.gemm_k_overhead`
  elements of ``k``; and a smaller tile re-reads its operands more often per FLOP (its
  operand traffic per FLOP is ``1/tm + 1/tn``), so it runs at a lower fraction of the SM's peak,
  :func:`tile_rate` with :attr:`~gpuplan.perf.calibration.Calibration.gemm_tile_overhead`.

The library's heuristic is taken to pick the fastest of the tile shapes the guide lists as cuBLAS's
(§2.3: 256×128 and 128×256 the most efficient, then 128×128, 256×64, 64×256, 128×64, 64×128, and
64×64 the least efficient) and of a few skinny ones cuBLASLt also has for a GEMM with a short edge
(``cublasLtMatmulTile_t``: ``CUBLASLT_MATMUL_TILE_32x128``, ``…_128x32``, ``…_32x64``, ``…_64x32``,
``…_32x32``, ``…_16x32``, ``…_32x16``; cuBLAS documentation, "cublasLtMatmulTile_t", read
2026-12-02 at https://docs.nvidia.com/cuda/cublas/).

A fused attention call (FlashAttention-2, Dao 2023, arXiv:2307.08691, §3.2 "Parallelism": one thread
block per block of 128 query rows per (batch, head) in the forward pass, per block of keys in the
backward) is the same picture: ``batch × heads × ⌈length / 128⌉`` blocks in waves over the SMs,
each walking the other length. Its per-block work beyond the matmuls — the online softmax's
exponentials and rescaling, which grow with the score block and not with the head dimension — is
worth :attr:`~gpuplan.perf.calibration.Calibration.attention_head_overhead` head-dimension columns,
so a head of 64 runs at a lower fraction of the peak than a head of 128 (the paper's Figs. 4–6
show the same ordering).

A fourth loss is the operands' **alignment**. Tensor-core kernels load 16 bytes at a time, so
cuBLAS picks its fast kernels only when the leading dimensions are multiples of 16 bytes (8
elements of FP16/BF16; the guide's §2.2 "Tensor Core Requirements"); otherwise it falls back to
kernels that load one element at a time (CUTLASS's ``…_align1``). On an RTX 4090 (Ada) such BF16
GEMMs ran at 106.8–115.6 TFLOPS against 155.9 for an aligned one of the same size (square
N = 2055, 2057, 2071, 2073 against 2040: ``cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1``
against ``ampere_bf16_s1688gemm_bf16_128x128_ldg8``; pytorch/pytorch issue 181718, 2026-04-28):
:data:`MISALIGNED_RATE` = 111.3 / 155.9. Volta, Turing and Ampere are taken at Ada's rate (an
ASSUMPTION: their fallbacks are the same CUTLASS ``mma.sync`` kernels). **Hopper** pays far more: its
fast kernels load through TMA, which needs 16-byte strides, and what is left runs at a fraction of
them. On one H200 (PyTorch 2.11, CUDA 13.0) GPT-2 124M's eager step spent 22.5 ms in GEMMs where
the same step under ``torch.compile`` — whose Inductor pads a misaligned matmul when its own
benchmark finds the padded one faster (``shape_padding``, ``torch/_inductor/fx_passes/pad_mm.py``) —
spent 9.2: its output layer's three GEMMs (vocabulary 50,257) ran at 0.17 of the aligned rate
(``benchmarks/recorded_rows.py`` measures it: ``Calibration.misaligned_gemm_rates``). Against it
stands one H100 GEMM with a misaligned ``k`` and an aligned output (8193 × 2501 × 5008, 509 against
502 TFLOPS padded; meta-pytorch/float8_experimental pull request 145, 2024-06-24, CUDA 12): the
measured rate is taken for every Hopper part, the worse figure, and an architecture neither measured
nor sharing Ada's kernels (Blackwell, CDNA) takes the lowest rate known (unknown is never the best
case). Which dimensions are leading ones is read from the pass: a forward GEMM ``x · Wᵀ`` has ``k``
and ``n`` as the contiguous dimensions of its operands and output (``m``, the tokens, is a row count);
the backward's weight gradient ``dYᵀ · X`` has ``m`` (the layer's outputs) as one, so a backward
record checks all three. GPT-2's vocabulary of 50,257 is the common case: its output layer's three
GEMMs are all misaligned (which is why NVIDIA's BERT scripts, Megatron-LM and FlashAttention's
training configs pad the vocabulary to a multiple of 8 or more: ``model.pad_vocab_multiple``).

What comes out is a **multiplier ≥ 1** on an op's ideal time (its FLOPs at the fitted large-GEMM
efficiency): the sum over its recorded shapes of the modelled time over the ideal one. The fitted
efficiencies then describe a large, well-shaped GEMM; the shapes say how far each call falls short.
A GPU whose SM count is not in the hardware table is costed at the worst of a few plausible counts
(unknown is never the best case).

**Where the parameters come from.** ``gemm_k_overhead``, ``gemm_tile_overhead`` and the fixed time
per matmul call (``Calibration.gemm_call_us``) are fitted on measured GEMMs, not on training runs:
OpenXLA's table of measured BF16 matmul throughput (375 shapes each on an H100 SXM and a B200, ``b``
∈ {1, 2, 4}, ``m, n, k`` ∈ {256, …, 4096}; ``calibration/data/gemm_shapes.csv``, fitted by
``calibration/gemm_fit.py``, printed by ``benchmarks/gemm_fit.py``). The fit on the H100 rows (its SM
count is known) gives ``k_overhead`` ≈ 164 elements, ``tile_overhead`` ≈ 60 and ≈ 5.4 µs a call, a
median error of 4 % on its rows and of 8 % on the B200's, predicted with those values and the
catalog's B200 rate; ``benchmarks/calibrate.py --shapes --gemm-fit`` holds them while it fits the
training rows. Without ``--gemm-fit`` (and in the prior) they are the ASSUMPTIONs on
:class:`~gpuplan.perf.calibration.Calibration`. ``attention_head_overhead`` has no such data yet: it is
the prior's ASSUMPTION (or the training fit's, with ``--shapes`` alone).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

__all__ = [
    "ATTENTION_BLOCK_ROWS",
    "MISALIGNED_RATE",
    "MMA_SYNC_ARCHITECTURES",
    "SPLIT_K",
    "TILES",
    "UNKNOWN_SM_COUNTS",
    "alignment_elements",
    "attention_multiplier",
    "element_bytes",
    "gemm_multiplier",
    "misaligned_dimension",
    "misaligned_rate",
    "tile_rate",
]

#: Thread-block tiles (rows × columns of the output): the guide's §2.3 list, then cuBLASLt's skinny ones.
TILES: tuple[tuple[int, int], ...] = (
    (256, 128), (128, 256), (128, 128), (256, 64), (64, 256), (128, 64), (64, 128), (64, 64),
    (32, 128), (128, 32), (32, 64), (64, 32), (32, 32), (16, 32), (32, 16),
)  # fmt: skip
#: Ways of splitting ``k`` across thread blocks (split-K) tried for a GEMM with too few tiles.
SPLIT_K = (1, 2, 4, 8, 16)
#: Split-K stops where a share of ``k`` would be shorter than this (its fixed costs dominate).
_MIN_SPLIT_K = 128
#: Query (forward) or key (backward) rows per thread block of a fused attention kernel
#: (FlashAttention-2 §3.3: blocks of 64 or 128; ASSUMPTION 128, as ``perf/attention.py``).
ATTENTION_BLOCK_ROWS = 128
#: SM counts tried for a GPU the hardware table gives none for; the worst is taken.
UNKNOWN_SM_COUNTS = (64, 108, 132)
_REFERENCE_TILE = TILES[0]
#: Rate of a tensor-core GEMM whose operands are not 16-byte aligned over an aligned one's (the
#: module's notes: RTX 4090, BF16, pytorch/pytorch issue 181718).
MISALIGNED_RATE = 111.3 / 155.9
#: Architectures whose misaligned GEMMs fall back to the ``mma.sync`` CUTLASS kernels measured on
#: Ada (:data:`MISALIGNED_RATE`; the module's notes).
MMA_SYNC_ARCHITECTURES = frozenset({"Volta", "Turing", "Ampere", "Ada"})
#: Bytes a tensor-core kernel loads at once: a leading dimension must be a multiple of this.
_ALIGNMENT_BYTES = 16
_ELEMENT_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "uint8": 1}


def element_bytes(dtype: str) -> int:
    """Bytes one element of a traced dtype takes (4 where not known)."""
    return 1 if dtype.startswith("float8") else _ELEMENT_BYTES.get(dtype, 4)


def alignment_elements(dtype: str) -> int:
    """Elements of ``dtype`` in the 16 bytes a tensor-core kernel loads at once (8 for FP16/BF16,
    16 for FP8, 4 for TF32)."""
    return _ALIGNMENT_BYTES // element_bytes(dtype)


def misaligned_rate(architecture: str, measured: Mapping[str, float] | None = None) -> float:
    """The rate a misaligned tensor-core GEMM runs at on ``architecture``, over the aligned rate:
    ``measured`` (architecture → rate, ``Calibration.misaligned_gemm_rates``) where it holds the
    architecture, else :data:`MISALIGNED_RATE` for the ``mma.sync`` architectures, else the lowest
    rate known."""
    measured = measured or {}
    if architecture in measured:
        return measured[architecture]
    if architecture in MMA_SYNC_ARCHITECTURES:
        return MISALIGNED_RATE
    return min((MISALIGNED_RATE, *measured.values()))


def misaligned_dimension(m: int, n: int, k: int, elements: int, backward: bool) -> int | None:
    """The first of a GEMM's leading dimensions (``n`` and ``k``; in a backward pass ``m`` too: the
    module's notes) that is not a multiple of ``elements`` (0: not checked); None when all are."""
    if elements <= 1:
        return None
    return next((d for d in ((m, n, k) if backward else (n, k)) if d % elements), None)


def _misaligned(m: int, n: int, k: int, elements: int, backward: bool) -> bool:
    return misaligned_dimension(m, n, k, elements, backward) is not None


def tile_rate(tm: int, tn: int, overhead: float) -> float:
    """Fraction of the large-tile rate a ``tm × tn`` tile reaches: its operand traffic per FLOP is
    ``1/tm + 1/tn``, and ``overhead`` (elements) is what that traffic costs in units of it;
    1 for the 256 × 128 reference tile."""
    rm, rn = _REFERENCE_TILE
    return (1.0 + overhead * (1.0 / rm + 1.0 / rn)) / (1.0 + overhead * (1.0 / tm + 1.0 / tn))


@lru_cache(maxsize=65536)
def _gemm_one(
    b: int,
    m: int,
    n: int,
    k: int,
    sms: int,
    k_overhead: float,
    tile_overhead: float,
    kernel_rate: float = 1.0,
) -> float:
    """Modelled over ideal time of one ``b × (m × k) · (k × n)`` GEMM on ``sms`` SMs, its kernel at
    ``kernel_rate`` of the aligned kernels' (misaligned operands: below 1)."""
    ideal = b * m * n * k / sms  # tile-elements × k per SM at the reference rate
    best = math.inf
    for tm, tn in TILES:
        base = b * math.ceil(m / tm) * math.ceil(n / tn)
        rate = tile_rate(tm, tn, tile_overhead)
        for split in SPLIT_K:
            if split > 1 and (k / split < _MIN_SPLIT_K or base >= sms):
                break
            waves = math.ceil(base * split / sms)
            t = waves * tm * tn * (math.ceil(k / split) + k_overhead) / rate
            best = min(best, t)
    return best / ideal / kernel_rate if ideal > 0 else 1.0


@lru_cache(maxsize=65536)
def _attention_one(
    bh: int, s_q: int, s_k: int, d: int, sms: int, head_overhead: float, backward: bool
) -> float:
    """Modelled over ideal time of one fused attention call (forward or backward)."""
    rows, walked = (s_k, s_q) if backward else (s_q, s_k)
    blocks = bh * math.ceil(rows / ATTENTION_BLOCK_ROWS)
    waves = math.ceil(blocks / sms)
    t = waves * ATTENTION_BLOCK_ROWS * walked * (d + head_overhead)
    ideal = bh * rows * walked * d / sms
    return t / ideal if ideal > 0 else 1.0


def gemm_multiplier(
    shapes: Sequence[tuple[int, int, int, int, int]],
    sms: int | None,
    *,
    k_overhead: float,
    tile_overhead: float,
    alignment: int = 0,
    backward: bool = False,
    misaligned_rate: float = 1.0,
) -> float:
    """Time of a matmul record's calls over their ideal time (≥ 1), from ``(calls, b, m, n, k)``
    shapes; 1 when there are none. ``sms`` None: the worst of :data:`UNKNOWN_SM_COUNTS`.
    ``alignment``: the elements a leading dimension must be a multiple of (0: not checked); a call
    that misses it runs at ``misaligned_rate`` of the aligned rate."""

    def one(b: int, m: int, n: int, k: int, s: int) -> float:
        rate = misaligned_rate if _misaligned(m, n, k, alignment, backward) else 1.0
        return _gemm_one(b, m, n, k, s, k_overhead, tile_overhead, rate)

    return _worst_multiplier(shapes, sms, one)


def attention_multiplier(
    shapes: Sequence[tuple[int, int, int, int, int]],
    sms: int | None,
    *,
    head_overhead: float,
    backward: bool,
) -> float:
    """Time of an attention record's calls over their ideal time (≥ 1), from
    ``(calls, batch × heads, query length, key length, head dim)`` shapes; 1 when there are none."""
    return _worst_multiplier(
        shapes, sms, lambda bh, s_q, s_k, d, s: _attention_one(bh, s_q, s_k, d, s, head_overhead, backward)
    )


def _worst_multiplier(
    shapes: Sequence[tuple[int, int, int, int, int]],
    sms: int | None,
    one: Callable[[int, int, int, int, int], float],
) -> float:
    """The work-weighted mean of ``one(a, b, c, d, sms)`` over ``(calls, a, b, c, d)`` shapes (the
    work of a call is the product a·b·c·d); with ``sms`` None, the worst over
    :data:`UNKNOWN_SM_COUNTS`, so an unknown SM count is never the best case. 1 when there are none."""
    if not shapes:
        return 1.0
    worst = 1.0
    for s in (sms,) if sms else UNKNOWN_SM_COUNTS:
        spent = ideal = 0.0
        for calls, a, b, c, d in shapes:
            w = calls * a * b * c * d
            spent += w * one(a, b, c, d, s)
            ideal += w
        worst = max(worst, spent / ideal if ideal > 0 else 1.0)
    return worst


def scaled_shapes(
    shapes: tuple[tuple[int, int, int, int, int], ...], scale: float
) -> tuple[tuple[int, int, int, int, int], ...]:
    """The shapes of a forward record at ``scale`` × the traced micro-batch: the batch of a batched
    GEMM or attention call (``b``), else the rows (``m``: a linear layer's tokens). NB: a backward
    weight gradient carries the tokens in ``k``; only inference scales the batch, so it has none."""
    out = []
    for calls, b, m, n, k in shapes:
        if b > 1:
            b = max(1, round(b * scale))
        else:
            m = max(1, round(m * scale))
        out.append((calls, b, m, n, k))
    return tuple(out)


def split_shapes(
    shapes: tuple[tuple[int, int, int, int, int], ...], attention: bool, ways: int
) -> tuple[tuple[int, int, int, int, int], ...]:
    """The shapes one of ``ways`` tensor-parallel ranks runs (Megatron-LM's split, Shoeybi et al.
    2019, §3): an attention call's heads; a GEMM's split dimension, the hidden one of the weight —
    ``n`` of a column-parallel layer, ``k`` of a row-parallel one, in every pass the middle-sized of
    ``(m, n, k)`` when the tokens are the largest."""
    if ways <= 1:
        return shapes
    out = []
    for calls, b, m, n, k in shapes:
        if attention:
            b = max(1, math.ceil(b / ways))
        else:
            dims = sorted(((m, 0), (n, 1), (k, 2)), reverse=True)
            which = dims[1][1]
            m, n, k = (max(1, math.ceil(x / ways)) if i == which else x for i, x in enumerate((m, n, k)))
        out.append((calls, b, m, n, k))
    return tuple(out)
