"""What a configuration that fits with little memory to spare is told: what to change if it runs
out of memory all the same. ``gpuplan estimate`` prints it and writes it in its ``--json``;
``gpuplan plan`` says it of its ranked options (table and ``--json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuplan.i18n import _

if TYPE_CHECKING:
    from gpuplan.profile.model import Profile

__all__ = ["THIN_MARGIN", "is_thin", "over_at_estimate_words", "thin_margin_words", "usable_gib_words"]

#: A fitting run whose memory band's high end leaves less than this share of the usable memory
#: free is told what to do if it runs out of memory all the same: the band covers 80 % of the
#: calibration's held-out rows, not every run (a fragmenting allocator, a longer batch).
THIN_MARGIN = 0.10


def is_thin(required_gib_high: float, usable_gib: float) -> bool:
    """Whether a run that fits (``required_gib_high`` within ``usable_gib``) leaves less than
    :data:`THIN_MARGIN` of the usable memory free at its band's high end."""
    return usable_gib - required_gib_high < THIN_MARGIN * usable_gib


def usable_gib_words(x: float) -> str:
    """Usable GiB as the verdict compares it: one decimal (22.5 on an L4 is not 22), none from 100."""
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}".removesuffix(".0")


def over_at_estimate_words(need_gib: float, usable_gib: float, high_gib: float) -> str:
    """What a run whose memory estimate's point is above the usable memory
    (:attr:`gpuplan.perf.memory.MemoryEstimate.over_at_estimate`) is told, in ``plan``'s
    recommendation, ``estimate``'s notes and ``deploy``'s warning alike: ``need_gib`` the point of what
    must fit, ``high_gib`` its band's high end."""
    return _(
        "does not fit at the estimate: needs {need} GiB of {usable} usable (range up to {high}); it "
        "will most likely run out of memory"
    ).format(need=f"{need_gib:.1f}", usable=f"{usable_gib:.1f}", high=f"{high_gib:.1f}")


def thin_margin_words(profile: Profile, thin: Sequence[tuple[str, float, float]]) -> str | None:
    """The line for the configurations in ``thin`` — ``(gpu, required GiB at the band's high end,
    usable GiB)`` each — that fit with little to spare, or None where there are none: what to change
    if it runs out of memory all the same, cheapest first — the caching allocator's expandable
    segments, which grow a segment in place where fixed ones leave fragments too small to reuse
    (PyTorch documentation, "CUDA semantics", section "Optimizing memory usage with
    PYTORCH_CUDA_ALLOC_CONF", https://pytorch.org/docs/stable/notes/cuda.html; PyTorch dev-log,
    E. Yang, "When does fragmentation occur in the CUDA caching allocator?", 2026-06-01) — then the
    changes that keep what the step computes as the advisor ranks them, then 8-bit optimizer state
    (other numerics) — and ``gpuplan measure`` to anchor the estimate on a real step's memory and
    time. Only the changes this workload can still make are named."""
    if not thin:
        return None
    said = [
        _("{gpu} needs up to {need} of {usable} GiB").format(
            gpu=gpu, need=f"{need:.1f}", usable=usable_gib_words(usable)
        )
        for gpu, need, usable in thin
    ]
    train = profile.task != "infer"
    fixes = ["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]
    if profile.batch_size > 1:
        fixes.append(_("a smaller micro-batch with gradient_accumulation") if train else _("a smaller batch"))
    if train and profile.shape.vocab_size and profile.seq_len and profile.vocab_head is not False:
        fixes.append("loss: fused-linear")
    if train and profile.activation_checkpointing != "full":
        fixes.append("gradient_checkpointing: true")
    if train and profile.peak.optimizer_state_bytes >= 0.1 * profile.peak.total_bytes:
        fixes.append("optimizer: adamw-8bit")  # where the state is a tenth of the peak or more
    return _(
        "Thin memory margin ({thin}): if it runs out of memory (CUDA OOM), try in order {fixes}; "
        "`gpuplan measure` on the GPU anchors this estimate on a real step."
    ).format(thin=_("; ").join(said), fixes=_(", ").join(fixes))
