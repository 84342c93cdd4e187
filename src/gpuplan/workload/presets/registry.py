"""The preset catalogue: names, architecture numbers and where each builder lives.

Torch-free on purpose: the workload spec validates ``seq_len`` against a preset's maximum without
importing torch. The builders (``presets/<family>.py``) import torch and are loaded only to trace.
"""

from __future__ import annotations

from types import ModuleType

from gpuplan.errors import NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed
from gpuplan.workload.presets.info import Arch, Family, PresetInfo

__all__ = ["PRESETS", "Arch", "Family", "PresetInfo", "get_preset"]


def _gpt2() -> ModuleType:
    from gpuplan.workload.presets import gpt2

    return gpt2


def _llama() -> ModuleType:
    from gpuplan.workload.presets import llama

    return llama


def _bert() -> ModuleType:
    from gpuplan.workload.presets import bert

    return bert


def _t5() -> ModuleType:
    from gpuplan.workload.presets import t5

    return t5


def _vit() -> ModuleType:
    from gpuplan.workload.presets import vit

    return vit


def _resnet() -> ModuleType:
    from gpuplan.workload.presets import resnet

    return resnet


#: GPT-2's dropouts: transformers' GPT2Config defaults (resid_pdrop, embd_pdrop, attn_pdrop = 0.1),
#: as the published gpt2* configs keep them; FlashAttention's GPT-3 training configs build their
#: models from GPT2Config with these defaults (Dao-AILab/flash-attention training/configs/model/gpt2.yaml
#: @0bf5e500, read 2026-12-01).
_GPT2_DROPOUT = 0.1


def _gpt2_arch(layers: int, hidden: int, heads: int) -> Arch:
    return Arch(
        layers=layers, hidden=hidden, heads=heads, kv_heads=heads, head_dim=hidden // heads,
        intermediate=4 * hidden, vocab=50257, max_positions=1024, tied_head=True,
        dropout=_GPT2_DROPOUT, attention_dropout=_GPT2_DROPOUT,
    )  # fmt: skip


def _megatron_gpt_arch(layers: int, hidden: int, heads: int) -> Arch:
    # Narayanan et al. (SC21, arXiv:2104.04473) Table 1: GPT-2 architecture, vocabulary padded to
    # 51,200, 2,048 learned positions, output layer tied to the input embedding (Megatron's default);
    # Megatron-LM's default dropouts (megatron/arguments.py: --hidden-dropout 0.1, --attention-dropout
    # 0.1), which the SC21 artifact scripts (examples/sc21/run_table_1.sh @79a3bb6b) do not change.
    return Arch(
        layers=layers, hidden=hidden, heads=heads, kv_heads=heads, head_dim=hidden // heads,
        intermediate=4 * hidden, vocab=51200, max_positions=2048, tied_head=True,
        dropout=0.1, attention_dropout=0.1,
    )  # fmt: skip


def _megatron_params(layers: int, hidden: int) -> int:
    # Embeddings V·h + positions 2048·h, per layer 12h² + 13h (QKV, projection, two MLP matmuls
    # with biases, two layer norms), the final layer norm 2h.
    return 51200 * hidden + 2048 * hidden + layers * (12 * hidden**2 + 13 * hidden) + 2 * hidden


def _megatron(size: str, layers: int, hidden: int, heads: int) -> PresetInfo:
    return PresetInfo(
        name=f"megatron-gpt-{size}", family="decoder", modality="text", loader=_gpt2,
        expected_params=_megatron_params(layers, hidden),
        source=f"GPT {size.upper()} of Megatron-LM SC21 Table 1 (arXiv:2104.04473): {layers} layers, "
        f"hidden {hidden}, {heads} heads",
        arch=_megatron_gpt_arch(layers, hidden, heads),
    )  # fmt: skip


#: Learned positions of the GPT-3 presets: enough for the 8k-context runs of FlashAttention-2's
#: Table 1 (its 2k runs had 2,048: the extra 6,144·h parameters are ~1 % of the model).
_GPT3_POSITIONS = 8192


def _gpt3(size: str, layers: int, hidden: int, heads: int) -> PresetInfo:
    # GPT-3 paper (arXiv:2005.14165) Table 2.1 layers and width; heads as FlashAttention's GPT
    # configs have them (Dao-AILab/flash-attention training/configs/experiment/pile/gpt3xl-flash.yaml:
    # n_head 16; gpt3-2.7B-flash.yaml: n_head 32), GPT-2 vocabulary 50,257, tied output layer.
    positions = _GPT3_POSITIONS
    params = 50257 * hidden + positions * hidden + layers * (12 * hidden**2 + 13 * hidden) + 2 * hidden
    return PresetInfo(
        name=f"gpt3-{size}", family="decoder", modality="text", loader=_gpt2, expected_params=params,
        source=f"GPT-3 {size.upper()} (GPT-2 architecture, arXiv:2005.14165 Table 2.1): {layers} layers, "
        f"hidden {hidden}, {heads} heads, {positions} positions",
        arch=Arch(
            layers=layers, hidden=hidden, heads=heads, kv_heads=heads, head_dim=hidden // heads,
            intermediate=4 * hidden, vocab=50257, max_positions=positions, tied_head=True,
            dropout=_GPT2_DROPOUT, attention_dropout=_GPT2_DROPOUT,
        ),
    )  # fmt: skip


