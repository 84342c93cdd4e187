"""Check the source articles' commitment claims on the catalog's own prices.

    python examples/tco/check_claims.py            # every scenario in this folder
    python examples/tco/check_claims.py --db URL   # against another catalog

Each scenario is solved twice: on the catalog's sourced prices (the providers' lists and dated
compilations of them), and again with the articles' own low-confidence 2024 tables allowed, so a
claim is seen both against real prices and against the numbers it was made with. Next to the claim
it prints the measured saving against buying everything on demand, what the schedule buys, the
prices it used and which terms the catalog has no price for.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from gpuplan.api import tco
from gpuplan.catalog import open_store
from gpuplan.commit import TcoReport, Usage, load_usage
from gpuplan.report.tco import commitment_runs

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Claim:
    file: str
    quote: str
    """The article's words and where they are (title and section)."""
    claimed: str
    """The saving claimed, as the article states it."""


#: The two articles, by title (undated Chinese web articles; no URL known).
ARTICLE_000 = "「深度学习开发者必读：Pytorch项目GPU云服务器选购与报价指南」"
ARTICLE_004 = "「云GPU平台搭建指南：哪家云服务器性价比最优？」"

CLAIMS = (
    Claim(
        "steady-serving-bursty-training.yaml",
        ARTICLE_000 + " §三: 混合部署：训练阶段使用按量计费（高峰期），推理阶段切换至预留实例",
        "train on demand at peaks, serve on reserved (no figure)",
    ),
    Claim(
        "alibaba-3y-subscription.yaml",
        ARTICLE_000 + " §二: 长期项目：阿里云包年包月（3年合约）可享5折优惠",
        "50 % off (3-year subscription, Alibaba)",
    ),
    Claim(
        "reserved-plus-spot.yaml",
        ARTICLE_004 + " 结语: 对于长期项目，预留实例+竞价实例的组合可降低TCO达50%",
        "up to 50 % lower TCO (reserved + spot)",
    ),
    Claim(
        "reserved-plus-spot-h100.yaml",
        ARTICLE_004 + " 结语: 对于长期项目，预留实例+竞价实例的组合可降低TCO达50%",
        "up to 50 % lower TCO (reserved + spot), on H100",
    ),
    Claim(
        "enterprise-3y-reserved.yaml",
        ARTICLE_000 + " §六: 企业用户：阿里云或AWS的3年预留实例可节省40%以上成本",
        "40 %+ saved (3-year reserved, Alibaba or AWS)",
    ),
)


def _with_articles(usage: Usage) -> Usage:
    data = usage.model_dump()
    data["constraints"] = {**data["constraints"], "allow_low_confidence": True}
    return load_usage(data, project=HERE.parent)


def _describe(report: TcoReport) -> list[str]:
    s, money = report.schedule, report.money
    saving = "n/a (no on-demand price)" if s.savings_pct is None else f"{s.savings_pct:.1f} %"
    lines = [
        f"measured saving {saving}: {money.format(s.total_usd)} against {money.format(s.all_on_demand_usd)} "
        "all on demand"
    ]
    if (w := report.with_stale_prices) is not None and w.needed:
        lines.append(
            f"it rests on {w.used} stale spot or commitment price(s): without them the demand is unmet"
        )
    elif w is not None:
        lines.append(
            f"with the {w.used} stale spot or commitment price(s) left out of it: saving "
            f"{(w.savings_pct or 0.0):.1f} % ({money.format(w.total_usd)})"
        )
        # what that total rests on: the stale prices, and the commitments it would buy at them
        for o in w.stale:
            hourly = money.format(o.usd_per_gpu_hour, per="GPU-h")
            lines.append(f"  stale price it uses: {o.label}: {hourly} [{o.confidence}, {o.as_of}]")
        for c, months, cost in commitment_runs(w.commitments):
            lines.append(
                f"  it would buy: {c.units} × {c.offer.label} from month {c.start_month + 1} for {months} "
                f"month(s), {money.format(cost)}"
            )
    spend: dict[str, float] = {}
    for m in s.monthly:
        for p, v in m.by_pricing_usd.items():
            spend[p] = spend.get(p, 0.0) + v
    if s.past_horizon_usd:
        spend["(term past the horizon)"] = s.past_horizon_usd
    if s.data_usd:
        spend["(besides GPU time: data, storage)"] = s.data_usd
    mix = ", ".join(f"{p} {v / s.total_usd:.0%}" for p, v in sorted(spend.items(), key=lambda kv: -kv[1]))
    lines.append(f"spend by pricing model: {mix or 'nothing'}")
    used = {c.offer for c in s.commitments} | set(s.hourly_used.values())
    for o in sorted(used, key=lambda o: (o.gpu, o.pricing, o.label)):
        per = money.format(o.usd_per_gpu_hour * 730.0, per="GPU-month") if o.is_commitment else ""
        hourly = money.format(o.usd_per_gpu_hour, per="GPU-h")
        lines.append(f"price used: {o.label}: {hourly} {per} [{o.confidence}, {o.as_of}]".replace("  ", " "))
    for pricing, be in s.break_even_utilisation.items():
        lines.append(f"break-even utilisation {pricing}: {be:.0%}")
    lines += [n for n in report.notes if "not offered" in n]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="catalog database (default: the user's)")
    args = parser.parse_args()
    store = open_store(args.db)
    try:
        for claim in CLAIMS:
            # One scenario names workloads one folder up: the examples folder is the project.
            usage = load_usage(HERE / claim.file, project=HERE.parent)
            print(f"== {claim.file}")
            print(f"   claim: {claim.claimed}  ({claim.quote})")
            runs = (("catalog's sourced prices", usage), ("with the articles' tables", _with_articles(usage)))
            for label, u in runs:
                print(f"   -- {label}")
                for line in _describe(tco(u, store=store)):
                    print(f"      {line}")
    finally:
        store.close()


if __name__ == "__main__":
    main()
