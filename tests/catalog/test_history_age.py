"""A price's history ages an undated price as its offer is aged: bounded by its GPU's launch."""

from __future__ import annotations

from pathlib import Path

from gpuplan.catalog import open_store
from gpuplan.catalog.history import price_history
from gpuplan.report.history import _age


def test_an_undated_price_in_its_history_is_aged_as_offers_and_plan_age_it(fresh_catalog: Path) -> None:
    # history said "age unknown (up to 6.1 y)" of an A10 row that offers and plan called "at most
    # 5.7 y: the A10 launched 2021-04": the interval's own start, before the GPU existed
    store = open_store(str(fresh_catalog))
    try:
        points = price_history(store, "ecs.gn7i-c8g1.2xlarge")
        undated = [p for p in points if "/" in p.as_of and p.as_of.startswith("2020-11")]
        assert undated, [p.as_of for p in points]
        offers = {(o.region, o.zone): o for o in store.offers() if o.instance_type == "ecs.gn7i-c8g1.2xlarge"}
        for p in undated:
            assert p.gpu == "A10" and p.age.launched == "2021-04"
            assert _age(p).startswith("age unknown (at most") and "the A10 launched 2021-04" in _age(p)
            same = offers.get((p.region, p.zone))
            if same is not None and same.as_of == p.as_of:
                assert p.age.age_days == same.age_days
    finally:
        store.close()
