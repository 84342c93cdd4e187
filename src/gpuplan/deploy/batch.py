"""Batch inference, the part every target that writes one shares: how the inputs are cut into
shards, and what its README says of the inputs, the outputs, the model and the cost.

A batch job (an inference workload without a ``serving:`` block) runs batch.py (the template
``batch_entry.py``) once per shard: each shard goes through its chunks of the inputs, writes each
chunk's outputs whole, and exits; run again, it skips the chunks already written. The input and
output formats are batch.py's (its docstring), said here in the user's language.
"""

from __future__ import annotations

from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _
from gpuplan.vocab import pricing_name

__all__ = [
    "cost_note",
    "input_contract",
    "model_note",
    "output_contract",
    "sentences",
    "shard_count",
    "shard_gpus",
]

#: Sentence ends after which a language puts no space before the next sentence (Chinese: 。).
_FULL_WIDTH_ENDS = ("。", "！", "？", "：")


def sentences(*parts: str) -> str:
    """Translated sentences as one paragraph: a space between them, none after a full-width end."""
    text = ""
    for part in parts:
        text += part if not text or text.endswith(_FULL_WIDTH_ENDS) else f" {part}"
    return text


def shard_gpus(spec: LaunchSpec) -> int:
    """GPUs of one shard: the GPUs one copy of the model spans in the plan (its tensor x pipeline
    split, within a node), else one. batch.py runs data parallel: a copy of the model per shard."""
    return max(1, min(spec.gpus_per_node, spec.tensor_parallel * spec.pipeline_parallel))


def shard_count(spec: LaunchSpec) -> int:
    """The shards, all running at once: every GPU of the plan's instances in use."""
    return spec.nodes * (spec.gpus_per_node // shard_gpus(spec))


def input_contract() -> str:
    """What the inputs are (a README sentence; "inputs/" is the folder the target mounts)."""
    return _(
        "One JSON Lines file, or a folder of them (read in name order), in `inputs/`: one sample a line, "
        "the model's input as a JSON array (token ids, a feature vector, [3][H][W] pixels), or an object "
        "{example} whose id is copied to its output."
    ).format(example='`{"id": …, "input": […]}`')


def output_contract() -> str:
    """What the outputs are (a README sentence)."""
    return _(
        "The outputs are `outputs/chunk-00000000.jsonl`, …: a line per sample, {example} (with its id), N "
        "counting the samples from 0; the chunks in name order hold the outputs in input order."
    ).format(example='`{"index": N, "output": …}`')


def model_note(spec: LaunchSpec, checkpoints: str) -> str:
    """What batch.py runs, and where the user's own model goes; ``checkpoints``: the folder its
    weights are read from, as the target names it."""
    if spec.model_entry_point:
        text = _(
            "batch.py runs your model from `{entry}` (build_model() in train.py) on each batch of inputs "
            "as one tensor."
        ).format(entry=spec.model_entry_point)
    else:
        text = _(
            "batch.py runs the stand-in model from train.py, randomly initialised: the workload's model is "
            "{source}, which train.py cannot rebuild without gpuplan. Put yours in build_model(), its "
            "weights as a checkpoint in {checkpoints} or loaded there."
        ).format(source=spec.model_source, checkpoints=checkpoints)
    text = sentences(
        text,
        _(
            "Each output is what postprocess() in batch.py makes of the model's output: the arg-max of the "
            "logits as written; return the vectors there for embeddings."
        ),
    )
    if shard_gpus(spec) > 1:
        text = sentences(
            text,
            _(
                "The plan splits the model over {n} GPUs (tensor_parallel {tp}, pipeline_parallel {pp}): "
                "each shard has {n}, but batch.py runs the model on one of them; split it in build_model() "
                "(or run a framework that does) for the memory and the time the plan assumed."
            ).format(n=shard_gpus(spec), tp=spec.tensor_parallel, pp=spec.pipeline_parallel),
        )
    return text


def cost_note(spec: LaunchSpec) -> str:
    """What the plan says the run costs: its all-in cost on its instances, or that none priced it."""
    if spec.run_cost_usd is None:
        return _(
            "No plan priced this run: `gpuplan plan WORKLOAD` estimates its time and cost "
            "(deploy its plan file for the instances it chose)."
        )
    where = _("{nodes} x {instance} ({pricing})").format(
        nodes=spec.nodes,
        instance=spec.instance_type or spec.gpu or "GPU",
        pricing=pricing_name(spec.pricing),
    )
    if spec.job_time_h is None:
        return _("The plan prices this run at ${cost:,.2f} all-in, on {where}.").format(
            cost=spec.run_cost_usd, where=where
        )
    return _(
        "The plan prices this run at ${cost:,.2f} all-in: {hours:,.1f} h on {where}, with every shard "
        "running at once. A shard that waits for a GPU, or one run again, adds to it."
    ).format(cost=spec.run_cost_usd, hours=spec.job_time_h, where=where)
