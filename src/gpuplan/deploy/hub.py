"""Which Hugging Face Hub model a workload's model is: what a serving engine loads by its id.

A preset reproduces a published model's shape; where that model's weights are on the Hub under the
id its ``source`` names, the engine serves those weights (the shape the plan priced). Presets that
reproduce a paper's table (GPT-3, Megatron-LM) or a training recipe (OLMo-core) have no such
weights: none here. A ``model.hf_config`` names its Hub id in its own ``_name_or_path`` key, which
transformers writes when it saves a config; a config without one (or with a local path there) has
none. The user's own code (``model.python``) has none.

A preset's published model may be a pretrained base (Meta's Llama checkpoints without
``-Instruct``): not tuned to follow a prompt, it answers a chat poorly, and its tokenizer may define
no chat template, so an engine refuses ``/v1/chat/completions`` requests to it. An engine loads the
instruction-tuned checkpoint of the same architecture in its place (:data:`INSTRUCT_MODEL_IDS`; the
shape, so the plan's figures, are the same) and the README says which it loads.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from gpuplan.deploy.grammar import hf_repo_id
from gpuplan.errors import GpuplanError
from gpuplan.workload.presets.hub_ids import HF_MODEL_IDS, INSTRUCT_MODEL_IDS, NO_CHAT_TEMPLATE

__all__ = [
    "GATED_NAMES",
    "GATED_OWNERS",
    "HF_MODEL_IDS",
    "INSTRUCT_MODEL_IDS",
    "ModelIdentity",
    "config_identity",
    "gated",
    "preset_identity",
    "read_config_identity",
    "recorded_identity",
]


class ModelIdentity(NamedTuple):
    """What a serving engine needs to know of a workload's model, read once from its preset or its
    config.json."""

    hub_id: str | None
    """The Hugging Face Hub model (None: none named)."""
    family: str | None
    """``decoder``, …; None: not known."""
    positions: int | None
    """The positions it takes, the longest request an engine of it accepts (None: not stated)."""
    base_id: str | None = None
    """A preset's pretrained checkpoint where ``hub_id`` is its instruction-tuned one
    (:data:`INSTRUCT_MODEL_IDS`); None otherwise."""
    chat: bool | None = None
    """Whether the checkpoint's tokenizer has a chat template (so ``/v1/chat/completions`` works):
    False where known not to (:data:`NO_CHAT_TEMPLATE`), None where not known."""


_UNKNOWN = ModelIdentity(None, None, None)

#: Hub owners every one of whose models is gated: a download needs a token of an account that has
#: accepted the owner's terms, and an engine without one stops at its first file (HTTP 401 or 403;
#: Hugging Face, "Gated models", https://huggingface.co/docs/hub/en/models-gated). Meta's Llama
#: repositories ask for its community licence ("Access to model meta-llama/Llama-3.1-8B-Instruct is
#: restricted", https://github.com/rh-ai-quickstart/ai-virtual-agent/issues/200, 2026-02-21; "Repo
#: model meta-llama/Llama-2-7b-hf is gated", https://github.com/anarchy-ai/LLM-VM/issues/423,
#: 2023-12-21); Mistral AI's ask for contact information since April 2024 ("mistralai/Mistral-7B-
#: Instruct-v0.2 being gated now", https://github.com/huggingface/alignment-handbook/issues/166,
#: 2024-05-08; https://github.com/openvinotoolkit/openvino.genai/pull/371, 2024-04-22). Other
#: owners: not known here.
GATED_OWNERS = frozenset({"meta-llama", "mistralai"})

#: Hub owners only some of whose models are gated, with a word the gated ones' names hold. Google's
#: Gemma models ask the account to accept Google's terms ("Repo model google/gemma-7b is gated",
#: https://github.com/LetheSec/HuggingFace-Download-Accelerator/issues/16, 2024-03-01; "Access to
#: model google/gemma-3-1b-it is restricted", https://github.com/cactus-compute/cactus/issues/197,
#: 2025-11-04; google/embeddinggemma-300m, https://github.com/vllm-project/semantic-router/issues/817,
#: 2025-12-12); its other models (ViT, T5, BERT checkpoints) download without a token.
GATED_NAMES = MappingProxyType({"google": "gemma"})


def gated(hub_id: str | None) -> bool | None:
    """Whether the Hub model ``hub_id`` is gated: True for an owner of :data:`GATED_OWNERS` or a
    model of :data:`GATED_NAMES`, None where not known (another owner: a fine-tune of Llama under
    another name may be gated too)."""
    if hub_id is None:
        return None
    owner, _, name = hub_id.lower().partition("/")
    if owner in GATED_OWNERS:
        return True
    word = GATED_NAMES.get(owner)
    return True if word is not None and word in name else None


def preset_identity(preset: str) -> ModelIdentity:
    """The preset called ``preset`` (already checked to exist): the checkpoint an engine loads of it
    (its instruction-tuned one where its published model is a pretrained base), family, positions."""
    from gpuplan.workload.presets.registry import PRESETS

    info = PRESETS.get(preset.strip().lower())
    if info is None:
        return _UNKNOWN
    base = HF_MODEL_IDS.get(info.name)
    instruct = INSTRUCT_MODEL_IDS.get(info.name)
    if instruct is not None:
        return ModelIdentity(instruct, info.family, info.max_seq_len, base_id=base, chat=True)
    chat = False if info.name in NO_CHAT_TEMPLATE else None
    return ModelIdentity(base, info.family, info.max_seq_len, chat=chat)


def recorded_identity(hub_id: object, family: object, positions: object) -> ModelIdentity:
    """The identity a plan file recorded of its ``hf_config`` model (``workload.model.hub_id``,
    ``family``, ``max_positions``), read as untrusted data: a Hub id only where it is one, a
    family only ``decoder``, positions only a whole number of at least 1."""
    whole = isinstance(positions, int) and not isinstance(positions, bool) and positions >= 1
    return ModelIdentity(
        hf_repo_id(hub_id) if isinstance(hub_id, str) else None,
        "decoder" if family == "decoder" else None,
        positions if whole else None,  # type: ignore[arg-type]  # an int where whole
    )


def config_identity(path: Path) -> ModelIdentity:
    """The config.json at ``path`` (a file or its folder): its ``_name_or_path`` where that is a
    Hub id, a decoder where one of its ``architectures`` is a causal LM, its
    ``max_position_embeddings`` (or kin). Unreadable, or a config that asks for code: all None."""
    return read_config_identity(path) or _UNKNOWN


def read_config_identity(path: Path) -> ModelIdentity | None:
    """:func:`config_identity`, None where the config cannot be read (missing, not JSON, a config
    that asks for code): a config read that names nothing is all None, one not read is not known."""
    from gpuplan.workload.hf_config import read_hf_config
    from gpuplan.workload.spec import hf_max_positions

    try:
        raw = read_hf_config(path)
    except (GpuplanError, OSError):
        return None
    name = raw.get("_name_or_path")
    hub_id = hf_repo_id(name) if isinstance(name, str) else None
    architectures = raw.get("architectures")
    causal = isinstance(architectures, list) and any(
        isinstance(a, str) and a.endswith("ForCausalLM") for a in architectures
    )
    return ModelIdentity(hub_id, "decoder" if causal else None, hf_max_positions(raw))
