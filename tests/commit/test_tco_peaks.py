"""Demands need their GPUs at once: a committed GPU serves one GPU-hour per hour, so the GPUs in
service at the busiest hour must cover the demands running then, not just the month's GPU-hours."""

from __future__ import annotations

import pytest

from gpuplan.commit import Demand, PricedOffer, TcoProblem, Usage, optimise
from gpuplan.commit.adapters import demands_from_usage, shift_notes
from gpuplan.errors import InputError

TERMS = {"on_demand": 0, "reserved_1y": 12}


def offer(pricing: str, usd: float) -> PricedOffer:
    """One 1-GPU instance type: on demand per hour, reserved per month (stored per hour / 730)."""
    term = TERMS[pricing]
    return PricedOffer(
        provider="p",
        region="r",
        instance_type="i1",
        gpu="G",
        gpus_per_unit=1.0,
        pricing=pricing,
        usd_per_unit_hour=usd / 730.0 if term else usd,
        term_months=term,
    )


def demand(name: str, gpus: float, hours: float, months: int = 12, shift: str = "") -> Demand:
    """``gpus`` at once for ``hours`` a month: a run of ``gpus`` GPUs lasts GPU-hours / gpus."""
    kw = {"shift": shift} if shift else {}
    return Demand(name=name, gpu="G", gpu_hours=(gpus * hours,) * months, gpus_per_run=gpus, **kw)  # type: ignore[arg-type]


#: $4 per GPU-hour on demand; reserved for a year at $1,460 per GPU-month ($2 per hour: it pays off
#: above 50 % of the hours).
OFFERS = (offer("on_demand", 4.0), offer("reserved_1y", 1460.0))


def chat(lora_shift: str = "", peak_shift: str = "") -> TcoProblem:
    """The evening-peak case: 12 GPUs all month, 20 more for 180 h, a 4-GPU LoRA job for 18 h."""
    return TcoProblem(
        horizon_months=12,
        demands=(
            demand("chat-base", 12, 730),
            demand("chat-peak", 20, 180, shift=peak_shift),
            demand("LoRA", 4, 18, shift=lora_shift),
        ),
        offers=OFFERS,
    )


def test_an_evening_peak_on_top_of_the_base_is_bought_by_the_hour_not_pooled_into_commitments() -> None:
    s = optimise(chat())
    # Pooled, 12×730 + 20×180 + 4×18 = 12,432 GPU-hours fill 17 reserved GPUs, 15 short at the peak.
    # At once: 12 + 20 + 4 = 36 GPUs for 18 h, 32 for 162 h, 12 for 550 h. A reserved GPU for the
    # peak costs $1,460 a month against 180 h × $4 = $720 on demand: only the base is reserved.
    assert [(c.units, c.start_month) for c in s.commitments] == [(12, 0)]
    (peak,) = s.peaks
    assert (peak.gpus_at_once, peak.committed_gpus, peak.hours_above) == (36, 12, 180)
    # On demand each month: (20 × 180 + 4 × 18) GPU-hours × $4 = $14,688.
    assert all(m.by_pricing_usd["on_demand"] == pytest.approx(14_688.0) for m in s.monthly)
    # 12 × $1,460 × 12 + $14,688 × 12 = $210,240 + $176,256
    assert s.total_usd == pytest.approx(386_496.0)


