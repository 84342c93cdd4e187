"""Work a fused (FlashAttention-style) attention kernel really does, against the FLOPs the trace counts.

``FlopCounterMode`` counts every attention call as full (``4·s²·d·heads`` forward, 2.5× that for
backward), causal or not. A fused kernel with a causal mask skips the key blocks wholly above the
diagonal and computes each diagonal block whole (FlashAttention-2, Dao, arXiv:2307.08691v1,
2023-07-17, §3.1 "Causal masking": "for any blocks where all the column indices are more than the
row indices … we can skip the computation of that block", and the mask is applied "to 1 block"
per row; read 2026-12-01 at https://arxiv.org/abs/2307.08691). With ``n = ⌈s / B⌉`` query and key
blocks of ``B`` rows it runs ``n(n + 1)/2`` of ``n²`` blocks, so its work is

    (n + 1) / (2n)   of the full count:  s = 512, B = 128 → 0.625;  2,048 → 0.531;  8,192 → 0.508.

``B`` is :data:`FLASH_BLOCK_ROWS` = 128, the larger of the paper's block sizes ("Typically we choose
blocks of size {64, 128} × {64, 128}, depending on the head dimension d and the device shared memory
size", §3.3); which one a head dimension gets is not stated there, so 128 is an assumption (64 would
halve the diagonal's share). The geometry alone gives a causal speed-up of 2n/(n + 1) — 1.88× at 2k,
1.97× at 16k — where the paper measures "around 1.7–1.8×": the per-block overheads it leaves out
make this a lower bound on a causal kernel's time. Nothing here is fitted.
"""

from __future__ import annotations

import math

__all__ = ["FLASH_BLOCK_ROWS", "causal_work_fraction"]

#: Query/key rows per block of a fused attention kernel (FlashAttention-2 §3.3: 64 or 128; ASSUMPTION 128).
FLASH_BLOCK_ROWS = 128


def causal_work_fraction(seq_len: int | None, block_rows: int = FLASH_BLOCK_ROWS) -> float:
    """Share of a full attention call's FLOPs a causal fused kernel computes at ``seq_len`` tokens.

    ``(n + 1) / (2n)`` with ``n = ⌈seq_len / block_rows⌉``; 1/2 (the long-sequence limit) when the
    length is unknown. A sequence of one block computes it whole (1.0).
    """
    if seq_len is None or seq_len <= 0:
        return 0.5
    n = math.ceil(seq_len / block_rows)
    return (n + 1) / (2 * n)
