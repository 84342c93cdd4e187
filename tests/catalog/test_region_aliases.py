"""Region names a user in China types that are no region code: an Alibaba Cloud console name, a
city, a region of AWS China or Azure China. Each is refused with what to write, by ``offers`` and
``plan`` alike, never with the nearest spelling ("cn-north-1" → "eu-north-1", in Stockholm)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.cli import app
from gpuplan.errors import GpuplanError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.plan.constraints import Constraints
from gpuplan.plan.contradictions import check_regions

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("aliases") / "seeded.sqlite"
    open_store(str(path)).close()
    return str(path)


def _offers_error(db: str, region: str) -> str:
    result = runner.invoke(app, ["--db", db, "offers", "--region", region])
    assert result.exit_code != 0 and isinstance(result.exception, GpuplanError), result.output
    return str(result.exception)


def _plan_error(db: str, region: str) -> GpuplanError:
    store = open_store(db)
    try:
        with pytest.raises(GpuplanError) as caught:
            check_regions(Constraints(regions=(region,)), store)
    finally:
        store.close()
    return caught.value


@pytest.mark.parametrize(
    ("region", "said"),
    [
        ("华东1", "'华东1' is Alibaba Cloud's console name of 华东1（杭州）; did you mean 'cn-hangzhou'?"),
        ("华东1（杭州）", "is Alibaba Cloud's console name of 华东1（杭州）; did you mean 'cn-hangzhou'?"),
        ("华北 2", "is Alibaba Cloud's console name of 华北2（北京）; did you mean 'cn-beijing'?"),
        ("西南1(成都)", "did you mean 'cn-chengdu'?"),
        ("成都", "'成都' is a city, not a region: the catalog's regions there are alibaba/cn-chengdu, "),
        (
            "cn-north-1",
            "region 'cn-north-1' is AWS China's: AWS China and Azure China (operated by 21Vianet)",
        ),
        ("chinaeast2", "region 'chinaeast2' is Azure China's: "),
    ],
)
def test_offers_and_plan_say_what_the_name_is(db: str, region: str, said: str) -> None:
    offers = _offers_error(db, region)
    plan = str(_plan_error(db, region))
    assert said in offers and said in plan
    assert "did you mean 'eu-north-1'" not in offers and "asia-east2" not in offers


def test_the_china_clouds_and_console_names_read_in_chinese(db: str) -> None:
    with use_language("zh"):
        aws = error_text(_plan_error(db, "cn-north-1"))
        console = error_text(_plan_error(db, "华东1"))
        city = error_text(_plan_error(db, "成都"))
    assert (
        aws.startswith("地域 'cn-north-1' 属于 AWS 中国区：")
        and "世纪互联" in aws
        and "目录中两者都没有" in aws
    )
    assert console == "'华东1' 是阿里云控制台对华东1（杭州）的叫法；您是不是指 'cn-hangzhou'？"
    assert city.startswith("'成都' 是城市，不是地域：目录中位于该城市的地域有 alibaba/cn-chengdu、")


def test_a_region_code_and_a_typo_are_left_to_the_checks_after(db: str, tmp_path: Path) -> None:
    copy = tmp_path / "db.sqlite"
    shutil.copy(db, copy)
    ok = runner.invoke(app, ["--db", str(copy), "offers", "--region", "cn-hangzhou"])
    assert ok.exit_code == 0, ok.output
    # a console number Alibaba has not named is an unknown region, as any typo
    assert "unknown region '华东9'" in _offers_error(db, "华东9")
    plan = _plan_error(db, "华东9")
    assert str(plan).startswith("unknown region '华东9'")
    with use_language("zh"):
        # not "无法识别（其中没有报价）": unknown, yet said to have no offers "in it"
        assert "其中没有报价" not in error_text(plan)
