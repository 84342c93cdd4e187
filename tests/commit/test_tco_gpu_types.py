"""Demands for several GPU types: each type is its own MILP, and spot serves the right demand."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.commit import Demand, PricedOffer, TcoProblem, optimise, tco

MONTHS = 36


def _offer(gpu: str, pricing: str, usd_per_hour: float, term: int = 0, **kw: object) -> PricedOffer:
    return PricedOffer(
        provider="p",
        region="r",
        instance_type=f"{gpu}-{pricing}",
        gpu=gpu,
        gpus_per_unit=1.0,
        pricing=pricing,
        usd_per_unit_hour=usd_per_hour,
        term_months=term,
        **kw,  # type: ignore[arg-type]
    )


def test_three_gpu_types_with_spot_on_the_second_and_third_solve_and_price_each_demand() -> None:
    # Spot demands sit at places 1 and 2 of the whole file; before the fix, the second GPU type's
    # sub-problem (one demand) read demand 1 of its own one-element tuple: IndexError.
    demands = (
        Demand(name="a", gpu="A", gpu_hours=(730.0,) * MONTHS),
        Demand(name="b", gpu="B", gpu_hours=(365.0,) * MONTHS, interruptible=True),
        Demand(name="c", gpu="C", gpu_hours=(100.0,) * MONTHS, interruptible=True),
    )
    offers = (
        _offer("A", "on_demand", 2.0),
        _offer("A", "reserved_1y", 1.0, term=12),
        _offer("B", "on_demand", 4.0),
        _offer("B", "spot", 1.0, interruptions_per_hour=0.0),
        _offer("C", "on_demand", 3.0),
        _offer("C", "spot", 1.5, interruptions_per_hour=0.0),
    )
    s = optimise(TcoProblem(horizon_months=MONTHS, demands=demands, offers=offers))
    # A: three 1-year terms at $1 × 730 h = $730 a month; B: 365 h of spot at $1; C: 100 h at $1.50.
    # 36 × (730 + 365 + 150) = 36 × 1,245 = 44,820.
    assert s.total_usd == pytest.approx(44_820.0)
    assert {c.offer.gpu for c in s.commitments} == {"A"}
    assert s.spot_overhead == {"b": 1.0, "c": 1.0}
    # On demand: 36 × (730 × 2 + 365 × 4 + 100 × 3) = 36 × 3,220 = 115,920.
    assert s.all_on_demand_usd == pytest.approx(115_920.0)


THREE_TYPES = """\
horizon_months: 36
start: 2027-01
currency: USD
demands:
  - name: serving
    gpu: A100-SXM4-40GB
    gpus: 8
    hours_per_month: 730
  - name: training
    gpu: H100-SXM
    gpus: 8
    hours_per_month: 365
    interruptible: true
    run_hours: 72
    checkpoint_gb: 100
  - name: batch
    gpu: H200-SXM
    gpus: 8
    hours_per_month: 200
    interruptible: true
"""


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("types")))
    yield st
    st.close()


def test_a_three_type_36_month_usage_file_runs_on_the_shipped_catalog(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "three.yaml"
    path.write_text(THREE_TYPES, encoding="utf-8")
    report = tco(path, store=store, currency="USD")
    s = report.schedule
    assert len(s.monthly) == MONTHS
    assert {d.gpu for d in report.problem.demands} == {"A100-SXM4-40GB", "H100-SXM", "H200-SXM"}
    assert s.all_on_demand_usd is not None and s.total_usd <= s.all_on_demand_usd + 1e-6
