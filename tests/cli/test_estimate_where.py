"""``gpuplan estimate --providers/--regions/--countries``: the advice's other GPUs are priced where
the team can run them, as plan's options say it (a Beijing team's OOM advice had named an undated
Taiwanese marketplace's L40S); a misspelt place is refused in one line before anything is traced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from gpuplan.errors import NotFoundError, UnknownChoiceError
from gpuplan.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class _Traced(Exception):
    pass


def test_the_places_given_become_the_workloads_constraints(
    monkeypatch: pytest.MonkeyPatch, fresh_catalog: Path
) -> None:
    seen: dict[str, Any] = {}

    def stop(workload: Any, *args: object, **kw: object) -> None:
        seen["constraints"] = workload.constraints
        raise _Traced

    monkeypatch.setattr(estimate_cmds, "load_profile", stop)
    r = CliRunner().invoke(
        app,
        ["--db", str(fresh_catalog), "estimate", str(EXAMPLES / "resnet50-imagenet.yaml"), "--gpu", "A10",
         "--countries", "CN,中国", "--providers", "Alibaba,tencent", "--region", "cn-beijing"],
    )  # fmt: skip
    assert isinstance(r.exception, _Traced), r.output
    c = seen["constraints"]
    assert c.providers == ("alibaba", "tencent") and c.countries == ("cn", "中国")
    assert c.regions == ("cn-beijing",)


def test_a_misspelt_place_is_refused_with_the_nearest() -> None:
    w = load_workload(EXAMPLES / "resnet50-imagenet.yaml")
    with pytest.raises(NotFoundError, match="china"):
        w.placed(countries=["Chian"])
    with pytest.raises(UnknownChoiceError, match="alibaba"):
        w.placed(providers=["alibab"])
    assert w.placed() is w