def test_demand_lower_frees_committed_gpus_only_at_the_hours_they_are_idle() -> None:
    s = optimise(chat())
    # −30 %: 8.4 + 14 + 2.8 GPUs at once on average, in whole GPUs: the base 8 for 730 h and 1 more
    # for 292 h, the peak 14 for 180 h, the LoRA 2 for 18 h and 1 more for 14.4 h. Stacked: 26 for
    # 14.4 h, 25 for 3.6 h, 23 for 162 h, 9 for 112 h, 8 for 438 h. Above the 12 reserved:
    # (14 × 14.4 + 13 × 3.6 + 11 × 162) × $4 = $8,121.60 a month (2.6 GPUs at once are 3 GPUs part
    # of the time, not $7,689.60 for 0.6 of a GPU).
    # +30 %: 15 for 730 + 1 for 438, 26 for 180, 5 for 18 + 1 for 3.6: 48 for 3.6 h, 47 for 14.4,
    # 42 for 162, 16 for 258, 15 for 292: (36 × 3.6 + 35 × 14.4 + 30 × 162 + 4 × 258 + 3 × 292) × $4
    # = $29,606.40 a month.
    assert dict(s.sensitivity) == {
        -30.0: pytest.approx(210_240.0 + 12 * 8_121.6),
        0.0: pytest.approx(386_496.0),
        30.0: pytest.approx(210_240.0 + 12 * 29_606.4),
    }


def test_demands_of_different_shifts_never_add_up() -> None:
    # The LoRA job runs at night, the peak in the evening: 12 + 20 = 32 GPUs at once at most.
    s = optimise(chat(lora_shift="night", peak_shift="evening"))
    assert [(p.gpus_at_once, p.committed_gpus) for p in s.peaks] == [(32, 12)]
    # The same GPU-hours as above, all bought by the hour, at the same price: the same total.
    assert s.total_usd == pytest.approx(386_496.0)


def test_sequential_demands_share_the_committed_gpus_and_are_not_over_bought() -> None:
    # Serving by day and training at night, 8 GPUs for 365 h each: 8 reserved GPUs serve both.
    # On demand 365 h × $5 = $1,825 a month per GPU is dearer than $1,460 reserved.
    offers = (offer("on_demand", 5.0), offer("reserved_1y", 1460.0))
    apart = TcoProblem(
        horizon_months=12,
        demands=(demand("serving", 8, 365, shift="day"), demand("training", 8, 365, shift="night")),
        offers=offers,
    )
    s = optimise(apart)
    assert [c.units for c in s.commitments] == [8]
    assert s.total_usd == pytest.approx(8 * 1460.0 * 12)  # nothing bought by the hour
    # Without shifts the two may run together: 16 at once for 365 h, so 16 reserved.
    together = TcoProblem(
        horizon_months=12,
        demands=(demand("serving", 8, 365), demand("training", 8, 365)),
        offers=offers,
    )
    assert [c.units for c in optimise(together).commitments] == [16]


def test_a_months_hours_are_laid_out_at_their_worst_unless_shifts_differ() -> None:
    from gpuplan.commit.overlap import month_slices

    p = chat()
    together = month_slices(p.demands, 0)
    assert [(s.hours, s.load) for s in together] == [(18, 36), (162, 32), (550, 12)]
    apart = month_slices(chat(lora_shift="night", peak_shift="evening").demands, 0)
    # The evening's 20 GPUs for 180 h, then the night's 4 for 18 h, the base under both.
    assert [(s.hours, s.load, sorted(s.gpus)) for s in apart] == [
        (180, 32, [0, 1]),
        (18, 16, [0, 2]),
        (532, 12, [0]),
    ]
    # Every slice's hours × load add up to the month's GPU-hours: 12,432.
    assert sum(s.hours * s.load for s in together) == sum(s.hours * s.load for s in apart) == 12_432


def _usage(**second: object) -> Usage:
    return Usage.from_dict(
        {
            "horizon_months": 3,
            "demands": [
                {"name": "serving", "gpu": "L4", "gpus": 4, "hours_per_month": 365, "shift": "day"},
                {"name": "training", "gpu": "L4", "gpus": 8, "hours_per_month": 300, **second},
            ],
        }
    )


def test_a_usage_files_gpus_are_at_once_and_growth_adds_gpus_not_hours() -> None:
    usage = _usage(shift="night", growth_pct_per_month=10)
    serving, training = demands_from_usage(usage, store=None)[0]  # type: ignore[arg-type]
    assert (serving.shift, training.shift) == ("day", "night")
    # 8 GPUs for 300 h, then 8 × 1.1 = 8.8 at once for the same 300 h: whole GPUs, 8 for the 300 h
    # and a 9th for 0.8 of them (the 2,640 GPU-hours kept, the peak rounded up).
    assert training.busy_hours == (300, 300, 300)
    assert training.levels(1) == ((8, 300), (1, pytest.approx(240)))
    assert training.gpus_at_once(1) == 9


