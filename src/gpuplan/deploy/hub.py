"""Which Hugging Face Hub model a workload's model is: what a serving engine loads by its id.

A preset reproduces a published model's shape; where that model's weights are on the Hub under the
id its ``source`` names, the engine serves those weights (the shape the plan priced). Presets that
reproduce a paper's table (GPT-3, Megatron-LM) or a training recipe (OLMo-core) have no such
weights: none here. A ``model.hf_config`` names its Hub id in its own ``_name_or_path`` key, which
transformers writes when it saves a config; a config without one (or with a local path there) has
none. The user's own code (``model.python``) has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from gpuplan.deploy.grammar import hf_repo_id
from gpuplan.errors import GpuplanError

__all__ = ["HF_MODEL_IDS", "config_identity", "context_limit", "preset_identity"]

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
        "mistral-7b": "mistralai/Mistral-7B-Instruct-v0.3",
    }
)


def preset_identity(preset: str) -> tuple[str | None, str | None]:
    """(Hub id or None, family) of the preset called ``preset`` (already checked to exist)."""
    from gpuplan.workload.presets.registry import PRESETS

    info = PRESETS.get(preset.strip().lower())
    if info is None:
        return None, None
    return HF_MODEL_IDS.get(info.name), info.family


def context_limit(preset: str | None, config: Path | None) -> int | None:
    """The positions the model takes (its preset's, or its config.json's ``max_position_embeddings``
    or kin), the longest request a serving engine of it accepts; None: not stated or unreadable."""
    if preset is not None:
        from gpuplan.workload.presets.registry import PRESETS

        info = PRESETS.get(preset.strip().lower())
        return info.max_seq_len if info is not None else None
    if config is None:
        return None
    from gpuplan.workload.hf_config import read_hf_config
    from gpuplan.workload.spec import hf_max_positions

    try:
        return hf_max_positions(read_hf_config(config))
    except (GpuplanError, OSError):
        return None


def config_identity(path: Path) -> tuple[str | None, str | None]:
    """(Hub id or None, ``"decoder"`` or None) of the config.json at ``path`` (a file or its
    folder): its ``_name_or_path`` where that is a Hub id, and a decoder where one of its
    ``architectures`` is a causal LM. Unreadable, or a config that asks for code: (None, None)."""
    from gpuplan.workload.hf_config import read_hf_config

    try:
        raw = read_hf_config(path)
    except (GpuplanError, OSError):
        return None, None
    name = raw.get("_name_or_path")
    hub_id = hf_repo_id(name) if isinstance(name, str) else None
    architectures = raw.get("architectures")
    causal = isinstance(architectures, list) and any(
        isinstance(a, str) and a.endswith("ForCausalLM") for a in architectures
    )
    return hub_id, "decoder" if causal else None
