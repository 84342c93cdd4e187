"""The typical host that stands in for an unnamed instance: the median vCPUs per GPU of the
catalog's priced instance types of a GPU, at the instance size a job runs on."""

from __future__ import annotations

import pytest

from gpuplan.perf import typical_host as th
from gpuplan.perf.input_pipeline import InputPipeline, typical_input_pipeline

NAN = float("nan")
# Per GPU, per GPUs per instance: (vCPUs, RAM GiB or NaN) per GPU of each (provider, instance type).
TABLE = {
    "A100-SXM4-80GB": {
        1: {("a", "x1"): (8.0, 64.0), ("b", "y1"): (12.0, 85.0), ("c", "z1"): (30.0, NAN)},
        8: {
            ("a", "x8"): (12.0, 120.0),
            ("b", "y8"): (12.0, 144.0),
            ("c", "z8"): (30.0, 240.0),
            ("d", "w8"): (16.0, NAN),
        },
    },
    "T4": {4: {("a", "t4"): (0.25, NAN), ("b", "t4b"): (12.0, NAN)}},
}


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(th, "_catalog_hosts", lambda: TABLE)


@pytest.mark.usefixtures("table")
def test_the_median_of_the_instance_types_of_the_jobs_size() -> None:
    one = th.typical_host("A100-SXM4-80GB", 1)
    # 1 GPU: the 1-GPU types 8, 12, 30 → median 12 (not the fewest, 8).
    assert one is not None and (one.vcpus_per_gpu, one.instance_types, one.gpus_per_instance) == (12.0, 3, 1)
    # Their RAM: the median of the types that give it (64, 85; z1 gives none) = 74.5 GiB per GPU.
    assert one.ram_gib_per_gpu == 74.5
    assert th.typical_host("T4", 4).ram_gib_per_gpu is None  # type: ignore[union-attr]
    # 2 GPUs: the smallest size that holds them, 8: 12, 12, 16, 30 → (12 + 16) / 2 = 14.
    two = th.typical_host("A100-SXM4-80GB", 2)
    assert two is not None and (two.vcpus_per_gpu, two.gpus_per_instance) == (14.0, 8)
    # 64 GPUs span nodes: the largest size, 8.
    many = th.typical_host("A100-SXM4-80GB", 64)
    assert many is not None and many.gpus_per_instance == 8 and many.own_offers


@pytest.mark.usefixtures("table")
def test_a_gpu_without_offers_says_its_rate_is_unknown_and_takes_every_gpus_types() -> None:
    h = th.typical_host("B300", 1)
    # No B300 in the table: every GPU's 1-GPU types (8, 12, 30) → 12, said as not its own.
    assert h is not None and not h.own_offers and h.vcpus_per_gpu == 12.0 and h.instance_types == 3
    assert "unknown" in h.describe() and "B300" in h.describe()
    assert "any GPU" in h.source


def test_an_empty_catalog_gives_no_typical_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(th, "_catalog_hosts", lambda: {})
    assert th.typical_host("A100-SXM4-80GB", 1) is None


def test_the_shipped_catalog_has_a_typical_host_for_every_priced_gpu() -> None:
    hosts = th._catalog_hosts()
    assert "A100-SXM4-80GB" in hosts and "T4" in hosts
    for gpu, sizes in hosts.items():
        for types in sizes.values():
            assert types and all(v > 0 and not r <= 0 for v, r in types.values()), gpu
    h = th.typical_host("H100-SXM", 8)
    assert h is not None and h.own_offers and h.gpus_per_instance == 8 and h.vcpus_per_gpu > 1


@pytest.mark.usefixtures("table")
def test_only_a_dataloader_image_job_without_its_own_workers_gets_a_typical_pipeline() -> None:
    t = th.typical_host("A100-SXM4-80GB", 1)
    pipe = typical_input_pipeline(224, t)
    assert isinstance(pipe, InputPipeline) and pipe.slow_end_only and pipe.vcpus_per_gpu == 12.0
    assert typical_input_pipeline(None, t) is None  # text
    assert typical_input_pipeline(224, t, kind="dali") is None
    assert typical_input_pipeline(224, t, kind="synthetic") is None
    assert typical_input_pipeline(224, t, workers=4) is None  # the workload says its workers
    assert typical_input_pipeline(224, None) is None


def test_gcps_attachable_gpus_count_once_per_gpu_count_at_skypilots_default_host() -> None:
    # The shipped catalog lists 17 N1 hosts for 4 × T4 (n1-standard-1 … n1-highmem-96); the median
    # takes one of them, SkyPilot's default: at least 48 vCPUs and 192 GiB, n1-standard-64.
    four = th._catalog_hosts()["T4"][4]
    gcp = {name: v for (provider, name), v in four.items() if provider == "gcp"}
    assert gcp == {"n1-standard-64 + 4x nvidia-tesla-t4": (16.0, 60.0)}  # 240 GB ÷ 4
    # The other providers' types are all still there, each once: AWS's g4dn.12xlarge (12 vCPUs and
    # 48 GiB per GPU).
    assert four[("aws", "g4dn.12xlarge")] == (12.0, 48.0)
    h = th.typical_host("T4", 4)
    assert h is not None and h.instance_types == len(four) and h.vcpus_per_gpu > 4
    assert "counted once" in h.source and "SkyPilot's default host" in h.source
    one = th._catalog_hosts()["V100-SXM2-16GB"][1]
    assert one[("gcp", "n1-highmem-8 + 1x nvidia-tesla-v100")] == (8.0, 52.0)  # 8 vCPUs and 32 GiB at least
    assert sum(provider == "gcp" for provider, _ in one) == 1


