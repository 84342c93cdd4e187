"""A serving engine's CPU time per iteration, outside the GPU kernels, from a published measurement.

Between two forward passes a continuous-batching server (vLLM, SGLang) works on the CPU: it takes
the last step's sampled tokens, checks stop conditions, schedules the next batch, allocates KV
blocks and builds the next step's input tensors. CUDA graphs remove the kernel launches, not this
work: unless the engine overlaps it with the GPU, the GPU waits for it every iteration.

The figures are the medians of a published per-iteration measurement, not fitted on anything:

- Srivatsa, Li, Zhang, Abhyankar (WukLab, UC San Diego), "Can Scheduling Overhead Dominate LLM
  Inference Performance? A Study of CPU Scheduling Overhead on Two Popular LLM Inference Systems",
  https://mlsys.wuklab.io/posts/scheduling_overhead/ (2024-09-10; source of the figures:
  github.com/WukLab/wuklab_sysml@92e190d0 static/images/scheduling_overhead/*_A100.svg_{0,1,2}.svg,
  read 2026-12-02). Median per-iteration scheduling time on A100s (one GPU; Llama-70B on four),
  300 requests sent at once, 512-token batches; Llama 1.3B / 8B / 70B over the workloads 1024:64,
  1024:1024, ShareGPT (and LooGLE for 8B):
  SGLang 0.2.13 (commit 3694f8f9): 3.13, 4.29, 3.55 / 1.91, 2.70, 2.16, 1.87 / 5.30, 2.30, 4.20 ms
  (Figure 6; median of the ten 2.9 ms);
  vLLM 0.5.4: 12.28, 13.40, 18.80 / 14.31, 21.77, 17.16, 4.14 / 8.52, 28.16, 22.50 ms
  (Figure 2; median 15.7 ms).

What is assumed, beyond the source:

- The source measured batches of up to a few hundred sequences and does not separate a part per
  sequence, so the one figure stands for every batch size (for a batch of a few sequences it is an
  upper bound).
- vLLM V1 (v0.8 on, where it became the default engine) is given SGLang's figure: V1 rebuilt the
  engine loop on the two things the source names as SGLang's advantage (vectorised input
  preparation, the persistent batch; detokenising outside the engine loop), and no public
  per-iteration figure for V1 itself was found (vLLM, "vLLM V1: A Major Upgrade to vLLM's Core
  Architecture", https://blog.vllm.ai/2025/01/27/v1-alpha-release.html, 2025-01-27, read
  2026-12-02). vLLM before V1 keeps its own 0.5.4 figure (0.6's asynchronous output processing
  lowered it by an amount the source does not give: the slower figure is kept).
- Overlap: SGLang from v0.4 runs its scheduler one batch ahead of the GPU ("zero-overhead batch
  scheduler", on by default: LMSYS, "SGLang v0.4", https://lmsys.org/blog/2024-12-04-sglang-v0-4/,
  2024-12-04), and vLLM's asynchronous scheduling does the same (vLLM PR #19970, 2025-06-23; on by
  default from v0.14.0, vLLM issue #27679 "Async Scheduling Plan" and PR #27614; release stated in
  deepjavalibrary/djl issue #3833, 2026-01-27). An overlapped iteration takes the longer of the GPU
  and the CPU work, an engine that does not overlap takes their sum.
- An engine of unknown version (or an unknown engine) is taken not to overlap (the slower of the
  two ways today's engines run), at today's engines' figure: vLLM before V1 (15.7 ms, 2024) is
  not assumed of an engine nobody named. A workload names its engine in ``serving.engine``
  (``vllm==0.8.5``, or ``vllm`` alone: then of no stated version, taken the same way);
  :func:`served_by` maps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuplan.i18n import N_, _

__all__ = [
    "NO_ENGINE",
    "SGLANG_OVERLAP",
    "SGLANG_SYNC",
    "UNKNOWN_ENGINE",
    "VLLM_V0",
    "VLLM_V1_ASYNC",
    "VLLM_V1_SYNC",
    "EngineCpu",
    "engine_cpu",
    "named_engine",
    "served_by",
]

_WUKLAB = (
    "WukLab (UC San Diego), 'Can Scheduling Overhead Dominate LLM Inference Performance?', "
    "https://mlsys.wuklab.io/posts/scheduling_overhead/ (2024-09-10), median per-iteration scheduling "
    "time on A100s"
)


@dataclass(frozen=True, kw_only=True)
class EngineCpu:
    """The CPU work of one serving iteration and whether the engine hides it behind the GPU."""

    name: str
    """What the engine is taken to be, in words (a catalog message: shown translated)."""
    step_s: float
    """CPU time per iteration outside the GPU kernels (scheduling, input preparation, sampling's
    host side, stop checks)."""
    overlapped: bool
    """The engine prepares the next iteration while the GPU runs this one: an iteration takes the
    longer of the two, not their sum."""
    source: str
    """The measurement cited: publisher, title, address, date (as published: not translated)."""
    assumed: str = ""
    """What gpuplan takes from it beyond what it measured (a catalog message: shown translated)."""

    def cited(self, *, translated: bool = True) -> str:
        """The source and what is assumed from it, the assumption in the current language (in
        English for a document: ``translated=False``)."""
        if not self.assumed:
            return self.source
        return f"{self.source} ({_(self.assumed) if translated else self.assumed})"

    def iteration_s(self, device_s: float, launch_s: float = 0.0) -> float:
        """One iteration: ``device_s`` of GPU work (its kernels and collectives, already no shorter
        than the CPU's kernel launches ``launch_s``; 0 with CUDA graphs) and this engine's CPU work,
        overlapped or in turn."""
        if self.overlapped:
            return max(device_s, launch_s + self.step_s)
        return device_s + self.step_s


#: A plain generation loop (no serving engine: no scheduler between the steps).
NO_ENGINE = EngineCpu(name=N_("no serving engine"), step_s=0.0, overlapped=False, source="no serving engine")
_SGLANG_S = 2.9e-3
_VLLM_V0_S = 15.7e-3
SGLANG_SYNC = EngineCpu(
    name=N_("SGLang before v0.4 (no overlap scheduler)"),
    step_s=_SGLANG_S,
    overlapped=False,
    source=f"{_WUKLAB}: SGLang 0.2.13, median of 10 runs 2.9 ms (1.9-5.3)",
)
SGLANG_OVERLAP = EngineCpu(
    name=N_("SGLang v0.4 on (overlap scheduler)"),
    step_s=_SGLANG_S,
    overlapped=True,
    source=SGLANG_SYNC.source + "; LMSYS, SGLang v0.4 (2024-12-04)",
    assumed=N_("overlapped from v0.4"),
)
VLLM_V0 = EngineCpu(
    name=N_("vLLM before V1 (before 0.8)"),
    step_s=_VLLM_V0_S,
    overlapped=False,
    source=f"{_WUKLAB}: vLLM 0.5.4, median of 10 runs 15.7 ms (4.1-28.2)",
)
VLLM_V1_SYNC = EngineCpu(
    name=N_("vLLM V1, 0.8 to 0.13 (synchronous scheduling)"),
    step_s=_SGLANG_S,
    overlapped=False,
    source=SGLANG_SYNC.source,
    assumed=N_("vLLM V1 assumed to match SGLang's figure"),
)
VLLM_V1_ASYNC = EngineCpu(
    name=N_("vLLM V1 from 0.14 (asynchronous scheduling)"),
    step_s=_SGLANG_S,
    overlapped=True,
    source=SGLANG_SYNC.source + "; vLLM PR #27614",
    assumed=N_("vLLM V1 assumed to match SGLang's figure; overlapped from v0.14.0"),
)
UNKNOWN_ENGINE = EngineCpu(
    name=N_("a serving engine not named (taken not to overlap)"),
    step_s=_SGLANG_S,
    overlapped=False,
    source=VLLM_V1_SYNC.source,
    assumed=VLLM_V1_SYNC.assumed,
)
#: vLLM or SGLang named without a version: taken as :data:`UNKNOWN_ENGINE` is, and said so.
_UNSTATED = {
    "vllm": EngineCpu(
        name=N_("vLLM of no stated version (taken not to overlap)"),
        step_s=_SGLANG_S,
        overlapped=False,
        source=VLLM_V1_SYNC.source,
        assumed=VLLM_V1_SYNC.assumed,
    ),
    "sglang": EngineCpu(
        name=N_("SGLang of no stated version (taken not to overlap)"),
        step_s=_SGLANG_S,
        overlapped=False,
        source=SGLANG_SYNC.source,
    ),
}

_NAMED = re.compile(r"\b(vllm|sglang)\b\s*v?(?:(\d+)\.(\d+))?")


def named_engine(software: str) -> tuple[str | None, tuple[int, int] | None]:
    """The engine a software description names (``"vLLM 0.19.0"``, ``"SGLang v0.4.1"``): ``vllm``
    or ``sglang`` by name and the (major, minor) version right after it; None for what it does not
    say."""
    named = _NAMED.search(software.lower())
    if named is None:
        return None, None
    return named[1], (int(named[2]), int(named[3])) if named[2] is not None else None


def engine_cpu(software: str | None) -> EngineCpu:
    """The engine a software description names (:func:`named_engine`); either engine without a
    version there, or a text that names neither, is :data:`UNKNOWN_ENGINE`. ``None`` or an empty
    text: :data:`NO_ENGINE` (a plain generation loop, no server)."""
    if not software:
        return NO_ENGINE
    name, version = named_engine(software)
    if name is None or version is None:
        return UNKNOWN_ENGINE
    return served_by(name, version)


def served_by(engine: str, version: tuple[int, int] | None) -> EngineCpu:
    """The CPU work of ``engine`` (``vllm`` or ``sglang``) at ``version`` (major, minor); None: of no
    stated version, taken not to overlap (as :data:`UNKNOWN_ENGINE`, named)."""
    if version is None:
        return _UNSTATED[engine]
    if engine == "sglang":
        return SGLANG_SYNC if version < (0, 4) else SGLANG_OVERLAP
    if version < (0, 8):
        return VLLM_V0
    return VLLM_V1_SYNC if version < (0, 14) else VLLM_V1_ASYNC
