"""``simulate share`` names its ways of sharing a GPU in the reader's language: 整卡、MIG、时间片、MPS
in Chinese, where the Chinese table and summary had shown the identifiers (``time-slice``,
``mps-1/2``). The identifiers stay in English output, in JSON and where the user types them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.i18n.messages import use_language
from gpuplan.vocab import sharing_name

SERVICES = Path(__file__).resolve().parents[2] / "examples" / "simulate" / "services.yaml"

runner = CliRunner()


def _share(sharing: str, *extra: str) -> str:
    args = ["simulate", "share", str(SERVICES), "--sharing", sharing, "--price", "2", *extra]
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_each_way_and_slice_has_its_chinese_name_and_its_code_in_english() -> None:
    ways = ("whole", "mig", "time-slice", "mps", "mps-1/3", "3g.40gb")
    assert [sharing_name(w) for w in ways] == list(ways)
    with use_language("zh"):
        assert [sharing_name(w) for w in ways] == ["整卡", "MIG", "时间片", "MPS", "MPS 1/3", "3g.40gb"]


@pytest.mark.parametrize(
    ("sharing", "said"), [("time-slice", "时间片"), ("mps", "MPS 1/"), ("whole", "整卡")]
)
def test_the_chinese_share_table_names_the_way_in_chinese(sharing: str, said: str) -> None:
    zh = _share(sharing, "--lang", "zh")
    assert said in zh and sharing not in zh, zh
    # the English table and the JSON keep the identifier
    assert sharing in _share(sharing, "--lang", "en")
    doc = json.loads(_share(sharing, "--lang", "zh", "--json"))
    assert doc["sharing"] == sharing and all(sharing in s["slice"] for s in doc["services"]), doc["services"]
