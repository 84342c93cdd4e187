"""The host memory train.py needs on a node to resume from a checkpoint, against the instance's.

Under ``parallelism: fsdp`` train.py checkpoints sharded (torch.distributed.checkpoint: every rank
writes and reads its own part) where every rank sees the checkpoint folder, and no rank holds the
full state: always so on one node, on several only where CKPT_DIR is shared storage (else it writes
them whole). Of the targets, Kubernetes mounts one ReadWriteMany claim in every pod (its class, which
the README asks for before the claim is made: without it the claim stays Pending and nothing runs)
and SkyPilot mounts the run's checkpoint bucket on every node (:data:`SHARED_CHECKPOINT_TARGETS`);
torchrun's and Docker's files leave CKPT_DIR to the user. Otherwise it
checkpoints the full, unsharded state (one file, which rank 0 writes) and resumes by reading
it on one rank and broadcasting it to every rank (``dist.broadcast_object_list`` in the template's
``load_latest_checkpoint``): each rank then holds the whole checkpoint in host memory before it
loads its part, and the rank that read the file holds it once more (the object it loaded beside the
pickled copy it sends). So one node needs at least (ranks on the node + 1) x the checkpoint, the
ranks being its GPUs. That is a lower bound: the byte buffer each rank receives is freed only after
it is unpickled.

The checkpoint's size is the plan's (:attr:`~gpuplan.deploy.spec.LaunchSpec.checkpoint_gb`:
trainable weights at the precision's own bytes + optimizer state + buffers, as it prices the
storage); the instance's memory is
the catalog's (:attr:`~gpuplan.deploy.spec.LaunchSpec.host_memory_gib`, the smallest it lists for
the instance type). Where the memory is not known, nothing says the resume fits: a checkpoint of
:data:`UNKNOWN_MEMORY_SAY_GB` or more is said as not known to fit.
"""

from __future__ import annotations

from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _

__all__ = ["SHARED_CHECKPOINT_TARGETS", "UNKNOWN_MEMORY_SAY_GB", "resume_memory_gib", "resume_memory_warning"]

#: The targets whose files give every node of a multi-node FSDP run one checkpoint folder: k8s (one
#: ReadWriteMany claim in every pod, ``deploy/k8s/training.shared_checkpoints``) and SkyPilot (the
#: run's bucket mounted at /checkpoints on every node). train.py writes its checkpoints in parts there.
SHARED_CHECKPOINT_TARGETS = frozenset({"k8s", "skypilot"})

#: Where the instance's memory is not known, a checkpoint this large (GB) or larger is said: the
#: template's own bound for its full-state resume, ~10 B parameters, at 4 bytes a parameter (fp32
#: weights and no optimizer state, the least a checkpoint of them holds).
UNKNOWN_MEMORY_SAY_GB = 40.0

_GIB = 2**30


def resume_memory_gib(spec: LaunchSpec, target: str) -> float | None:
    """Host memory one node needs to resume from ``target``'s files, GiB (see the module's
    docstring): (GPUs per node + 1) x the plan's checkpoint; None where no checkpoint is written
    (inference) or its size is not known (no plan), or the checkpoint is sharded (FSDP on one node,
    or on several where the target's files give every node one folder: no rank holds the full state)."""
    sharded = spec.parallelism == "fsdp" and (spec.nodes == 1 or target in SHARED_CHECKPOINT_TARGETS)
    if spec.task == "infer" or spec.checkpoint_gb is None or sharded:
        return None
    return (spec.gpus_per_node + 1) * spec.checkpoint_gb * 1e9 / _GIB


def resume_memory_warning(spec: LaunchSpec, target: str) -> str | None:
    """One line in the user's language where a resume from ``target``'s files needs more host memory
    than the instance has, or is large and the instance's memory is not known; None where it fits
    (or nothing is known to compare: no plan)."""
    need = resume_memory_gib(spec, target)
    if need is None:
        return None
    figures = _(
        "to resume, train.py holds the whole checkpoint in host memory once in each of a node's {ranks} "
        "GPU processes and once more in the one that reads the file: {copies} x {gb} GB ({whose} "
        "checkpoint) = at least {need} GiB a node"
    ).format(
        ranks=spec.gpus_per_node,
        copies=spec.gpus_per_node + 1,
        gb=f"{spec.checkpoint_gb:.2f}",
        need=f"{need:,.0f}",
        whose=_("the plan's") if spec.planned else _("the workload's"),
    )
    todo = _(
        "set parallelism: fsdp in the workload and deploy again (train.py then checkpoints each rank's "
        "own part with torch.distributed.checkpoint, and no rank holds the full state), or run on "
        "instances with at least {need} GiB of memory"
    ).format(need=f"{need:,.0f}")
    if spec.parallelism == "fsdp":
        todo = _(
            "train.py writes FSDP checkpoints in parts (torch.distributed.checkpoint), with no rank "
            "holding the full state, only where CKPT_DIR is storage every node sees, which these files "
            "do not set up on their own (--target k8s and --target skypilot do): give it such storage "
            "(NFS, a bucket mount), or run on instances with at least {need} GiB of memory"
        ).format(need=f"{need:,.0f}")
    if spec.host_memory_gib is None:
        if spec.checkpoint_gb is not None and spec.checkpoint_gb < UNKNOWN_MEMORY_SAY_GB:
            return None
        where = spec.instance_type or _("the instance")
        return _(
            "{figures}; the memory of {where} is not known here, so the first resume may be killed "
            "for lack of memory: check it, or {todo}"
        ).format(figures=figures, where=where, todo=todo)
    if need <= spec.host_memory_gib:
        return None
    return _(
        "{figures}, but {instance} has {memory} GiB (the catalog's): the first resume would be killed "
        "for lack of memory; {todo}"
    ).format(figures=figures, instance=spec.instance_type, memory=f"{spec.host_memory_gib:g}", todo=todo)
