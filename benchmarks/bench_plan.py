"""How long planning takes over a whole-catalog-sized offer table, once the profile is known.

    .venv/bin/python benchmarks/bench_plan.py [--profile saved_profile.json]

Builds a synthetic catalog the size of the real one fully populated (7 providers × 10 regions ×
2 zones × 12 instance shapes × 5 pricing models, 1–64 GPUs per candidate), plans over it with the
real estimator (``perf.estimate`` through ``plan.estimator.make_estimator``), and prints:

- the planning time (median of 5 runs), split into estimator calls and the rest;
- a same-run reference: the same costing arithmetic done candidate by candidate in plain Python
  (what the vectorised code replaces), and the ratio between the two;
- a machine-speed reference (sorting 10⁶ floats with numpy), so the figure can be compared
  across machines as a ratio;
- the target, a whole process: ``gpuplan plan examples/resnet50-imagenet.yaml`` (``--json``, and
  the text table) over the shipped snapshot with the profile already cached (under 1 s of CPU,
  under 300 MB), against ``python -c "import gpuplan"`` measured in the same run, best of
  ``--runs``, with Python's bytecode cache on and warmed (``--no-process`` leaves it out).
  ``--baseline SRC`` times the same commands on another source tree too (``git archive main src |
  tar -x -C /tmp/main``, then ``--baseline /tmp/main/src``), interleaved with this one, for a
  before/after in one run. These lines are written to ``benchmarks/results/plan.txt`` as well.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

import numpy as np

from _process import IMPORT_GPUPLAN, Run, child_env, gpuplan, header, line, measure
from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    Objective,
    OfferTable,
    PlanOffer,
    RegionCosts,
    UsdTransferTier,
    plan_offers,
)
from gpuplan.plan.billing import DEFAULT_GRANULARITY_S
from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile

PROVIDERS = ("aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine")
SHAPES = (  # (GPU id, GPUs per instance, interconnect, network Gbit/s, USD per GPU-hour)
    ("T4", 1, "none", 25.0, 0.5),
    ("T4", 4, "PCIe", 50.0, 0.5),
    ("L4", 1, "none", 25.0, 0.8),
    ("L4", 8, "PCIe", 100.0, 0.8),
    ("A10G", 1, "none", 25.0, 1.0),
    ("A10G", 4, "PCIe", 100.0, 1.0),
    ("A100-SXM4-40GB", 8, "NVLink", 400.0, 2.7),
    ("A100-SXM4-80GB", 8, "NVLink", 400.0, 3.4),
    ("A100-PCIE-80GB", 1, "none", 50.0, 3.6),
    ("H100-SXM", 8, "NVLink", 3200.0, 6.9),
    ("H100-NVL", 2, "NVLink bridge", 100.0, 8.8),
    ("H200-SXM", 8, "NVLink", 3200.0, 10.4),
)
PRICING = ("on_demand", "spot", "monthly", "reserved_1y", "reserved_3y")
_FACTOR = {"on_demand": 1.0, "spot": 0.35, "monthly": 0.7 * 730, "reserved_1y": 0.6, "reserved_3y": 0.4}


def synthetic_offers() -> list[PlanOffer]:
    from gpuplan.hardware import get_gpu

    rows = []
    for p_i, provider in enumerate(PROVIDERS):
        for r in range(10):
            region = f"{provider}-region-{r}"
            for zone in ("a", "b"):
                for gpu, count, link, net, per_gpu in SHAPES:
                    for pricing in PRICING:
                        base = per_gpu * count * (1.0 + 0.03 * p_i + 0.01 * r)
                        rows.append(
                            PlanOffer(
                                provider=provider,
                                region=region,
                                zone=f"{region}{zone}",
                                instance_type=f"{gpu.lower()}-x{count}",
                                gpu=gpu,
                                gpu_count=float(count),
                                gpu_memory_gib=get_gpu(gpu).memory_gib,
                                pricing=pricing,
                                price_usd=base * _FACTOR[pricing],
                                unit_hours=730.0 if pricing == "monthly" else 1.0,
                                term_hours={"reserved_1y": 8760.0, "reserved_3y": 26280.0}.get(pricing),
                                network_gbps=net,
                                interconnect=link,
                                billing_granularity_s=1.0 if provider in ("aws", "gcp") else None,
                                min_billing_s=60.0 if provider in ("aws", "gcp") else None,
                                interruption_band="5-10%" if provider == "aws" else "",
                                country="US",
                            )
                        )
    return rows


def synthetic_facts() -> CostFacts:
    tiers = (
        UsdTransferTier(upto_gb=100.0, usd_per_gb=0.0),
        UsdTransferTier(upto_gb=math.inf, usd_per_gb=0.09),
    )
    return CostFacts(
        RegionCosts(
            provider=p,
            region=f"{p}-region-{r}",
            internet_egress=tiers,
            inter_region_usd_per_gb=0.02,
            block_storage_usd_per_gb_month=0.08,
            object_storage_usd_per_gb_month=0.023,
        )
        for p in PROVIDERS[:3]
        for r in range(10)
    )


def bert_like_profile() -> Profile:
    """~BERT-Large fine-tune step: 340 M parameters, 9 TFLOP, a few bandwidth-bound ops."""
    params = 340_000_000
    ops = tuple(
        OpRecord(
            op=f"aten.op{i}", op_class=cls, phase=ph, dtype="float16", count=24, flops=fl, bytes_moved=by
        )
        for i, (cls, ph, fl, by) in enumerate(
            [
                ("matmul", "forward", 2.6e12, 1.5e9),
                ("attention", "forward", 0.4e12, 0.5e9),
                ("other", "forward", 1e9, 3e9),
                ("matmul", "backward", 5.2e12, 3e9),
                ("attention", "backward", 0.8e12, 1e9),
                ("other", "backward", 2e9, 6e9),
                ("other", "optimizer", 4e9, 16 * params),
            ]
        )
    )
    return Profile(
        key="bench",
        workload_name="bench",
        task="finetune",
        precision="amp-fp16",
        batch_size=32,
        seq_len=384,
        params=params,
        trainable_params=params,
        flops_per_step=sum(o.flops for o in ops),
        forward_flops=3e12,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=4.0 * params,
            buffers_bytes=0.0,
            gradients_bytes=4.0 * params,
            optimizer_state_bytes=8.0 * params,
            activations_bytes=6 * 1024**3,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="encoder", num_layers=24, hidden_size=1024),
    )


def real_estimator(profile: Profile):  # type: ignore[no-untyped-def]
    from gpuplan.plan.estimator import make_estimator
    from gpuplan.workload import Workload

    workload = Workload.from_dict(
        {
            "name": "bench",
            "task": "finetune",
            "model": {"preset": "bert-large"},
            "inputs": {"batch_size": 32, "seq_len": 384},
            "precision": "amp-fp16",
            "data": {"samples": 88000, "epochs": 2, "size_gb": 0.5, "location": "aws/aws-region-0"},
        }
    )
    fn, _ = make_estimator(workload, profile)
    return fn


def naive_costing(table: OfferTable, keys: list[tuple[int, int]], est: dict[tuple[int, int], float]) -> float:
    """The same on-demand/monthly/reserved/storage arithmetic, one candidate at a time (reference)."""
    total = 0.0
    for i, nodes in keys:
        t = est[(i, nodes)]
        price = float(table.price_usd[i])
        unit = float(table.unit_hours[i])
        term = float(table.term_hours[i])
        if not math.isnan(term):
            compute = price * math.ceil(t / term) * term / unit * nodes
        elif unit > 1:
            compute = price * math.ceil(t / 730.0) * nodes
        else:
            g = float(table.billing_granularity_s[i])
            g = DEFAULT_GRANULARITY_S if math.isnan(g) else g
            compute = price * math.ceil(t * 3600 / g) * g / 3600 * nodes
        storage = 10.5 * nodes * 0.08 / 730 * t
        total += compute + storage
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", type=Path, help="a saved profile JSON (default: a BERT-Large-like one)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-process", action="store_true", help="skip the whole-process plan target")
    ap.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another gpuplan source tree (the folder holding gpuplan/) to time the whole process on too, "
        "interleaved with this checkout's",
    )
    args = ap.parse_args()
    profile = Profile.from_json(args.profile.read_text()) if args.profile else bert_like_profile()

    rows = synthetic_offers()
    t0 = time.perf_counter()
    table = OfferTable.from_rows(rows)
    build_s = time.perf_counter() - t0
    facts = synthetic_facts()
    job = JobFacts(dataset_gb=0.5, checkpoint_gb=5.0, data_location=("aws", "aws-region-0"))
    constraints = Constraints(objective=Objective.BALANCED, commitment="3y")

    times, est_times = [], []
    plan = None
    for _ in range(args.runs):
        inner = real_estimator(profile)  # a fresh cache each run: estimator calls are counted
        spent = [0.0]

        def timed(key: EstimateKey, inner=inner, spent=spent) -> EstimateRow:  # type: ignore[no-untyped-def]
            s = time.perf_counter()
            r = inner(key)
            spent[0] += time.perf_counter() - s
            return r

        s = time.perf_counter()
        plan = plan_offers(table, facts, job, timed, constraints, top=10)
        times.append(time.perf_counter() - s)
        est_times.append(spent[0])
    assert plan is not None
    plan_s = statistics.median(times)
    est_s = statistics.median(est_times)

    # The shipped catalog end to end (store queries, adapters, estimator, planner).
    import tempfile

    from gpuplan.catalog import open_store
    from gpuplan.plan import plan_workload
    from gpuplan.workload import Workload

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "bench.sqlite"), usd_per_cny=0.14)
        workload = Workload.from_dict(
            {
                "name": "bench",
                "task": "finetune",
                "model": {"preset": "bert-large"},
                "inputs": {"batch_size": 32, "seq_len": 384},
                "precision": "amp-fp16",
                "data": {"samples": 88000, "epochs": 2, "size_gb": 0.5, "location": "aws/us-east-1"},
            }
        )
        plan_workload(workload, profile, store)  # warm imports
        real = []
        for _ in range(args.runs):
            s = time.perf_counter()
            real_plan = plan_workload(workload, profile, store)
            real.append(time.perf_counter() - s)
        store.close()
    real_s = statistics.median(real)

    # Reference 1: the costing loop in plain Python over the same candidates (on-demand-like rows).
    keys = []
    est: dict[tuple[int, int], float] = {}
    per_node = table.gpu_count.astype(int)
    for i in range(len(table)):
        for nodes in range(1, 64 // per_node[i] + 1):
            keys.append((i, nodes))
            est[(i, nodes)] = 10.0 / (per_node[i] * nodes)
    s = time.perf_counter()
    naive_costing(table, keys, est)
    naive_s = time.perf_counter() - s

    # The vectorised costing step alone, on the same candidates, for a like-for-like ratio.
    from gpuplan.plan.candidates import enumerate_candidates, estimate_candidates
    from gpuplan.plan.costing import cost_candidates

    cands = enumerate_candidates(table, constraints)
    estimate_candidates(cands, table, real_estimator(profile))
    costing = []
    for _ in range(args.runs):
        s = time.perf_counter()
        cost_candidates(cands, table, facts, job)
        costing.append(time.perf_counter() - s)
    costing_s = statistics.median(costing)

    # Reference 2: machine speed.
    data = np.random.default_rng(0).random(1_000_000)
    s = time.perf_counter()
    for _ in range(5):
        np.sort(data)
    sort_s = (time.perf_counter() - s) / 5

    print(f"offer rows: {len(table):,} (table built in {build_s * 1e3:.0f} ms); "
          f"candidates: {plan.candidates:,}; "
          f"feasible: {plan.feasible:,}")  # fmt: skip
    rest_ms = (plan_s - est_s) * 1e3
    print(f"plan, median of {args.runs}: {plan_s * 1e3:.0f} ms "
          f"(estimator calls {est_s * 1e3:.0f} ms, costing/ranking {rest_ms:.0f} ms)")  # fmt: skip
    print(f"budget 1 s: {'met' if plan_s < 1.0 else 'NOT met'}")
    print(f"shipped catalog end to end (store + adapters + estimator + planner): {real_s * 1e3:.0f} ms "
          f"over {real_plan.candidates:,} candidates")  # fmt: skip
    print(f"reference, the costing arithmetic candidate by candidate in Python: {naive_s * 1e3:.0f} ms; "
          f"vectorised costing (3 evaluations: expected, low, high; spot model included): "
          f"{costing_s * 1e3:.0f} ms -> {naive_s / costing_s:.1f}× faster")  # fmt: skip
    print(f"machine reference, numpy sort of 1e6 floats: {sort_s * 1e3:.1f} ms "
          f"-> plan = {plan_s / sort_s:.0f}× that")  # fmt: skip
    if not args.no_process:
        text = process_target(args.runs, args.baseline)
        print(text)
        RESULTS.write_text(text + "\n")


ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "plan.txt"
REFERENCE = "python -c 'import gpuplan' (reference)"


def process_target(runs: int, baseline: Path | None) -> str:
    """``gpuplan plan`` as a user runs it, over the shipped snapshot, the profile cached by a first
    run: each command's best of ``runs``, the trees interleaved run by run."""
    import tempfile

    example = str(ROOT / "examples" / "resnet50-imagenet.yaml")
    trees = {"this checkout": None, **({f"baseline {baseline}": baseline} if baseline else {})}
    cases = {
        REFERENCE: lambda _db: IMPORT_GPUPLAN,
        "plan resnet50 --json, profile cached": lambda db: gpuplan("--db", db, "plan", example, "--json"),
        "plan resnet50 (table), profile cached": lambda db: gpuplan("--db", db, "plan", example),
    }
    best: dict[tuple[str, str], Run] = {}
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {tree: str(Path(tmp) / f"plan-{n}.sqlite") for n, tree in enumerate(trees)}
        for tree, src in trees.items():  # seeds the database and traces the model once; warms the bytecode
            for make in cases.values():
                measure(make(dbs[tree]), 1, child_env(src))
        for _ in range(runs):
            for label, make in cases.items():
                for tree, src in trees.items():
                    run = measure(make(dbs[tree]), 1, child_env(src))
                    best[(tree, label)] = best.get((tree, label), run).best_with(run)
    out = header(
        "gpuplan plan examples/resnet50-imagenet.yaml", runs, "; targets: under 1 s (CPU) and 300 MB"
    )
    for tree in trees:
        out.append(f"{tree}:")
        ref = best[(tree, REFERENCE)]
        for label in cases:
            run = best[(tree, label)]
            text = "  " + line(label, run, ref, None if label == REFERENCE else 1.0)
            if label != REFERENCE:
                mb = run.rss_mb * 1.048576
                text += f", {mb:.0f} MB < 300 MB: {'met' if mb < 300 else 'NOT met'}"
            out.append(text)
    return "\n".join(out)


if __name__ == "__main__":
    main()
