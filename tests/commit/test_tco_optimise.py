"""The optimiser on hand-made instances, with the arithmetic in view."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from gpuplan.commit import Demand, PricedOffer, TcoProblem, optimise
from gpuplan.errors import InfeasibleError

TERMS = {"on_demand": 0, "spot": 0, "monthly": 1, "reserved_1y": 12, "reserved_3y": 36}


def offer(pricing: str, usd_per_month_or_hour: float, gpus: float = 1.0, **kw: object) -> PricedOffer:
    """Hourly models take a price per hour; commitments a price per month (stored per hour / 730)."""
    term = TERMS[pricing]
    hourly = usd_per_month_or_hour / 730.0 if term else usd_per_month_or_hour
    return PricedOffer(
        provider="p",
        region="r",
        instance_type=f"i{gpus:g}",
        gpu="G",
        gpus_per_unit=gpus,
        pricing=pricing,
        usd_per_unit_hour=hourly,
        term_months=term,
        **kw,  # type: ignore[arg-type]
    )


def steady(gpu_hours: float, months: int, **kw: object) -> Demand:
    return Demand(name="d", gpu="G", gpu_hours=(gpu_hours,) * months, **kw)  # type: ignore[arg-type]


def test_a_busy_gpu_takes_monthly_subscriptions_and_saves_their_discount() -> None:
    # on demand: 730 h × $2 = $1,460 a month; a monthly subscription is $1,000.
    p = TcoProblem(
        horizon_months=12,
        demands=(steady(730, 12),),
        offers=(offer("on_demand", 2.0), offer("monthly", 1000)),
    )
    s = optimise(p)
    assert [(c.units, c.start_month) for c in s.commitments] == [(1, m) for m in range(12)]
    assert s.total_usd == pytest.approx(12_000.0)
    assert s.all_on_demand_usd == pytest.approx(17_520.0)
    # (17,520 − 12,000) / 17,520 = 31.51 %
    assert s.savings_pct == pytest.approx(31.5068, abs=1e-4)
    # break-even: $1,000 / (730 × $2) = 0.6849 of the hours
    assert s.break_even_utilisation == {"monthly": pytest.approx(1000 / 1460)}


def test_schedule_is_exactly_all_on_demand_when_commitments_cannot_pay_off() -> None:
    # Half-busy: 365 h × $2 = $730 a month on demand, below the $1,000 subscription.
    p = TcoProblem(
        horizon_months=6, demands=(steady(365, 6),), offers=(offer("on_demand", 2.0), offer("monthly", 1000))
    )
    s = optimise(p)
    assert s.commitments == ()
    assert s.total_usd == s.all_on_demand_usd == pytest.approx(6 * 730.0)
    assert s.savings_pct == 0.0


def test_a_commitment_that_only_breaks_even_is_not_signed() -> None:
    # $1,460 a month = 730 h × $2: no saving, so no contract.
    p = TcoProblem(
        horizon_months=3, demands=(steady(730, 3),), offers=(offer("on_demand", 2.0), offer("monthly", 1460))
    )
    s = optimise(p)
    assert s.commitments == ()
    assert s.total_usd == s.all_on_demand_usd


def test_a_term_past_the_horizon_is_paid_in_full_or_credited_as_the_user_chooses() -> None:
    # 12 months of one busy GPU: $17,520 on demand. A 3-year term at $900/month costs $32,400 in
    # full (dearer: not taken) or $10,800 for its 12 months inside the horizon (taken).
    offers = (offer("on_demand", 2.0), offer("reserved_3y", 900))
    full = optimise(TcoProblem(horizon_months=12, demands=(steady(730, 12),), offers=offers))
    assert full.commitments == () and full.total_usd == pytest.approx(17_520.0)
    credited = optimise(
        TcoProblem(
            horizon_months=12, demands=(steady(730, 12),), offers=offers, past_horizon="remaining_value"
        )
    )
    assert [(c.units, c.start_month, c.term_months) for c in credited.commitments] == [(1, 0, 36)]
    assert credited.total_usd == pytest.approx(10_800.0)
    assert credited.past_horizon_usd == 0.0


def test_a_reserved_term_paid_in_full_shows_its_months_past_the_horizon() -> None:
    # 24 months busy: on demand $35,040; 3 years at $900 = $32,400, of which 12 × 900 past the horizon.
    p = TcoProblem(
        horizon_months=24,
        demands=(steady(730, 24),),
        offers=(offer("on_demand", 2.0), offer("reserved_3y", 900)),
    )
    s = optimise(p)
    assert s.total_usd == pytest.approx(32_400.0)
    assert s.past_horizon_usd == pytest.approx(10_800.0)
    assert sum(m.cost_usd for m in s.monthly) == pytest.approx(21_600.0)
    assert s.monthly[0].by_pricing_usd == {"reserved_3y": pytest.approx(900.0)}


def test_spot_serves_interruptible_demand_only() -> None:
    offers = (offer("on_demand", 2.0), offer("spot", 0.5, interruptions_per_hour=1 / 24))
    firm = optimise(TcoProblem(horizon_months=2, demands=(steady(100, 2),), offers=offers))
    assert firm.total_usd == pytest.approx(2 * 100 * 2.0)
    loose = optimise(
        TcoProblem(
            horizon_months=2, demands=(steady(100, 2, interruptible=True, run_hours=730.0),), offers=offers
        )
    )
    # No checkpoint, 10-min restart: 730 / (1 − (1/6)/24) / 730 = 1.006993 paid per useful hour.
    f = 1 / (1 - (1 / 6) / 24)
    assert loose.spot_overhead["d"] == pytest.approx(f)
    assert loose.total_usd == pytest.approx(2 * 100 * 0.5 * f)
    assert loose.monthly[0].by_pricing_usd == {"spot": pytest.approx(100 * 0.5 * f)}


def test_spot_overhead_of_a_run_that_restarts_from_scratch() -> None:
    # A batch run of 11.5 h without checkpoints, at 1/24 /h, 10-min restart: nothing resumes it, so
    # T = (e^(11.5/24) − 1)(24 + 1/6) = 14.8559 h, 1.291820 paid per useful hour (resumed: 1.00699).
    offers = (offer("on_demand", 2.0), offer("spot", 0.5, interruptions_per_hour=1 / 24))
    demand = steady(100, 2, interruptible=True, run_hours=11.5, restarts_from_scratch=True)
    s = optimise(TcoProblem(horizon_months=2, demands=(demand,), offers=offers))
    f = math.expm1(11.5 / 24) * (24 + 1 / 6) / 11.5
    assert f == pytest.approx(1.291820, rel=1e-6)
    assert s.spot_overhead["d"] == pytest.approx(f)
    assert s.total_usd == pytest.approx(2 * 100 * 0.5 * f)


def test_sensitivity_keeps_the_commitments_and_reprices_the_rest() -> None:
    # One busy GPU on a $1,000 subscription each month; +30 % demand adds 219 h on demand at $2;
    # −30 % leaves the subscription unchanged (paid, partly idle).
    p = TcoProblem(
        horizon_months=1, demands=(steady(730, 1),), offers=(offer("on_demand", 2.0), offer("monthly", 1000))
    )
    s = optimise(p)
    assert dict(s.sensitivity) == {
        -30.0: pytest.approx(1000.0),
        0.0: pytest.approx(1000.0),
        30.0: pytest.approx(1000.0 + 219 * 2.0),
    }


def test_a_larger_unit_covers_several_gpus_of_demand() -> None:
    # 4 GPUs busy: an 8-GPU unit at $5,000/month beats 4 × 730 × $2 = $5,840 on demand.
    p = TcoProblem(
        horizon_months=1,
        demands=(steady(4 * 730, 1),),
        offers=(offer("on_demand", 2.0), offer("monthly", 5000, gpus=8)),
    )
    s = optimise(p)
    assert [(c.units, c.offer.gpus_per_unit) for c in s.commitments] == [(1, 8.0)]
    assert s.total_usd == pytest.approx(5000.0)


def test_firm_demand_with_only_spot_prices_is_infeasible_in_one_line() -> None:
    p = TcoProblem(
        horizon_months=2, demands=(steady(10, 2),), offers=(offer("spot", 0.5, interruptions_per_hour=0.01),)
    )
    with pytest.raises(
        InfeasibleError, match=r"^the demand for G in month 1 cannot be met: no on-demand price"
    ):
        optimise(p)


def test_a_gpu_with_no_price_at_all_says_so_not_allow_on_demand() -> None:
    # H100 on the Chinese clouds: no offer under any pricing model. "allow on_demand" sent the user
    # to a setting that was already on.
    p = TcoProblem(
        horizon_months=1, demands=(steady(100, 1),), offers=(replace(offer("on_demand", 2.0), gpu="H"),)
    )
    with pytest.raises(InfeasibleError) as e:
        optimise(p)
    assert str(e.value) == (
        "the demand for G cannot be met: no price of G under any pricing model within the constraints; "
        "name more providers or regions (`gpuplan offers --gpu G` lists who sells it)"
    )


def test_no_demand_costs_nothing() -> None:
    p = TcoProblem(
        horizon_months=3, demands=(steady(0, 3),), offers=(offer("on_demand", 2.0), offer("monthly", 1000))
    )
    s = optimise(p)
    assert s.total_usd == 0.0 and s.commitments == () and s.all_on_demand_usd == 0.0
    assert s.savings_pct is None


def test_equal_priced_small_units_are_shown_as_the_larger_unit() -> None:
    # 8 GPUs busy: eight 1-GPU subscriptions at $1,000 or one 8-GPU one at $8,000 cost the same;
    # the schedule buys the one machine.
    offers = (offer("on_demand", 2.0), offer("monthly", 1000, gpus=1), offer("monthly", 8000, gpus=8))
    s = optimise(TcoProblem(horizon_months=2, demands=(steady(8 * 730 + 730, 2),), offers=offers))
    assert [(c.units, c.offer.gpus_per_unit, c.start_month) for c in s.commitments] == [
        (1, 1.0, 0),
        (1, 8.0, 0),
        (1, 1.0, 1),
        (1, 8.0, 1),
    ]
    assert s.total_usd == pytest.approx(2 * 9000.0)


def test_a_term_paid_in_full_is_never_started_where_an_earlier_start_covers_more() -> None:
    # Demand only in the last 6 of 12 months: a 1-year term starting in month 7 would cover 6 months
    # for the full 12 months' price, the same as starting in month 1; the schedule starts it at 0.
    hours = (0.0,) * 6 + (730.0,) * 6
    p = TcoProblem(
        horizon_months=12,
        demands=(Demand(name="d", gpu="G", gpu_hours=hours),),
        offers=(offer("on_demand", 4.0), offer("reserved_1y", 400)),
    )
    s = optimise(p)
    # 12 × $400 = $4,800 against 6 × 730 × $4 = $17,520 on demand.
    assert [(c.units, c.start_month) for c in s.commitments] == [(1, 0)]
    assert s.total_usd == pytest.approx(4800.0)


def test_a_one_gpu_run_bought_by_the_hour_pays_for_the_whole_instance() -> None:
    # One GPU busy all month. The 8-GPU instance is $16/h ($2 per GPU-hour) and the 1-GPU one $3/h:
    # a 1-GPU run on the 8-GPU instance pays for 8 GPUs, $16 per GPU-hour used, so the 1-GPU
    # instance is the cheaper: 730 × $3 = $2,190 a month, not 730 × $2.
    eight = replace(offer("on_demand", 16.0, gpus=8.0), instance_type="big")
    one = replace(offer("on_demand", 3.0), instance_type="small")
    s = optimise(TcoProblem(horizon_months=2, demands=(steady(730, 2),), offers=(eight, one)))
    assert s.total_usd == s.all_on_demand_usd == pytest.approx(2 * 730 * 3.0)
    assert [(k, o.instance_type) for k, o in s.hourly_used.items()] == [("G/on_demand/d", "small")]
    # With the 8-GPU instance alone, a month costs 730 × $16 and a 1-year reservation of it at
    # $5,840 a month ($1 per GPU-hour) pays off at 5,840 / (730 × 8 × $16) = 5 % of its GPU-hours.
    reserved = offer("reserved_1y", 5840.0, gpus=8.0)
    s = optimise(TcoProblem(horizon_months=12, demands=(steady(730, 12),), offers=(eight, reserved)))
    assert s.all_on_demand_usd == pytest.approx(12 * 730 * 16.0)
    assert s.total_usd == pytest.approx(12 * 5840.0)
    assert s.hourly_packing == {"G/on_demand/d": 8.0}
    assert s.break_even_utilisation == {"reserved_1y": pytest.approx(5840 / (730 * 8 * 16.0))}
    # An 8-GPU run fills the instance: $2 per GPU-hour.
    s = optimise(
        TcoProblem(horizon_months=1, demands=(steady(8 * 730, 1, gpus_per_run=8.0),), offers=(eight,))
    )
    assert s.total_usd == pytest.approx(8 * 730 * 2.0)


def test_a_term_longer_than_the_horizon_breaks_even_on_the_months_it_serves() -> None:
    # $900 a month for 36 months against $2 × 730 = $1,460 a month on demand: 62 % over its whole
    # term, but paid in full over a 12-month horizon it serves 12 of the 36 months paid: 185 %.
    offers = (offer("on_demand", 2.0), offer("reserved_3y", 900))
    s = optimise(TcoProblem(horizon_months=12, demands=(steady(730, 12),), offers=offers))
    assert s.break_even_utilisation == {"reserved_3y": pytest.approx(900 * 36 / (1460 * 12))}
    s = optimise(TcoProblem(horizon_months=36, demands=(steady(730, 36),), offers=offers))
    assert s.break_even_utilisation == {"reserved_3y": pytest.approx(900 / 1460)}
    # Credited past the horizon, it is paid for the months it serves.
    credited = TcoProblem(
        horizon_months=12, demands=(steady(730, 12),), offers=offers, past_horizon="remaining_value"
    )
    assert optimise(credited).break_even_utilisation == {"reserved_3y": pytest.approx(900 / 1460)}


def test_a_saving_resting_on_a_stale_spot_price_is_left_out_of_the_schedule_and_said_beside_it() -> None:
    from datetime import date

    from gpuplan.commit.api import _fresh_first

    # 100 interruptible GPU-hours a month: spot at $0.50 (of unknown age: 2022-03 to today) against
    # $2 on demand (dated last month). The schedule is bought on demand; the spot saving is beside it.
    today = date(2026, 12, 3)
    stale = offer("spot", 0.5, as_of="2022-03/2026-12-02", interruptions_per_hour=0.0)
    p = TcoProblem(
        horizon_months=3,
        demands=(steady(100, 3, interruptible=True),),
        offers=(offer("on_demand", 2.0, as_of="2026-11-01"), stale),
    )
    kept, s, w = _fresh_first(p, today, 180)
    assert kept.offers == (p.offers[0],)
    assert s.total_usd == pytest.approx(600.0) and not s.savings_pct
    assert w is not None and (w.used, w.left_out) == (1, 1) and not w.needed
    assert w.total_usd == pytest.approx(150.0) and w.savings_pct == pytest.approx(75.0)
    assert w.offers == (stale,)
    # A spot price dated within the limit is current: the schedule buys it, nothing beside it.
    fresh = replace(p, offers=(p.offers[0], replace(stale, as_of="2026-11-20")))
    _kept, s, w = _fresh_first(fresh, today, 180)
    assert w is None and s.total_usd == pytest.approx(150.0)
    # Floored at a dated price: judged by the floor's day (here a year old: stale).
    floored = replace(p, offers=(p.offers[0], replace(stale, as_of="2026-11-20", floor_as_of="2025-11-30")))
    assert _fresh_first(floored, today, 180)[2] is not None
    # Only a stale spot price, the GPU's only price: nothing known current to solve without it, so
    # the schedule buys it as plan would recommend it (nothing held out beside it).
    alone = replace(p, offers=(stale,))
    _kept, s, w = _fresh_first(alone, today, 180)
    assert w is None and s.total_usd == pytest.approx(150.0)
    # A stale on-demand price of a GPU with a current one is held out as a stale spot one is
    dear = replace(
        p, offers=(offer("on_demand", 2.0, as_of="2026-11-01"), offer("on_demand", 1.0, as_of="2022-03"))
    )
    kept, s, w = _fresh_first(dear, today, 180)
    assert s.total_usd == pytest.approx(600.0) and w is not None and w.total_usd == pytest.approx(300.0)


def test_spot_pays_its_own_checkpoints_not_the_ones_written_on_demand() -> None:
    # A 10-h run writing a 3-min checkpoint (C = 0.05 h) every 30 min on demand spends 10 × 0.05 / 0.5
    # = 1 h writing: its useful hours are 11. On spot, at 1/24 per h and a 12-min restart, it writes
    # at Young/Daly's interval instead (plan/spot.py's pinned example): T = 10.7596 h, so 0.97815 paid
    # spot hour per useful hour. Was: T / 10 = 1.07596, the spot run charged the writes it does not make.
    offers = (offer("on_demand", 2.0), offer("spot", 0.5, interruptions_per_hour=1 / 24))
    demand = steady(
        110,
        1,
        interruptible=True,
        run_hours=10.0,
        checkpoint_hours_off_spot=1.0,
        checkpoint_write_h=0.05,
        restart_h=0.2,
    )
    s = optimise(TcoProblem(horizon_months=1, demands=(demand,), offers=offers))
    assert s.spot_overhead["d"] == pytest.approx(10.7596 / 11, abs=1e-5)
    # the workload's own interval of 30 min, shorter than Young/Daly's 93 min, is the one written on
    # spot too: W' = 10 × (1 + 0.05/0.5) = 11 h; δ = 0.25 + 0.2 h; T = 11 / (1 − 0.45/24) = 11.2102 h
    stated = optimise(
        TcoProblem(horizon_months=1, demands=(replace(demand, checkpoint_every_h=0.5),), offers=offers)
    )
    assert stated.spot_overhead["d"] == pytest.approx(11 / (1 - 0.45 / 24) / 11)
