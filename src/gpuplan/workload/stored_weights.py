"""The model weights as a checkpoint stores them: what a serving engine (or a batch job's vLLM)
downloads onto a node's disk before it serves, whatever precision it then runs them in.

A trace counts the weights at the precision the workload runs in (fp32: 4 bytes each), but an
engine downloads the Hub's files in the dtype they were saved in (Llama-3.1-70B's are bfloat16:
141 GB, where fp32 counts 282 GB). The dtype is known for a preset's checkpoint
(:data:`~gpuplan.workload.presets.hub_ids.CHECKPOINT_DTYPES`) and for an HF config that names it
(``torch_dtype``, or ``dtype`` in newer transformers); elsewhere the weights are counted at the
widest width checkpoints are commonly kept in, fp32, or as traced where that is more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.i18n import _

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload

__all__ = ["StoredWeights", "stored_dtype", "stored_weights"]

#: Bytes a weight takes in each dtype a config.json's ``torch_dtype`` names.
_WIDTHS = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}
#: The width an unknown checkpoint is counted at: fp32, the widest commonly stored (transformers
#: saves fp32 unless told otherwise, and a config that names no dtype is mostly such a one).
_UNKNOWN_WIDTH = 4


@dataclass(frozen=True)
class StoredWeights:
    """The weights on disk: ``gb`` GB, in ``dtype`` (None: not known, counted at fp32 or as
    traced, whichever is more), and the line that says so."""

    gb: float
    dtype: str | None
    note: str


def stored_dtype(workload: Workload | None) -> str | None:
    """The dtype ``workload``'s checkpoint stores its weights in, where known: a preset's (the
    checkpoint an engine loads: ``model.hub_id``, else its instruction-tuned one, else its
    published one) or an HF config's ``torch_dtype``, after the workload's own
    ``model.checkpoint_dtype``; None for your own code, a checkpoint not listed, a config that names
    none (or cannot be read), or no workload."""
    if workload is None:
        return None
    model = workload.model
    if model.checkpoint_dtype is not None:
        return model.checkpoint_dtype
    if model.preset is not None:
        from gpuplan.workload.presets.hub_ids import HF_MODEL_IDS, INSTRUCT_MODEL_IDS, checkpoint_dtype

        hub_id = model.hub_id or INSTRUCT_MODEL_IDS.get(model.preset) or HF_MODEL_IDS.get(model.preset)
        return checkpoint_dtype(hub_id) if hub_id else None
    if model.hf_config_path is not None:
        from gpuplan.errors import GpuplanError
        from gpuplan.workload.hf_config import read_hf_config

        try:
            raw = read_hf_config(model.hf_config_path)
        except (GpuplanError, OSError):
            return None
        named = raw.get("torch_dtype", raw.get("dtype"))
        return named if isinstance(named, str) and named in _WIDTHS else None
    return None


def stored_weights(workload: Workload | None, params: int, traced_gb: float) -> StoredWeights:
    """``workload``'s ``params`` weights as its checkpoint stores them (:func:`stored_dtype`);
    unknown: at fp32, or ``traced_gb`` (the weights and buffers as traced) where that is more, the
    larger figure, since a disk too small for the download never serves."""
    dtype = stored_dtype(workload)
    if dtype is not None:
        gb = params * _WIDTHS[dtype] / 1e9
        note = _(
            "model weights {gb} GB on disk: {params} weights at {bytes} bytes each ({dtype}, as the "
            "checkpoint stores them; the engine downloads them so, whatever precision it runs in)"
        ).format(gb=f"{gb:,.1f}", params=f"{params:,}", bytes=_WIDTHS[dtype], dtype=dtype)
        return StoredWeights(gb=gb, dtype=dtype, note=note)
    gb = max(params * _UNKNOWN_WIDTH / 1e9, traced_gb)
    if workload is not None and workload.model.preset is not None:
        # a preset has no config.json of the user's: the checkpoint it is served from is named by
        # model.hub_id, whose dtype model.checkpoint_dtype gives
        note = _(
            "model weights {gb} GB on disk: the dtype the checkpoint of {preset} stores them in is "
            "not known here (give it as model.checkpoint_dtype, with the model.hub_id the engine "
            "loads), so they are counted at {bytes} bytes each (fp32, the widest checkpoints are "
            "commonly kept in), or as traced where that is more"
        ).format(gb=f"{gb:,.1f}", preset=workload.model.preset, bytes=_UNKNOWN_WIDTH)
    else:
        note = _(
            "model weights {gb} GB on disk: the dtype the checkpoint stores them in is not known here "
            "(its config.json's torch_dtype names it: give it as model.checkpoint_dtype), so they are "
            "counted at {bytes} bytes each (fp32, the widest checkpoints are commonly kept in), or as "
            "traced where that is more"
        ).format(gb=f"{gb:,.1f}", bytes=_UNKNOWN_WIDTH)
    return StoredWeights(gb=gb, dtype=None, note=note)
