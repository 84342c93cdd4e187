"""A diffusion UNet described as the user's own code, named as diffusers names its modules (the
stand-in in fixtures/unetproj needs no diffusers): its LoRA targets, its checkpointed blocks, its
samples counted as images, and a diffusers config.json given as an hf_config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gpuplan.errors import WorkloadError
from gpuplan.profile import trace
from gpuplan.workload import Workload
from gpuplan.workload.bundle import check_lora_targets
from one_line import answered, refused

UNET = Path(__file__).parent / "fixtures" / "unetproj" / "tiny-unet-lora.yaml"


def _unet(**lora: object) -> Workload:
    """The fixture's workload, from its project folder, with ``lora`` as its LoRA where given."""
    doc = Workload.from_yaml(UNET).model_dump(mode="json", exclude_none=True)
    doc["model"] = {"python": "tinyunet.model:build", "project_dir": str(UNET.parent)}
    if lora:
        doc["model"]["lora"] = lora
    return Workload.from_dict(doc)


def test_a_dotted_target_adapts_the_linear_it_ends_and_a_container_is_refused_with_its_name() -> None:
    # was: "'to_out.0' names no nn.Linear of this model" (targets matched the last name component
    # only), the layers listed as "0, 2, linear_1, …"
    p = trace(_unet(rank=8, targets=["to_out.0"]))
    # 5 transformer blocks (2 down, 3 up) × 2 attentions, each with one to_out.0
    assert any("on 10 linear layers" in n for n in p.notes), p.notes
    with pytest.raises(WorkloadError) as e:
        trace(_unet(rank=8, targets=["to_q", "to_out"]))
    assert str(e.value) == (
        "model.lora.targets: 'to_out' names a module that holds nn.Linear layers, not one; a LoRA "
        "adapter goes on an nn.Linear (as PEFT's target_modules): name 'to_out.0'"
    )


def test_targets_match_as_peft_matches_dotted_ends_of_qualified_names() -> None:
    from gpuplan.workload.bundle import lora_names

    names = ["down.0.attn1.to_q", "down.0.attn1.to_out.0", "down.0.ff.net.2", "ff.net.0.proj"]
    check_lora_targets(["to_out.0", "attn1.to_q", "net.2", "down.0.attn1.to_q"], names)
    # a shared end of two components is not a match: "o_q" is no component of "to_q"
    with pytest.raises(WorkloadError, match=r"'n1.to_q' names no nn.Linear"):
        check_lora_targets(["to_q", "n1.to_q"], names)
    # the names listed are ones a target can give: never a bare index
    assert lora_names(names) == ["net.2", "proj", "to_out.0", "to_q"]
    # the last components kept by profiles traced before still check the targets they took
    check_lora_targets(["q", "v"], ["k_proj", "o_proj", "q_proj", "v_proj"])


def test_checkpointing_keeps_the_blocks_attributes_the_unet_reads() -> None:
    # was: "AttributeError: 'Checkpointed' object has no attribute 'resnets'" under "traceback from
    # your code (not gpuplan's)": the wrapper hid the block's attributes from the UNet's forward
    p = trace(_unet())
    assert any("gradient checkpointing: 2 blocks recomputed in backward" in n for n in p.notes), p.notes


def test_an_attribute_missing_on_gpuplans_module_is_not_blamed_on_the_users_code(tmp_path: Path) -> None:
    from torch import nn

    from gpuplan.workload.adapt import LoRALinear
    from gpuplan.workload.user_code import user_error

    (tmp_path / "reads.py").write_text("def read(m):\n    return m.no_such_attribute\n", encoding="utf-8")
    code = compile((tmp_path / "reads.py").read_text(), str(tmp_path / "reads.py"), "exec")
    space: dict[str, object] = {}
    exec(code, space)
    adapted = LoRALinear(nn.Linear(4, 4), rank=2, alpha=2.0)
    with pytest.raises(AttributeError) as e:
        space["read"](adapted)  # type: ignore[operator]
    assert user_error(e.value, tmp_path, "tracing the model") is None
    with pytest.raises(AttributeError) as e:
        space["read"](object())  # type: ignore[operator]
    assert user_error(e.value, tmp_path, "tracing the model") is not None


def test_an_image_workload_counts_images(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: "batch 4" and "throughput (samples/s)"; with seq_len: 77, "batch 4 × 77 tokens" and tok/s
    monkeypatch.setenv("COLUMNS", "200")  # the table's header whole on one line (80 columns wrap it)
    out = answered(["estimate", str(UNET), "--gpu", "H100-SXM"], capsys)
    assert "batch 4 images of 128×128 px" in out
    assert "throughput (images/s)" in out and "samples/s" not in out and "tok/s" not in out


def test_a_diffusers_config_is_refused_in_one_line_pointing_to_own_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # was: "config.json takes tokens; give seq_len, not image_size", then transformers' "Should have
    # a `model_type` key"
    config = {"_class_name": "UNet2DConditionModel", "_diffusers_version": "0.30.0", "in_channels": 4}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "w.yaml").write_text(
        "name: sdxl\ntask: finetune\nmodel: {hf_config: config.json}\n"
        "inputs: {batch_size: 4, image_size: 1024}\n",
        encoding="utf-8",
    )
    line = refused(["estimate", str(tmp_path / "w.yaml"), "--gpu", "H100-SXM"], capsys)
    assert "is a diffusers config (UNet2DConditionModel)" in line
    assert "describe a diffusers model as your own code (model.python; README.md#diffusion-models)" in line
    assert "diffusion-models" in (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
