"""Vision models from a Hugging Face config.json, traced: parameters and FLOPs against published figures.

The published "GFLOPS" of vision models count one multiply-add as one operation (fvcore's and
torchvision's convention, what timm calls GMACs); the trace counts two, so a forward is 2 × the
published figure, and a training step about 3 × that (input and weight gradients).
Published figures: torchvision's model weights tables (``ViT_B_16_Weights.IMAGENET1K_V1``:
86,567,656 parameters, 17.56 GFLOPS; ``ConvNeXt_Tiny_Weights.IMAGENET1K_V1``: 28,589,128 and 4.456;
``Swin_T_Weights.IMAGENET1K_V1``: 28,288,354 and 4.49), the same architectures as transformers'
ViTForImageClassification, ConvNextForImageClassification and SwinForImageClassification with 1,000
labels. ConvNeXt paper (arXiv:2201.03545) Table 1 and Swin paper (arXiv:2103.14030) Table 1: 4.5 G.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuplan.profile import trace
from gpuplan.workload import Workload

pytest.importorskip("torch")
pytest.importorskip("transformers")

# google/vit-base-patch16-224's config.json, as published (its 1,000 labels given as num_labels).
VIT_B16 = {
    "architectures": ["ViTForImageClassification"], "model_type": "vit", "hidden_size": 768,
    "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "layer_norm_eps": 1e-12,
    "image_size": 224, "patch_size": 16, "num_channels": 3, "qkv_bias": True, "num_labels": 1000,
}  # fmt: skip
# facebook/convnext-tiny-224's, less num_stages (its depths say 4 stages), with stochastic depth on.
CONVNEXT_T = {
    "architectures": ["ConvNextForImageClassification"], "model_type": "convnext",
    "depths": [3, 3, 9, 3], "hidden_sizes": [96, 192, 384, 768], "hidden_act": "gelu",
    "image_size": 224, "patch_size": 4, "num_channels": 3, "layer_norm_eps": 1e-12,
    "layer_scale_init_value": 1e-6, "drop_path_rate": 0.1, "num_labels": 1000,
}  # fmt: skip
# microsoft/swin-tiny-patch4-window7-224's: per-stage heads, hidden_size derived from embed_dim.
SWIN_T = {
    "architectures": ["SwinForImageClassification"], "model_type": "swin", "embed_dim": 96,
    "depths": [2, 2, 6, 2], "num_heads": [3, 6, 12, 24], "window_size": 7, "mlp_ratio": 4.0,
    "image_size": 224, "patch_size": 4, "num_channels": 3, "drop_path_rate": 0.1, "num_labels": 1000,
}  # fmt: skip

# BEiT (microsoft/beit-base-patch16-224's layout: a relative-position bias table per layer, layer
# scale, mean pooling, no absolute positions) and the ViT of the same depth, width and patches,
# small: 32² images in 8² patches, 2 layers of width 64.
SMALL = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
         "image_size": 32, "patch_size": 8, "num_channels": 3, "num_labels": 10}  # fmt: skip
BEIT_SMALL = {"architectures": ["BeitForImageClassification"], "model_type": "beit", **SMALL,
              "use_relative_position_bias": True, "use_absolute_position_embeddings": False,
              "use_mean_pooling": True, "layer_scale_init_value": 0.1, "vocab_size": 8192}  # fmt: skip
VIT_SMALL = {"architectures": ["ViTForImageClassification"], "model_type": "vit", **SMALL}

# ViT-B/16 at 224²: 196 patches + the class token = 197 tokens; multiply-adds per image
#   12 layers × (12 · 768² · 197 [QKV, projection, MLP] + 2 · 197² · 768 [scores, values])
#   + 196 · 768 · (3 · 16 · 16) [patch embedding] + 768 · 1000 [head] = 17,563,067,136
VIT_B16_MACS = 12 * (12 * 768**2 * 197 + 2 * 197**2 * 768) + 196 * 768 * 768 + 768 * 1000


def _workload(tmp_path: Path, config: dict[str, Any], **over: Any) -> Workload:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return Workload.from_dict(
        {
            "name": "v",
            "task": "train",
            "model": {"hf_config": str(path)},
            "inputs": {"batch_size": 2, "image_size": 224},
            "optimizer": "adamw",
            **over,
        }
    )


def test_vit_b16_from_its_config_has_the_published_parameters_and_flops(tmp_path: Path) -> None:
    # The probe's failure: "transformers cannot build 'vit': aten._local_scalar_dense.default" (the
    # truncated-normal initialisation asked a fake tensor for a value).
    p = trace(_workload(tmp_path, VIT_B16))
    assert p.params == 86_567_656  # torchvision vit_b_16, 86.6 M
    assert p.shape.family == "vit" and p.shape.max_seq_len == 197
    assert pytest.approx(17.56e9, rel=2e-3) == VIT_B16_MACS  # the arithmetic is the published figure
    forward = 2 * VIT_B16_MACS * 2  # two FLOPs per multiply-add, batch 2
    assert p.forward_flops == pytest.approx(forward, rel=1e-3)
    # Backward: twice the forward's GEMMs (the patch embedding's input takes no gradient), and the
    # fused attention's backward recomputes the scores (2.5 × its forward, torch's formula).
    assert p.flops_per_step == pytest.approx(3 * forward, rel=0.02)


def test_vit_b16_from_its_config_traces_like_the_preset(tmp_path: Path) -> None:
    # The vit-b16 preset is torchvision's layout of the same network: the same parameters and FLOPs.
    hf = trace(_workload(tmp_path, VIT_B16))
    preset_workload = {
        "name": "p",
        "task": "train",
        "model": {"preset": "vit-b16"},
        "inputs": {"batch_size": 2, "image_size": 224},
        "optimizer": "adamw",
    }
    preset = trace(Workload.from_dict(preset_workload))
    assert hf.params == preset.params
    assert hf.flops_per_step == pytest.approx(preset.flops_per_step, rel=1e-3)


def test_a_vit_at_another_image_size_interpolates_its_positions(tmp_path: Path) -> None:
    # Fine-tuning at 384² a model configured for 224²: (384 / 16)² + 1 = 577 tokens.
    p = trace(_workload(tmp_path, VIT_B16, inputs={"batch_size": 1, "image_size": 384}, task="infer"))
    assert p.shape.max_seq_len == 577
    macs = 12 * (12 * 768**2 * 577 + 2 * 577**2 * 768) + 576 * 768 * 768 + 768 * 1000
    assert p.forward_flops == pytest.approx(2 * macs, rel=1e-3)
    assert any("interpolated from 224² to 384²" in n for n in p.notes), p.notes


@pytest.mark.parametrize(
    ("config", "params", "published_gmacs", "layers"),
    [(CONVNEXT_T, 28_589_128, 4.456, 18), (SWIN_T, 28_288_354, 4.49, 12)],
    ids=["convnext-t", "swin-t"],
)
def test_a_backbone_in_stages_has_the_published_parameters_and_flops(
    tmp_path: Path, config: dict[str, Any], params: int, published_gmacs: float, layers: int
) -> None:
    # ConvNeXt had failed on "has no 'num_hidden_layers'" and then on SDPA, which it has no use for.
    p = trace(_workload(tmp_path, config))
    assert p.params == params
    assert p.shape.num_layers == layers  # blocks, the sum of depths (not the 4 stages)
    assert p.forward_flops == pytest.approx(2 * published_gmacs * 1e9 * 2, rel=0.02)
    # 3 × forward: ConvNeXt's depthwise 7×7 convolutions counted by their groups in backward
    # (torch's formula made the step 2.9 × too large).
    assert p.flops_per_step == pytest.approx(3 * p.forward_flops, rel=0.02)


def test_a_model_without_attention_says_the_attention_setting_has_no_effect(tmp_path: Path) -> None:
    p = trace(_workload(tmp_path, CONVNEXT_T, task="infer", attention="eager"))
    assert p.shape.family == "cnn"
    assert any("has no attention layers" in n for n in p.notes), p.notes


def test_beit_traces_from_either_source_again_and_again_as_a_vit_of_its_shape(tmp_path: Path) -> None:
    # The failure: every trace of a BEiT after the first in a process (the estimate's own second
    # trace, the next workload, the service's next request) failed with "AssertionError: Mixing fake
    # modes NYI": transformers caches BEiT's relative-position index for the life of the process
    # (functools.lru_cache), and the first trace had left there a fake tensor of its own mode.
    inputs = {"batch_size": 2, "image_size": 32}
    from_config = trace(_workload(tmp_path, BEIT_SMALL, inputs=inputs))
    (tmp_path / "beitmodel.py").write_text(
        "from transformers import BeitConfig, BeitForImageClassification\n"
        f"def build():\n    return BeitForImageClassification(BeitConfig(**{BEIT_SMALL!r}))\n",
        encoding="utf-8",
    )
    from_code = trace(
        Workload.from_dict(
            {
                "name": "b",
                "task": "train",
                "model": {"python": "beitmodel:build", "project_dir": str(tmp_path)},
                "inputs": inputs,
                "optimizer": "adamw",
            }
        )
    )
    again = trace(_workload(tmp_path, BEIT_SMALL, inputs=inputs))
    (tmp_path / "vit").mkdir()
    vit = trace(_workload(tmp_path / "vit", VIT_SMALL, inputs=inputs))

    # BEiT's parameters are the ViT's less its 17·64 learned positions, its key projections' biases
    # (2·64) and its final LayerNorm (128, an identity under mean pooling), plus per layer a bias
    # table of (2·4 − 1)² + 3 relative distances × 4 heads and two layer scales of 64, and the
    # pooler's LayerNorm (128).
    beit_params = vit.params - 17 * 64 - 2 * 64 - 128 + 2 * ((7**2 + 3) * 4 + 2 * 64) + 128
    assert from_config.params == from_code.params == again.params == beit_params
    # The same multiply-adds as the ViT of its shape: 16 patches + the class token = 17 tokens,
    # 2 layers × ((4·64² + 2·64·128)·17 + 2·17²·64) + 16·64·(3·8·8) + 64·10 per image. Adding the
    # bias to the scores (4 heads × 17² per layer and image) and gathering it from the table are not
    # multiply-adds: no FLOPs, as torch's counter counts them.
    macs = 2 * ((4 * 64**2 + 2 * 64 * 128) * 17 + 2 * 17**2 * 64) + 16 * 64 * 3 * 8 * 8 + 64 * 10
    assert vit.forward_flops == 2 * macs * 2  # two FLOPs per multiply-add, batch 2
    assert from_config.forward_flops == from_code.forward_flops == again.forward_flops == vit.forward_flops
    assert from_config.flops_per_step == from_code.flops_per_step == again.flops_per_step
    assert from_config.flops_per_step == pytest.approx(vit.flops_per_step, rel=0.02)
