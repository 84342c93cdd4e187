"""The Hugging Face Hub checkpoints of the presets: the published model each reproduces, the
instruction-tuned sibling an engine serves in its place, and those without a chat template.

They live with the presets so that a workload naming weights (``model.hub_id``) is checked against
them when it is read: another preset's checkpoint is another architecture (deploy reads the same
tables, :mod:`gpuplan.deploy.hub`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "CHECKPOINT_DTYPES",
    "HF_MODEL_IDS",
    "INSTRUCT_MODEL_IDS",
    "NO_CHAT_TEMPLATE",
    "checkpoint_dtype",
    "preset_of_checkpoint",
]

#: Preset -> the Hub model whose weights it reproduces (each the id its registry ``source`` names;
#: the GPT-2 checkpoints moved under ``openai-community/`` on the Hub, their old bare ids redirect).
HF_MODEL_IDS: Mapping[str, str] = MappingProxyType(
    {
        "gpt2": "openai-community/gpt2",
        "gpt2-medium": "openai-community/gpt2-medium",
        "gpt2-large": "openai-community/gpt2-large",
        "gpt2-xl": "openai-community/gpt2-xl",
        "llama-1b": "meta-llama/Llama-3.2-1B",
        "llama-3b": "meta-llama/Llama-3.2-3B",
        "llama-7b": "meta-llama/Llama-2-7b-hf",
        "llama-8b": "meta-llama/Llama-3.1-8B",
        "llama-13b": "meta-llama/Llama-2-13b-hf",
        "llama-70b": "meta-llama/Llama-3.1-70B",
        "qwen3-0.6b": "Qwen/Qwen3-0.6B",
        "qwen3-14b": "Qwen/Qwen3-14B",
        "qwen2.5-7b": "Qwen/Qwen2.5-7B",
        "qwen2.5-14b": "Qwen/Qwen2.5-14B",
        "qwen2.5-32b": "Qwen/Qwen2.5-32B",
        "qwen2.5-72b": "Qwen/Qwen2.5-72B",
        "mistral-7b": "mistralai/Mistral-7B-Instruct-v0.3",
    }
)

#: Preset -> the instruction-tuned checkpoint Meta published of its base model's architecture (the
#: same config.json but for its generation settings), which an engine serves: the base is a
#: pretrained model for completion and fine-tuning, not for chat (Meta's model cards; Llama 3.2's
#: base tokenizer_config.json defines no chat_template, sgl-project/sglang issue 3385, 2025-02-10;
#: "Llama-3.1-8B quickstart shows base model, should recommend Instruct variant for chat",
#: tenstorrent/tt-inference-server issue 4028, 2026-06-05). Each id is the Hub model of Meta's
#: collection of that release.
INSTRUCT_MODEL_IDS: Mapping[str, str] = MappingProxyType(
    {
        "llama-1b": "meta-llama/Llama-3.2-1B-Instruct",
        "llama-3b": "meta-llama/Llama-3.2-3B-Instruct",
        "llama-7b": "meta-llama/Llama-2-7b-chat-hf",
        "llama-8b": "meta-llama/Llama-3.1-8B-Instruct",
        "llama-13b": "meta-llama/Llama-2-13b-chat-hf",
        "llama-70b": "meta-llama/Llama-3.1-70B-Instruct",
        # Qwen's instruction-tuned Qwen2.5 checkpoints (the Qwen2.5 collection on the Hub)
        "qwen2.5-7b": "Qwen/Qwen2.5-7B-Instruct",
        "qwen2.5-14b": "Qwen/Qwen2.5-14B-Instruct",
        "qwen2.5-32b": "Qwen/Qwen2.5-32B-Instruct",
        "qwen2.5-72b": "Qwen/Qwen2.5-72B-Instruct",
    }
)

#: Presets whose checkpoint's tokenizer defines no chat template and that have no instruction-tuned
#: sibling: GPT-2 (2019) predates chat templates (openai-community/gpt2, tokenizer_config.json has
#: none), so an engine refuses chat requests to it and a batch job sends it plain completions.
NO_CHAT_TEMPLATE = frozenset({"gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"})


#: Checkpoint -> the dtype its weights are stored in on the Hub: the ``torch_dtype`` of its
#: config.json (huggingface.co/<id>/blob/main/config.json; table written 2026-12-06). Meta published
#: Llama 2 in float16 and Llama 3.x in bfloat16; Qwen2.5, Qwen3 and Mistral-7B-Instruct-v0.3 are
#: bfloat16. A serving engine downloads these files as they are, whatever precision it then runs
#: in. GPT-2's config.json names none (its weights are fp32): not listed, so not known.
CHECKPOINT_DTYPES: Mapping[str, str] = MappingProxyType(
    {
        "meta-llama/Llama-3.2-1B": "bfloat16",
        "meta-llama/Llama-3.2-1B-Instruct": "bfloat16",
        "meta-llama/Llama-3.2-3B": "bfloat16",
        "meta-llama/Llama-3.2-3B-Instruct": "bfloat16",
        "meta-llama/Llama-2-7b-hf": "float16",
        "meta-llama/Llama-2-7b-chat-hf": "float16",
        "meta-llama/Llama-3.1-8B": "bfloat16",
        "meta-llama/Llama-3.1-8B-Instruct": "bfloat16",
        "meta-llama/Llama-2-13b-hf": "float16",
        "meta-llama/Llama-2-13b-chat-hf": "float16",
        "meta-llama/Llama-3.1-70B": "bfloat16",
        "meta-llama/Llama-3.1-70B-Instruct": "bfloat16",
        "Qwen/Qwen3-0.6B": "bfloat16",
        "Qwen/Qwen3-14B": "bfloat16",
        "Qwen/Qwen2.5-7B": "bfloat16",
        "Qwen/Qwen2.5-7B-Instruct": "bfloat16",
        "Qwen/Qwen2.5-14B": "bfloat16",
        "Qwen/Qwen2.5-14B-Instruct": "bfloat16",
        "Qwen/Qwen2.5-32B": "bfloat16",
        "Qwen/Qwen2.5-32B-Instruct": "bfloat16",
        "Qwen/Qwen2.5-72B": "bfloat16",
        "Qwen/Qwen2.5-72B-Instruct": "bfloat16",
        "mistralai/Mistral-7B-Instruct-v0.3": "bfloat16",
    }
)


def checkpoint_dtype(hub_id: str) -> str | None:
    """The dtype the Hub checkpoint ``hub_id`` stores its weights in (:data:`CHECKPOINT_DTYPES`,
    matched without regard to case); None where not known here."""
    wanted = hub_id.strip().lower()
    return next((d for c, d in CHECKPOINT_DTYPES.items() if c.lower() == wanted), None)


def preset_of_checkpoint(hub_id: str) -> str | None:
    """The preset whose published or instruction-tuned checkpoint ``hub_id`` is (the Hub's ids are
    matched without regard to case), None for any other."""
    wanted = hub_id.strip().lower()
    for table in (HF_MODEL_IDS, INSTRUCT_MODEL_IDS):
        for preset, checkpoint in table.items():
            if checkpoint.lower() == wanted:
                return preset
    return None
