"""Chinese keeps 检查点 for the checkpoints a run saves and says 激活重计算 for activation
(gradient) checkpointing, which recomputes activations and saves nothing.

An outside test read "激活按推算：检查点 full" beside "检查点 95 次 × 22.5 分钟" in the same comparison
of estimate and plan: one word for two things, one of which costs 35.7 h and the other none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuplan.i18n import _, use_language

PO = Path(__file__).resolve().parents[2] / "src/gpuplan/i18n/locale/zh/LC_MESSAGES/gpuplan.po"
#: The messages whose subject is activation checkpointing (recomputation), not a saved checkpoint.
ACTIVATION = re.compile(
    r"activation (?:\(gradient\) )?checkpointing|checkpointing \{checkpointing\}|checkpoint per stage"
    r"|to checkpoint in this model|checkpoint every block|activation_checkpointing: (?:full|no |selective)",
    re.IGNORECASE,
)


def test_every_message_about_activation_checkpointing_says_recomputation_not_checkpoint() -> None:
    read_po = pytest.importorskip("babel.messages.pofile").read_po
    with PO.open("rb") as f:
        catalog = read_po(f)
    about = [(m.id, m.string) for m in catalog if isinstance(m.id, str) and m.id and ACTIVATION.search(m.id)]
    assert len(about) >= 7
    assert [mid for mid, text in about if "检查点" in text] == []
    # where it names the technique (not only the workload key), it is 激活重计算
    named = [text for mid, text in about if re.search(r"activation (?:\(gradient\) )?checkpointing", mid)]
    assert named and all("激活重计算" in text for text in named)


def test_the_compiled_catalog_says_it_and_keeps_checkpoint_for_saved_ones() -> None:
    with use_language("zh"):
        assert _("activation checkpointing") == "激活重计算"
        assert _("enable activation (gradient) checkpointing").startswith("开启激活重计算")
        note = _(
            "per-rank peak checked at the end of the forward pass (activations derived: checkpointing "
            "{checkpointing}; the {loss} loss's logits, {bytes:g} B per batch·seq·vocab element)"
        ).format(checkpointing="full", loss="standard", bytes=8)
        assert "激活重计算 full" in note and "检查点" not in note
        # a saved checkpoint is still 检查点
        saved = _("checkpoints: every {interval} min ({basis}): {writes} × {write} = {time}, {amount}")
        assert saved.startswith("检查点")
