"""Plan answers kept for identical requests (in memory and in the database) are never stale: what
a plan reads from the database changes the key, whoever wrote it; identical cold requests are
computed once; the memory held is bounded; a saved plan is the answer POST /plan gives."""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

from serve_helpers import Service, bert_workload

from gpuplan.web.answers import AnswerCache


def _plan(service: Service, **extra: Any) -> dict[str, Any]:
    body = {"workload": bert_workload(), "deadline": "6h", **extra}
    r = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    return dict(r.json())


def _computed(service: Service) -> int:
    return int(service.client.app.state.answers.computed)  # type: ignore[attr-defined]


def _rows(service: Service) -> int:
    with sqlite3.connect(service.db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM plan_cache").fetchone()[0])


def test_a_repeated_plan_is_a_lookup_until_the_database_changes_under_it(service: Service) -> None:
    """Each thing written by another process (the CLI, another worker) makes the next identical
    request a new plan: a discount, a bench result, a step measurement, an exchange rate."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.discounts import set_discount
    from gpuplan.catalog.model import BenchResult, ExchangeRate

    first = _plan(service)
    assert _plan(service) == first and _computed(service) == 1 and _rows(service) == 1
    store = open_store(service.db, seed=False)
    try:
        recommended = first["recommended"]  # a discount off the pricing model the plan buys
        set_discount(
            store, recommended["provider"], 40, note="written by the CLI", pricing=[recommended["pricing"]]
        )
        cheaper = _plan(service)
        assert cheaper["recommended"]["total_cost_usd"] < first["recommended"]["total_cost_usd"]
        assert _computed(service) == 2
        store.local.add_bench_results(
            [
                BenchResult(
                    gpu_id="H100-SXM5-80GB",
                    device_name="NVIDIA H100 80GB HBM3",
                    host="node-1",
                    measured_at="2026-11-30T10:00:00+00:00",
                    metric="matmul_tflops",
                    dtype="bf16",
                    value=600.0,
                    unit="TFLOP/s",
                    datasheet_value=989.0,
                )
            ]
        )
        _plan(service)
        assert _computed(service) == 3
        store.add_exchange_rate(
            ExchangeRate(currency="CNY", usd_per_unit=0.2, as_of="2026-12-01", source="test rate")
        )
        _plan(service)
        assert _computed(service) == 4
    finally:
        store.close()
    _plan(service)
    assert _computed(service) == 4 and _rows(service) == 4


def test_another_worker_finds_the_answer_in_the_database(service: Service) -> None:
    first = _plan(service)
    app: Any = service.client.app
    app.state.answers = AnswerCache()  # a worker that has not answered it yet
    assert _plan(service) == first
    assert app.state.answers.computed == 0 and app.state.answers.hits == 0  # from the database


def test_identical_cold_requests_are_computed_once() -> None:
    cache, made = AnswerCache(), []

    kept: dict[str, str] = {}

    class Jobs:
        def cached_document(self, key: str) -> str | None:
            return kept.get(key)

        def cache_document(self, key: str, text: str) -> None:
            kept[key] = text

    def make() -> str:
        made.append(1)
        time.sleep(0.2)
        return '{"plan": 1}'

    answers: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: answers.append(cache.compute(Jobs(), "k", make)))  # type: ignore[arg-type]
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and answers == [b'{"plan": 1}'] * 8


def test_the_memory_held_is_bounded_and_keeps_the_recent_answers() -> None:
    cache = AnswerCache(max_bytes=100)

    class Jobs:
        def cached_document(self, key: str) -> str | None:
            return None

        def cache_document(self, key: str, text: str) -> None:
            return None

    for k in "abcde":
        cache.compute(Jobs(), k, lambda: "x" * 30)  # type: ignore[arg-type]
    assert cache.get(Jobs(), "e") == b"x" * 30  # type: ignore[arg-type]
    assert cache.get(Jobs(), "a") is None  # type: ignore[arg-type]
    assert sum(len(v) for v in cache._held.values()) <= 100


def test_a_saved_plan_is_the_plan_the_api_answers(service: Service) -> None:
    c = service.client
    assert (
        c.post(
            "/api/v1/workloads",
            json={"name": "bert", "workload": bert_workload()},
            headers=service.auth("plan"),
        ).status_code
        == 201
    )
    answered = _plan(service)
    r = c.post(
        "/api/v1/plans",
        json={"name": "bert", "month": "2027-03", "deadline": "6h"},
        headers=service.auth("plan"),
    )
    assert r.status_code == 201, r.text
    saved = r.json()
    assert saved["document"] == answered and _computed(service) == 1
    again = c.get(f"/api/v1/plans/{saved['id']}", headers=service.auth("read")).json()
    assert again == saved


def test_the_service_keeps_a_sqlite_catalog_in_write_ahead_log_mode(service: Service) -> None:
    with sqlite3.connect(service.db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_new_server_thread_takes_over_the_store_of_an_ended_one(fresh_db: str) -> None:
    from gpuplan.web.auth import StoreProvider
    from gpuplan.web.config import ServeConfig

    stores = StoreProvider(ServeConfig(db=fresh_db))
    seen: list[Any] = []
    try:
        for _ in range(3):
            t = threading.Thread(target=lambda: seen.append(stores.get()))
            t.start()
            t.join()
        assert seen[0] is seen[1] is seen[2]
        held = threading.Event()
        done = threading.Event()

        def hold() -> None:
            seen.append(stores.get())
            held.set()
            done.wait(5)

        t = threading.Thread(target=hold)
        t.start()
        held.wait(5)
        other = threading.Thread(target=lambda: seen.append(stores.get()))
        other.start()
        other.join()
        done.set()
        t.join()
        assert seen[3] is seen[0] and seen[4] is not seen[0]  # a live thread's store is its own
    finally:
        stores.close()


def test_each_language_has_its_own_answer(service: Service) -> None:
    en = _plan(service)
    r = service.client.post(
        "/api/v1/plan?lang=zh",
        json={"workload": bert_workload(), "deadline": "6h"},
        headers=service.auth("plan"),
    )
    assert r.status_code == 200 and _rows(service) == 2
    assert r.json()["recommended"]["total_cost_usd"] == en["recommended"]["total_cost_usd"]
