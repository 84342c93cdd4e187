"""Tiny inputs, bounded work: a simulation whose work its inputs do not bound is refused before the
engine allocates anything, naming the limit — a 2-row trace spanning 10^8 s, a rate × duration of
billions of requests, a million replicas, a billion slots, a decision every millisecond, a services
file at a million requests/s — and ``services: []`` or a ``.inf`` count is one line, not a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpuplan.errors import InputError
from gpuplan.simulate import Shape, bursty_trace, diurnal_trace, load_policies, parse_policy, step_trace
from gpuplan.simulate.autoscale import FleetPrices, ReplicaModel, simulate_autoscale
from gpuplan.simulate.policy import MAX_REPLICAS
from gpuplan.simulate.share import MAX_SHARE_GPUS, ServiceDemand, ShareOptions, pack_services
from gpuplan.simulate.trace import MAX_WINDOW_S, Trace, read_trace_csv
from one_line import refused

PRICES = FleetPrices(usd_per_hour={"on_demand": 1.0}, source="given")


def _replica(slots: int = 8) -> ReplicaModel:
    return ReplicaModel(
        gpu="L4", slots=slots, prefill_tokens_per_s=8000, time_per_output_token_s=0.03, source="x"
    )


def _trace(span_s: float) -> Trace:
    return Trace(
        arrival_s=np.array([0.0, span_s]),
        prompt_tokens=np.array([10, 10]),
        output_tokens=np.array([5, 5]),
        duration_s=span_s,
        name="two-rows",
        synthetic=False,
    )


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine must not start: the refusal comes before it allocates its per-second signal."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the engine ran")

    monkeypatch.setattr("gpuplan.simulate.autoscale.run_engine", refuse)


@pytest.mark.usefixtures("no_engine")
def test_a_two_row_trace_spanning_1e8_s_is_refused_before_the_engine(tmp_path: Path) -> None:
    csv = tmp_path / "span.csv"
    csv.write_text("timestamp,prompt_tokens,output_tokens\n0,10,5\n100000000,10,5\n")
    trace = read_trace_csv(csv)
    with pytest.raises(InputError) as e:
        simulate_autoscale(trace, _replica(), [parse_policy("fixed:replicas=2")], PRICES)
    # 10^8 as milliseconds is 28 h, within the window: the refusal asks whether they are
    assert str(e.value) == (
        "trace span spans 1,157 days, longer than the 31 days a simulation replays; its timestamp "
        "column is read as seconds, and as milliseconds it would span 27.78 h: if it is milliseconds, "
        "name the column timestamp_ms (or divide its numbers by 1,000); else cut it to the window you "
        "want to simulate"
    )
    assert MAX_WINDOW_S == 31 * 86_400


@pytest.mark.usefixtures("no_engine")
@pytest.mark.parametrize(
    ("policy", "slots", "says"),
    [
        (
            "target:target=0.5,max=100,period=0.001",
            8,
            "2,678,400,001 decisions × 100 replicas is more than the 20,000,000",
        ),
        ("fixed:replicas=1000", 8, "178,561 decisions × 1,000 replicas is more than the 20,000,000"),
        (
            "fixed:replicas=2",
            10**9,
            "2 replicas × 1,000,000,000 slots is more than the 1,000,000 batch slots",
        ),
    ],
)
def test_decisions_times_replicas_and_slots_are_bounded(policy: str, slots: int, says: str) -> None:
    with pytest.raises(InputError, match=says):
        simulate_autoscale(_trace(MAX_WINDOW_S), _replica(slots), [parse_policy(policy)], PRICES)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("fixed:replicas=1e6", "1,000,000 replicas is more than the 1,000 a simulation runs"),
        ("fixed:replicas=1000000", "1,000,000 replicas is more than the 1,000 a simulation runs"),
        ("target:target=0.7,max=5000", "5,000 replicas is more than the 1,000 a simulation runs"),
        ("scheduled:at=0h@2/8h@99999", "99,999 replicas is more than the 1,000"),
        ("fixed:replicas=inf", "replicas='inf' is not a whole number"),
        ("fixed:replicas=2.5", "replicas='2.5' is not a whole number"),
        ("target:target=0.7,max=nan", "max='nan' is not a whole number"),
    ],
)
def test_replicas_are_whole_numbers_up_to_the_limit(text: str, says: str) -> None:
    with pytest.raises(InputError, match=says):
        parse_policy(text)
    assert MAX_REPLICAS == 1000


@pytest.mark.parametrize(
    "entry",
    [
        "{kind: fixed, replicas: .inf}",
        "{kind: target, target: 0.5, max: .inf}",
        "{kind: fixed, replicas: true}",
    ],
)
def test_a_policies_file_with_an_infinite_or_boolean_count_is_one_line(tmp_path: Path, entry: str) -> None:
    p = tmp_path / "policies.yaml"
    p.write_text(f"- {entry}\n")
    with pytest.raises(InputError, match="is not a whole number"):
        load_policies(p)


@pytest.mark.parametrize("make", [bursty_trace, diurnal_trace, step_trace])
def test_a_generated_trace_is_bounded_by_rate_times_duration_and_by_its_window(make: object) -> None:
    with pytest.raises(
        InputError, match="86,400,000,000 requests, more than the 10,000,000 a trace may hold"
    ):
        make(Shape(mean_requests_per_s=1e6, duration_s=86_400))  # type: ignore[operator]
    with pytest.raises(
        InputError, match="10,000,000 hours is longer than the 744 hours a simulation replays"
    ):
        make(Shape(mean_requests_per_s=1.0, duration_s=3.6e10))  # type: ignore[operator]


def test_a_services_file_at_a_million_requests_per_s_is_refused_before_packing() -> None:
    huge = ServiceDemand(
        name="a", memory_gib=4, requests_per_s=1e6, capacity_requests_per_s=1, latency_s=0.02
    )
    for sharing in ("whole", "mig", "time-slice", "mps"):
        opts = ShareOptions(
            gpu_id="A100-SXM4-80GB", gpu_memory_gib=80, price_usd_per_hour=1.0, sharing=sharing
        )
        with pytest.raises(InputError, match=r"1,250,000 instances at their load \(at least one each\)"):
            pack_services([huge], opts)
    assert MAX_SHARE_GPUS == 2000


@pytest.mark.parametrize(
    ("services", "says"),
    [
        ("services: []", "no services or notebook groups to place; list them under services: or notebooks:"),
        (
            "services:\n  - {name: a, memory_gib: 4, requests_per_s: 1000000, capacity_requests_per_s: 1, "
            "latency_ms: 20}",
            "more than the 2,000 a packing places",
        ),
    ],
)
def test_share_best_with_nothing_to_place_is_one_line(
    tmp_path: Path, services: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "services.yaml"
    f.write_text(f"gpu: A100-SXM4-80GB\n{services}\n")
    line = refused(["--db", str(tmp_path / "c.db"), "simulate", "share", str(f), "--price", "1"], capsys)
    assert line.startswith("error: ") and says in line, line
