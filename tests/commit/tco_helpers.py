"""What the tco tests build their offers from."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpuplan.commit import PricedOffer
from stand_in_profiles import bert_large_profile

ROOT = Path(__file__).resolve().parents[2]


def trace_as_bert(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Every workload traces as BERT-Large (a recorded profile): no tracing in a tco test."""
    import gpuplan.profile

    monkeypatch.setattr(gpuplan.profile, "profile", lambda workload, cache=None: bert_large_profile(name))


def bert_workload(folder: Path, name: str, gpu: str, **constraints: object) -> str:
    """BERT-Large fine-tuning on ``gpu`` within 12 h at the least cost, with ``constraints``, written
    to ``folder/name``; its file name."""
    w = yaml.safe_load((ROOT / "examples" / "bert-large-squad.yaml").read_text())
    w["constraints"] = {"deadline": "12h", "objective": "cost", "gpus": [gpu], **constraints}
    (folder / name).write_text(yaml.safe_dump(w))
    return name


def priced_offer(
    region: str = "far", usd_per_hour: float = 1.0, pricing: str = "on_demand", **kw: object
) -> PricedOffer:
    """One GPU of provider ``p``'s instance ``i1`` (GPU ``G``) in ``region`` at ``usd_per_hour``."""
    return PricedOffer(
        provider="p",
        region=region,
        instance_type="i1",
        gpu="G",
        gpus_per_unit=1.0,
        pricing=pricing,
        usd_per_unit_hour=usd_per_hour,
        **kw,  # type: ignore[arg-type]
    )
