"""An inference option's host RAM against the model weights each of its instances loads.

An engine reads the checkpoint from the instance's disk into host memory on its way to the GPU:
vLLM's default loader memory-maps each safetensors file (its pages come into host memory as they
are copied to the GPU), its ``eager`` strategy reads "the entire file into CPU memory upfront"
(vLLM ``LoadConfig.safetensors_load_strategy``,
https://docs.vllm.ai/en/v0.15.0/api/vllm/config/load/, read 2026-12-08), and a PyTorch checkpoint
(vLLM's ``pt`` format, gpuplan's own ``serve.py`` and ``batch.py``, which load it with
``map_location="cpu"``) is deserialized into CPU memory whole before any tensor moves ("they are
first deserialized on the CPU", PyTorch ``torch.load`` docs,
https://pytorch.org/docs/stable/generated/torch.load.html). vLLM's users report the same: "vllm
will first load the whole model into cpu memory and then move it to gpu memory, this makes the cpu
memory at least be the size of the model" (vllm-project/vllm#759), and a 2025 vLLM failing to map
a 17 GB checkpoint on a host without the memory ("Cannot allocate memory", the same thread).

The rule: an instance whose RAM (the catalog's) is below the weights of one replica as its
checkpoint stores them (``JobFacts.weights_gb``, the figure the plan stores on each instance's disk)
cannot load them, and its candidates are left out (``Reason.HOST_RAM``). It is a lower bound: the
operating system, the engine's own processes and the CUDA context need host memory too, and the
replicas of a several-GPU instance load theirs side by side; none of that is counted. A training
job is not checked here: its host memory is only modelled for a resume from a full checkpoint
(``deploy/resume_memory.py``, said at deploy).

An instance whose RAM the catalog does not state is taken at the conservative bound of
``plan/unknowns.py`` (the least RAM per GPU of any offer of its GPU); where that would not hold the
weights, the option may not load them: it is ranked after every option known to, flagged, and named
in the notes, as an option whose round trip to its users is not known is (``plan/users_far.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.i18n import N_, _, format_number, ngettext
from gpuplan.i18n.phrases import item_list
from gpuplan.plan.candidates import REASONS
from gpuplan.plan.constraints import Reason

if TYPE_CHECKING:
    from gpuplan.plan.candidates import Candidates
    from gpuplan.plan.context import PlanContext
    from gpuplan.plan.input_types import JobFacts, OfferTable
    from gpuplan.plan.result import Option

__all__ = [
    "HOST_RAM_UNKNOWN_FLAG",
    "exclude_short_host_ram",
    "host_ram_note",
    "host_ram_unsure",
    "ram_holds",
    "weights_to_load_gb",
]

_GIB = 2**30
#: Instances a note names by their figures.
_NAMED = 3

#: The flag of an option whose instance's RAM is not known and may not hold the weights it loads.
HOST_RAM_UNKNOWN_FLAG = N_(
    "host RAM unknown (the least of any offer of its GPU would not hold the model's weights to load): "
    "ranked after the options known to hold them"
)


def weights_to_load_gb(job: JobFacts) -> float:
    """GB of weights each instance of an inference job loads through its host memory (one replica's,
    as its checkpoint stores them); 0 for a training job or where no weights are counted."""
    return job.weights_gb if job.task == "infer" else 0.0


def _short(ram_gib: np.ndarray, need_gb: float) -> np.ndarray:
    """Which RAM figures (GiB) are below ``need_gb`` GB; nan (unknown) is not."""
    with np.errstate(invalid="ignore"):
        out: np.ndarray = ram_gib * _GIB < need_gb * 1e9
    return out


def ram_holds(ram_gib: float | None, need_gb: float | None) -> bool:
    """Whether an instance of ``ram_gib`` GiB of RAM holds ``need_gb`` GB of weights to load, as the
    plan leaves out the instances that do not (:func:`exclude_short_host_ram`); an unknown figure of
    either is not refused here (the plan ranks such an instance after the known ones)."""
    if ram_gib is None or need_gb is None:
        return True
    return not bool(_short(np.array([ram_gib], dtype=float), need_gb)[0])


def exclude_short_host_ram(cands: Candidates, offers: OfferTable, job: JobFacts) -> None:
    """Leave out (``Reason.HOST_RAM``) the candidates whose instance's stated RAM is below the weights
    it loads (:func:`weights_to_load_gb`)."""
    need = weights_to_load_gb(job)
    if need <= 0 or len(offers) == 0:
        return
    short = _short(offers.memory_gib, need)
    cands.exclude(short[cands.offer], Reason.HOST_RAM)


def host_ram_unsure(ctx: PlanContext, positions: np.ndarray) -> np.ndarray:
    """Which options at ``positions`` (costed positions) are on an instance whose RAM is not known and
    whose conservative bound (``HostBounds.ram_gib``: none known of any offer counts as short) is
    below the weights it loads: they rank after those known to hold them."""
    need = weights_to_load_gb(ctx.job)
    out = np.zeros(positions.size, dtype=bool)
    if need <= 0 or positions.size == 0:
        return out
    rows = ctx.cands.offer[ctx.costs.idx[positions]]
    unknown = np.isnan(ctx.offers.memory_gib[rows])
    for i in np.flatnonzero(unknown):
        row = int(rows[i])
        bound = (
            None
            if ctx.bounds is None
            else ctx.bounds.ram_gib(str(ctx.offers.gpu[row]), float(ctx.offers.gpu_count[row]))
        )
        out[i] = bound is None or bool(_short(np.array([bound]), need)[0])
    return out


def host_ram_note(ctx: PlanContext, feasible: np.ndarray, ranked: list[Option]) -> str | None:
    """What the plan says of host RAM: the candidates left out for it, with the figures of the
    smallest instances; the options ranked after for RAM not known; None where neither."""
    need = weights_to_load_gb(ctx.job)
    if need <= 0:
        return None
    parts = []
    hit = ctx.cands.reason == REASONS.index(Reason.HOST_RAM)
    if hit.any():
        rows = np.unique(ctx.cands.offer[hit])
        # one instance type per provider and amount of RAM (a host of 1, 2 or 4 GPUs alike), the
        # nearest to holding the weights first
        shapes: dict[tuple[str, float], str] = {}
        for r in sorted(rows.tolist(), key=lambda r: str(ctx.offers.instance_type[r])):
            shapes.setdefault(
                (str(ctx.offers.provider[r]), float(ctx.offers.memory_gib[r])),
                str(ctx.offers.instance_type[r]),
            )
        kinds = len({str(ctx.offers.instance_type[r]) for r in rows})
        ordered = sorted(shapes.items(), key=lambda kv: (-kv[0][1], kv[0][0], kv[1]))
        named = [
            _("{provider} {instance}: {ram} GiB of host RAM < {need} GB of weights to load").format(
                provider=p, instance=t, ram=f"{ram:g}", need=f"{need:,.1f}"
            )
            for (p, ram), t in ordered[:_NAMED]
        ]
        more = kinds - len(named)
        parts.append(
            _(
                "host RAM: {n} candidates left out (host_ram_short): an engine loads the model's weights "
                "({need} GB as the checkpoint stores them) through the instance's host memory before "
                "they reach the GPU, and their instances have less: {named}{more}"
            ).format(
                n=format_number(int(hit.sum())),
                need=f"{need:,.1f}",
                named=item_list(named),
                more=_(" (+{n} more instance types)").format(n=more) if more else "",
            )
        )
    unsure = host_ram_unsure(ctx, feasible)
    if unsure.any() and not unsure.all():
        shown = any(HOST_RAM_UNKNOWN_FLAG in o.flags for o in ranked)
        parts.append(
            ngettext(
                "host RAM: {n} option is on an instance whose RAM the catalog does not state, and the "
                "least of any offer of its GPU would not hold the {need} GB of weights it loads; ranked "
                "after the options known to hold them{shown}",
                "host RAM: {n} options are on instances whose RAM the catalog does not state, and the "
                "least of any offer of their GPU would not hold the {need} GB of weights they load; "
                "ranked after the options known to hold them{shown}",
                int(unsure.sum()),
            ).format(
                n=format_number(int(unsure.sum())),
                need=f"{need:,.1f}",
                shown="" if shown else _(", none in the top list"),
            )
        )
    return _("; ").join(parts) or None
