"""A plan's price source says gpuplan's own words in the reader's language, as tco's does: a
Chinese plan had left "(the rate in the file, USD = CNY × 0.138, is not used: …)" and "in the
SkyPilot-format catalog" in English in the line tco already said in Chinese."""

from __future__ import annotations

from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.i18n import use_language
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.report.plan_view import price_words

#: A shipped Alibaba row's source, as the catalog stores it (in English).
SOURCE = (
    "Alibaba Cloud ECS hourly prices (DescribePrice) in the SkyPilot-format catalog "
    "github.com/sugarlxn/skypilot-catalog catalogs/v8/alicloud/vms.csv @003c56a, rows copied to "
    "tools/skypilot_fork/alicloud_v8_vms_cn.csv, line 120 (the rate in the file, USD = CNY × 0.138, "
    "is not used: kept in CNY and converted at the dated rate of the catalog)"
)


def test_a_plans_price_source_says_our_words_in_chinese_and_keeps_the_publishers() -> None:
    option = plan_offers(
        OfferTable.from_rows([offer(source=SOURCE)]),
        CostFacts([aws_costs()]),
        JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1")),
        toy_estimator(),
        Constraints(),
    ).recommended
    assert option.price_source == SOURCE
    with use_language("zh"):
        zh = price_words(option)
    assert "（不使用文件自带的汇率 USD = CNY × 0.138：价格按 CNY 保存，按目录中注明日期的汇率换算）" in zh, zh
    assert "，载于 SkyPilot 格式的目录 github.com/sugarlxn/skypilot-catalog" in zh, zh
    assert "is not used" not in zh and "rows copied to" not in zh, zh
    assert "Alibaba Cloud ECS hourly prices (DescribePrice)" in zh  # the publisher's title, as it is
    with use_language("en"):
        assert price_words(option).endswith(SOURCE)