def test_shifts_that_do_not_fit_in_a_month_are_refused_in_one_line() -> None:
    # 365 h by day + 400 h at night = 765 h > 730.
    with pytest.raises(InputError, match=r"shifts day, night run 765 h in 2027-01.*730 h"):
        demands_from_usage(_usage(shift="night", hours_per_month=400), store=None)  # type: ignore[arg-type]


def test_a_single_shift_is_said_to_change_nothing() -> None:
    alone = demands_from_usage(_usage(), store=None)[0]  # type: ignore[arg-type]
    assert shift_notes(alone) == [
        "shift 'day' is the only shift named, so it changes nothing: a shift keeps demands apart only "
        "from those of another shift"
    ]
    assert shift_notes(demands_from_usage(_usage(shift="night"), store=None)[0]) == []  # type: ignore[arg-type]


def test_growth_is_priced_and_peaks_in_whole_gpus() -> None:
    usage = Usage.from_dict(
        {
            "horizon_months": 12,
            "demands": [
                {"name": "d", "gpu": "L4", "gpus": 2, "hours_per_month": 100, "growth_pct_per_month": 5}
            ],
        }
    )
    (d,), _sources = demands_from_usage(usage, store=None)  # type: ignore[arg-type]
    problem = TcoProblem(horizon_months=12, demands=(Demand(**{**d.__dict__, "gpu": "G"}),), offers=OFFERS)
    s = optimise(problem)
    # 2 × 1.05^11 = 3.42 GPUs at once on average in the last month: 3 GPUs for its 100 h and a 4th
    # for 42 h; the peak is 4 GPUs, first in month 9 (2 × 1.05^9 = 3.10), not 3.42.
    (peak,) = s.peaks
    assert (peak.gpus_at_once, peak.month) == (4, 9)
    assert d.levels(11) == ((3, 100), (1, pytest.approx((2 * 1.05**11 - 3) * 100)))
    # Nothing reserved (a GPU busy 100 h costs $400 by the hour, $1,460 reserved): every GPU-hour
    # of the forecast by the hour at $4, the GPU-hours kept: 2 × 100 × 1.05^m × $4.
    assert s.commitments == ()
    assert s.total_usd == pytest.approx(sum(2 * 100 * 1.05**m * 4 for m in range(12)))


def test_the_peak_line_says_the_hours_bought_by_the_hour_are_not_all_at_the_peak() -> None:
    # 36 GPUs at once for 18 h, 32 for 162 h, 12 committed: 180 h bought by the hour, at most 24 more
    # at once. It read "up to 24 more bought by the hour for 180 h", as if 24 GPUs ran all 180 h.
    from gpuplan.commit import TcoReport, load_usage
    from gpuplan.i18n import Money, use_language
    from gpuplan.report.tco import peak_line

    problem = chat()
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "G", "gpus": 1, "hours_per_month": 1}],
        }
    )
    s = optimise(problem)
    report = TcoReport(usage=usage, problem=problem, schedule=s, demands=(), money=Money.usd(), notes=())
    with use_language("en"):
        line = peak_line(report, s.peaks[0])
    assert line.startswith("Peak 36 × G at once in 2027-01: 12 committed; more bought by the hour in 180 h")
    assert "of the month, up to 24 at once (demands of a month" in line
    # in Chinese the GPUs are counted with one measure word, as the head counts them (it had said
    # "峰值同时需要 36 张 G：12 个为承诺容量…同时最多 24 个")
    with use_language("zh"):
        zh = peak_line(report, s.peaks[0])
    assert zh.startswith("2027-01 峰值同时需要 36 张 G：12 张为承诺容量；") and "同时最多 24 张" in zh, zh
    assert "个" not in zh, zh