def _llama_arch(
    layers: int, hidden: int, heads: int, kv_heads: int, inter: int, vocab: int, max_pos: int, **kw: object
) -> Arch:
    return Arch(
        layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=hidden // heads,
        intermediate=inter, vocab=vocab, max_positions=max_pos, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def _qwen25(
    size: str, layers: int, hidden: int, heads: int, kv_heads: int, inter: int, params: int
) -> PresetInfo:
    """A Qwen2.5 dense model from its config.json on the Hugging Face Hub (``Qwen/Qwen2.5-<size>``):
    vocab 152,064, untied head, RoPE θ 1e6, RMSNorm ε 1e-6, 32,768 positions."""
    return PresetInfo(
        name=f"qwen2.5-{size}", family="decoder", modality="text", loader=_llama, expected_params=params,
        source=f"Qwen/Qwen2.5-{size.upper()} config.json ({layers} layers, {hidden}, GQA {heads}/{kv_heads}, "
               f"FFN {inter}, vocab 152,064, untied head; q/k/v biases not traced)",
        arch=_llama_arch(layers, hidden, heads, kv_heads, inter, 152064, 32768, rope_theta=1e6,
                         norm_eps=1e-6),
    )  # fmt: skip


# Dropouts as the published configs set them: bert-base/large-uncased config.json
# hidden_dropout_prob and attention_probs_dropout_prob 0.1, t5-base dropout_rate 0.1; torchvision's
# vit_b_16 (dropout 0.0, attention_dropout 0.0), ResNets and the Llama/OLMo configs (attention_dropout
# 0.0) have none.
_L3 = {"rope_theta": 500000.0}
_TIED_L3 = {"rope_theta": 500000.0, "tied_head": True}

PRESETS: dict[str, PresetInfo] = {
    p.name: p
    for p in (
        PresetInfo(
            name="resnet50", family="cnn", modality="image", loader=_resnet, expected_params=25_557_032,
            source="ResNet-50 v1.5 (torchvision resnet50)", arch=Arch(layers=16, stage_blocks=(3, 4, 6, 3)),
        ),
        PresetInfo(
            name="resnet101", family="cnn", modality="image", loader=_resnet, expected_params=44_549_160,
            source="ResNet-101 v1.5 (torchvision resnet101)",
            arch=Arch(layers=33, stage_blocks=(3, 4, 23, 3)),
        ),
        PresetInfo(
            name="vit-b16", family="vit", modality="image", loader=_vit, expected_params=86_567_656,
            source="ViT-B/16 at 224² (torchvision vit_b_16)",
            arch=Arch(layers=12, hidden=768, heads=12, kv_heads=12, head_dim=64, intermediate=3072,
                      norm_eps=1e-6),
        ),
        PresetInfo(
            name="bert-base", family="encoder", modality="text", loader=_bert, expected_params=109_514_298,
            source="bert-base-uncased (BertForMaskedLM for train, BertForQuestionAnswering for finetune)",
            arch=Arch(layers=12, hidden=768, heads=12, kv_heads=12, head_dim=64, intermediate=3072,
                      vocab=30522, max_positions=512, tied_head=True, norm_eps=1e-12,
                      dropout=0.1, attention_dropout=0.1),
        ),
        PresetInfo(
            name="bert-large", family="encoder", modality="text", loader=_bert, expected_params=335_174_458,
            source="bert-large-uncased (BertForMaskedLM for train, BertForQuestionAnswering for finetune)",
            arch=Arch(layers=24, hidden=1024, heads=16, kv_heads=16, head_dim=64, intermediate=4096,
                      vocab=30522, max_positions=512, tied_head=True, norm_eps=1e-12,
                      dropout=0.1, attention_dropout=0.1),
        ),
        PresetInfo(
            name="t5-base", family="encoder-decoder", modality="text", loader=_t5,
            expected_params=222_903_552,
            source="t5-base (T5ForConditionalGeneration, v1.0: ReLU, tied head)",
            arch=Arch(layers=12, hidden=768, heads=12, kv_heads=12, head_dim=64, intermediate=3072,
                      vocab=32128, max_positions=None, tied_head=True, norm_eps=1e-6,
                      dropout=0.1, attention_dropout=0.1),
        ),
        PresetInfo(name="gpt2", family="decoder", modality="text", loader=_gpt2, expected_params=124_439_808,
                   source="gpt2 (124M)", arch=_gpt2_arch(12, 768, 12)),
        PresetInfo(name="gpt2-medium", family="decoder", modality="text", loader=_gpt2,
                   expected_params=354_823_168, source="gpt2-medium (355M)", arch=_gpt2_arch(24, 1024, 16)),
        PresetInfo(name="gpt2-large", family="decoder", modality="text", loader=_gpt2,
                   expected_params=774_030_080, source="gpt2-large (774M)", arch=_gpt2_arch(36, 1280, 20)),
        PresetInfo(name="gpt2-xl", family="decoder", modality="text", loader=_gpt2,
                   expected_params=1_557_611_200, source="gpt2-xl (1.5B)", arch=_gpt2_arch(48, 1600, 25)),
        _gpt3("1.3b", 24, 2048, 16),
        _gpt3("2.7b", 32, 2560, 32),
        _megatron("1.7b", 24, 2304, 24),
        _megatron("3.6b", 30, 3072, 32),
        _megatron("7.5b", 36, 4096, 32),
        _megatron("18.4b", 40, 6144, 48),
        _megatron("39.1b", 48, 8192, 64),
        _megatron("76.1b", 60, 10240, 80),
        PresetInfo(name="llama-1b", family="decoder", modality="text", loader=_llama,
                   expected_params=1_235_814_400, source="meta-llama/Llama-3.2-1B (GQA 32/8, tied head)",
                   arch=_llama_arch(16, 2048, 32, 8, 8192, 128256, 131072, **_TIED_L3)),
        PresetInfo(name="llama-3b", family="decoder", modality="text", loader=_llama,
                   expected_params=3_212_749_824, source="meta-llama/Llama-3.2-3B (GQA 24/8, tied head)",
                   arch=_llama_arch(28, 3072, 24, 8, 8192, 128256, 131072, **_TIED_L3)),
        PresetInfo(name="llama-7b", family="decoder", modality="text", loader=_llama,
                   expected_params=6_738_415_616, source="meta-llama/Llama-2-7b-hf (MHA, untied head)",
                   arch=_llama_arch(32, 4096, 32, 32, 11008, 32000, 4096)),
        PresetInfo(name="llama-8b", family="decoder", modality="text", loader=_llama,
                   expected_params=8_030_261_248, source="meta-llama/Llama-3.1-8B (GQA 32/8, untied head)",
                   arch=_llama_arch(32, 4096, 32, 8, 14336, 128256, 131072, **_L3)),
        PresetInfo(name="llama-13b", family="decoder", modality="text", loader=_llama,
                   expected_params=13_015_864_320, source="meta-llama/Llama-2-13b-hf (MHA, untied head)",
                   arch=_llama_arch(40, 5120, 40, 40, 13824, 32000, 4096)),
        # OLMo-core's training configs (allenai/OLMo-core@e27ba74550f1 src/olmo_core/nn/transformer/
        # config.py, 2024-11-05): Llama-like blocks (SwiGLU, RoPE θ 500,000, untied head) with the
        # dolma2 tokenizer's 100,278 tokens padded to 100,352. OLMo-2 ("OLMo-1124") also normalises q
        # and k (QK-norm) and puts each block's norms after attention/MLP ("reordered_norm"): traced
        # here as the Llama block (pre-norm, no QK-norm), two RMSNorms per layer fewer.
        PresetInfo(name="olmo-core-1b", family="decoder", modality="text", loader=_llama,
                   expected_params=1_335_961_600,
                   source="OLMo-core olmo_1B = llama2_1B (18 layers, 2048, 16 heads MHA, FFN 5632), "
                          "vocab 100,352",
                   arch=_llama_arch(18, 2048, 16, 16, 5632, 100352, 4096, **_L3)),
        # Qwen3 dense models and Mistral-7B v0.3 (their config.json on the Hugging Face Hub,
        # Qwen/Qwen3-0.6B, Qwen/Qwen3-14B, mistralai/Mistral-7B-Instruct-v0.3): Llama blocks with GQA.
        # Qwen3 also normalises q and k per head (QK-norm, 2 × head_dim weights per layer), traced
        # here as the Llama block without it; its head_dim is 128 whatever hidden/heads is.
        PresetInfo(name="qwen3-0.6b", family="decoder", modality="text", loader=_llama,
                   expected_params=596_042_752,  # 596,049,920 published, less 28 × 2 × 128 QK-norm
                   source="Qwen/Qwen3-0.6B config.json (28 layers, 1024, GQA 16/8, head_dim 128, FFN 3072, "
                          "vocab 151,936, tied head; QK-norm not traced)",
                   arch=Arch(layers=28, hidden=1024, heads=16, kv_heads=8, head_dim=128, intermediate=3072,
                             vocab=151936, max_positions=40960, tied_head=True, rope_theta=1e6,
                             norm_eps=1e-6)),
        PresetInfo(name="qwen3-14b", family="decoder", modality="text", loader=_llama,
                   expected_params=14_768_296_960,  # 14,768,307,200 published, less 40 × 2 × 128 QK-norm
                   source="Qwen/Qwen3-14B config.json (40 layers, 5120, GQA 40/8, head_dim 128, FFN 17408, "
                          "vocab 151,936, untied head; QK-norm not traced)",
                   arch=Arch(layers=40, hidden=5120, heads=40, kv_heads=8, head_dim=128, intermediate=17408,
                             vocab=151936, max_positions=40960, rope_theta=1e6, norm_eps=1e-6)),
        # Qwen2.5 dense models (their config.json on the Hugging Face Hub, Qwen/Qwen2.5-7B, -14B, -32B
        # and -72B, the configuration shared by their -Instruct checkpoints but for the context
        # length): Llama blocks with GQA, head_dim 128, vocab 152,064, untied head, RoPE θ 1e6. The
        # q/k/v projections carry biases (layers × (heads + 2 × kv_heads) × 128 parameters), traced
        # here as the Llama block without them; the published totals (model cards: 7.61B, 14.7B,
        # 32.5B, 72.7B) are these plus the biases.
        _qwen25("7b", 28, 3584, 28, 4, 18944, 7_615_487_488),  # 7,615,616,512 with the biases
        _qwen25("14b", 48, 5120, 40, 8, 13824, 14_769_689_600),  # 14,770,033,664 with them
        _qwen25("32b", 64, 5120, 40, 8, 27648, 32_763_417_600),  # 32,763,876,352 with them
        _qwen25("72b", 80, 8192, 64, 8, 29568, 72_705_384_448),  # 72,706,203,648 with them
        PresetInfo(name="mistral-7b", family="decoder", modality="text", loader=_llama,
                   expected_params=7_248_023_552,
                   source="mistralai/Mistral-7B-Instruct-v0.3 config.json (32 layers, 4096, GQA 32/8, "
                          "FFN 14336, vocab 32,768, untied head)",
                   arch=_llama_arch(32, 4096, 32, 8, 14336, 32768, 32768, rope_theta=1e6)),
        PresetInfo(name="olmo2-7b", family="decoder", modality="text", loader=_llama,
                   expected_params=7_298_355_200,
                   source="OLMo-core olmo_7B = llama2_7B (32 layers, 4096, 32 heads MHA, FFN 11008), "
                          "vocab 100,352",
                   arch=_llama_arch(32, 4096, 32, 32, 11008, 100352, 4096, **_L3)),
        PresetInfo(name="olmo2-13b", family="decoder", modality="text", loader=_llama,
                   expected_params=13_715_788_800,
                   source="OLMo-core olmo_13B = llama2_13B (40 layers, 5120, 40 heads MHA, FFN 13824), "
                          "vocab 100,352",
                   arch=_llama_arch(40, 5120, 40, 40, 13824, 100352, 4096, **_L3)),
        PresetInfo(name="olmo-core-llama3-8b", family="decoder", modality="text", loader=_llama,
                   expected_params=7_801_671_680,
                   source="OLMo-core llama3_8B (the Llama-3-8B blocks: GQA 32/8, FFN 14336) with "
                          "vocab 100,352",
                   arch=_llama_arch(32, 4096, 32, 8, 14336, 100352, 8192, **_L3)),
        # NB: the 70B preset is Llama-3.1-70B (GQA 64/8, 128K vocabulary), the one teams fine-tune
        # today; Llama-2-70B has the same blocks but a 32K vocabulary (68.98B parameters).
        PresetInfo(name="llama-70b", family="decoder", modality="text", loader=_llama,
                   expected_params=70_553_706_496, source="meta-llama/Llama-3.1-70B (GQA 64/8, untied head)",
                   arch=_llama_arch(80, 8192, 64, 8, 28672, 128256, 131072, **_L3)),
    )
}  # fmt: skip


def get_preset(name: str) -> PresetInfo:
    """The preset called ``name`` (case-insensitive); NotFoundError with suggestions otherwise."""
    info = PRESETS.get(name.strip().lower())
    if info is None:
        hint = Phrase(
            N_(
                "known presets: {names}; any other model: model: {{hf_config: config.json}} or "
                "model: {{python: …}}"
            ),
            names=listed(PRESETS),
        )
        raise NotFoundError("preset", name, PRESETS, hint=hint)
    return info
