"""Simulation inputs: catalog prices and spot rates, hand-given replicas, services files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.errors import InputError, NotFoundError
from gpuplan.perf.inference import DecodeEstimate
from gpuplan.plan.spot import DEFAULT_SPOT_RATE
from gpuplan.simulate.inputs import demand_from_decode, fleet_prices, load_services, parse_replica

DECODE = DecodeEstimate(
    gpu="A100-SXM4-80GB",
    weights_gib=15.0,
    kv_cache_gib_per_sequence=0.1,
    context_tokens=1000,
    max_concurrent_sequences=500,
    prefill_s=0.5,
    prefill_tokens_per_s=10_000.0,
    batch=16,
    time_per_token_s=0.012,
    tokens_per_s=1333.0,
    time_per_token_at_max_s=0.05,
)


def test_given_prices_win_and_an_unknown_on_demand_price_says_how_to_give_one() -> None:
    p = fleet_prices([], "A100-SXM4-80GB", on_demand_usd=3.0, spot_usd=1.0)
    assert p.usd_per_hour == {"on_demand": 3.0, "spot": 1.0}
    assert p.spot_rate_per_hour == DEFAULT_SPOT_RATE.per_hour
    with pytest.raises(InputError, match="--on-demand-price"):
        fleet_prices([], "A100-SXM4-80GB")


def test_replica_given_by_hand() -> None:
    r = parse_replica("slots=32,tpot_ms=25,prefill_tps=5000", "L4")
    assert (r.slots, r.time_per_output_token_s, r.prefill_tokens_per_s) == (32, 0.025, 5000.0)
    with pytest.raises(NotFoundError, match="did you mean 'slots'"):
        parse_replica("slot=32,tpot_ms=25", "L4")
    with pytest.raises(InputError, match="needs slots"):
        parse_replica("prefill_tps=5000", "L4")


def test_demand_from_the_estimator_counts_weights_and_the_running_kv_cache() -> None:
    d = demand_from_decode(
        "chat", DECODE, requests_per_s=2.0, prompt_tokens=500, output_tokens=250, slo_s=None
    )
    # At 2 requests/s a few sequences run (2 × 3.05 = 6.1, below the traced batch of 16), so each token
    # takes the traced batch's 0.012 s: 500/10000 + 250 × 0.012 = 3.05 s; running = ceil(2 × 3.05 / 0.8)
    # = 8 sequences of 750/1000 × 0.1 GiB: 15 + 8 × 0.075 + 1.0 (context) = 16.6 GiB. Capacity is the
    # full cache's: 500 sequences / (0.05 + 250 × 0.05 s) = 500 / 12.55 requests/s.
    assert d.latency_s == pytest.approx(3.05)
    assert d.memory_gib == pytest.approx(16.6)
    assert d.capacity_requests_per_s == pytest.approx(500 / 12.55)


def test_services_file_errors_name_the_field(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("services:\n  - {name: a, requests_per_s: 1, memory_gb: 3}\n")
    with pytest.raises(InputError, match=r"services\.0\.memory_gb"):
        load_services(f)
    f.write_text("services:\n  - {name: a, requests_per_s: 1}\n")
    with pytest.raises(InputError, match="give memory_gib, capacity_requests_per_s, latency_ms"):
        load_services(f).demands()