def test_skypilots_default_n1_host_is_the_cheapest_big_enough_in_every_zone_of_the_catalog() -> None:
    """n1_default_host takes the fewest vCPUs, then the least memory, for SkyPilot's cheapest: the
    shipped prices agree in every zone that lists the GPUs."""
    import csv
    from collections import defaultdict
    from importlib import resources

    from gpuplan.catalog.providers.gcp import N1_DEFAULT_GIB_PER_VCPU, N1_GPUS, n1_default_host, n1_offer

    data = resources.files("gpuplan.catalog") / "data"
    with (data / "prices.csv").open(encoding="utf-8") as f:
        on_demand = {
            (r["region"], r["zone"], r["instance_type"]): float(r["amount"])
            for r in csv.DictReader(f)
            if r["provider"] == "gcp" and r["pricing"] == "on_demand"
        }
    zones: dict[tuple[str, str, str, int], list[tuple[float, float, float]]] = defaultdict(list)
    with (data / "offers.csv").open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            pairing = n1_offer(r["instance_type"]) if r["provider"] == "gcp" else None
            cost = on_demand.get((r["region"], r["zone"], r["instance_type"]))
            if pairing is not None and cost is not None:
                shape = (cost, float(r["vcpus"]), float(r["memory_gib"]))
                zones[(r["region"], r["zone"], *pairing)].append(shape)
    assert len(zones) > 50
    for (_, _, model, count), shapes in zones.items():
        least = N1_GPUS[model].default_vcpus[count]
        big = [s for s in shapes if s[1] >= least and s[2] >= N1_DEFAULT_GIB_PER_VCPU * least]
        cheapest = min(big)
        assert n1_default_host(model, count, [(v, m) for _, v, m in shapes]) == cheapest[1:]


def test_the_default_n1_host_of_a_short_menu_is_its_biggest() -> None:
    from gpuplan.catalog.providers.gcp import n1_default_host, n1_offer, n1_offer_name

    # 1 × V100 wants 8 vCPUs and 32 GiB: n1-standard-8 (30 GiB) falls short, n1-highmem-8 does not.
    assert n1_default_host("V100", 1, [(8, 30.0), (8, 52.0), (16, 60.0), (4, 26.0)]) == (8, 52.0)
    assert n1_default_host("V100", 1, [(2, 7.5), (4, 15.0)]) == (4, 15.0)  # none big enough: the biggest
    assert n1_default_host("T4", 8, [(96, 360.0)]) is None  # GCP attaches no 8 × T4
    assert n1_default_host("A100", 1, [(12, 85.0)]) is None
    name = n1_offer_name("n1-standard-8", 2, "T4")
    assert name == "n1-standard-8 + 2x nvidia-tesla-t4" and n1_offer(name) == ("T4", 2)
    assert n1_offer("g2-standard-8") is None and n1_offer("n1-standard-8 + 1x nvidia-tesla-k80") is None


@pytest.mark.usefixtures("table")
def test_an_unknown_hosts_ram_is_a_typical_ones_at_the_slow_end() -> None:
    from gpuplan.perf.input_pipeline import typical_reads

    t = th.typical_host("A100-SXM4-80GB", 1)  # 74.5 GiB per GPU, 1 GPU per instance
    # 150 GB over 3 epochs: 139.7 GiB > 0.8 × 74.5 → re-read from disk each epoch.
    reads = typical_reads(150.0, 1_281_167, 3.0, t)
    assert reads is not None and reads.ram_gib == 74.5 and reads.gpus_per_node == 1.0
    assert typical_reads(40.0, 1_281_167, 3.0, t) is None  # 37 GiB fits 0.8 × 74.5
    assert typical_reads(150.0, 1_281_167, 1.0, t) is None  # read once
    assert typical_reads(150.0, 1_281_167, 3.0, th.typical_host("T4", 4)) is None  # no RAM known
    # A job that decodes nothing on the CPUs gets a pipeline of the disk alone, at the slow end.
    pipe = typical_input_pipeline(None, t, reads=reads)
    assert pipe is not None and pipe.slow_end_only and pipe.vcpus_per_gpu is None and pipe.reads is reads
    assert "a typical instance's 74.5 GiB RAM" in pipe.describe(1)
    image = typical_input_pipeline(224, t, reads=reads)
    assert image is not None and image.vcpus_per_gpu == 12.0 and image.reads is reads
