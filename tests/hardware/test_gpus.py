"""Datasheet figures pinned against their sources (claims_check.md), and GPU name resolution."""

from __future__ import annotations

import pytest

from gpuplan.errors import AmbiguousNameError, InputError, NotFoundError
from gpuplan.hardware import (
    MAX_GPU_COUNT,
    achievable_matmul_fraction,
    all_gpus,
    get_gpu,
    gpus_named,
    parse_gpu_spec,
    resolve_gpu,
)


def test_v100_fp32_is_15_7_not_the_125_tensor_figure() -> None:
    g = get_gpu("V100-SXM2-16GB")
    assert g.fp32_tflops == 15.7
    assert g.fp32_tflops != 125  # 125 TFLOPS is the FP16 tensor-core peak (claims_check.md)
    assert g.fp16_tflops == 125


def test_a100_bf16_dense_is_312() -> None:
    # 312 dense / 624 sparse (NVIDIA A100 datasheet)
    assert get_gpu("A100-SXM4-40GB").bf16_tflops == 312
    assert get_gpu("A100-SXM4-80GB").bf16_tflops == 312


def test_h100_sxm_bf16_dense_and_fp32() -> None:
    g = get_gpu("H100-SXM")
    assert g.bf16_tflops == 989.5  # 1979 is the sparse figure
    assert g.fp32_tflops == 67  # not the articles' 39.5
    assert g.fp32_tflops != 39.5


def test_h200_memory_and_bandwidth() -> None:
    g = get_gpu("H200-SXM")
    assert g.memory_gib == 141  # not 144 (physical stack capacity)
    assert g.memory_bandwidth_gbps == 4800


def test_a100_has_nvlink_gen_3_not_4() -> None:
    for gpu_id in ("A100-SXM4-40GB", "A100-SXM4-80GB"):
        g = get_gpu(gpu_id)
        assert g.nvlink_gen == 3
        assert g.nvlink_gbps == 600
        assert "NVLink 3" in g.interconnect
    assert get_gpu("H100-SXM").nvlink_gen == 4


def test_a100_alone_is_ambiguous_and_lists_the_variants() -> None:
    with pytest.raises(AmbiguousNameError) as e:
        resolve_gpu("a100")
    assert set(e.value.choices) >= {"A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIE-40GB", "A100-PCIE-80GB"}
    assert "A100-SXM4-80GB" in str(e.value)


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("h100 sxm", "H100-SXM"),
        ("NVIDIA H100 SXM", "H100-SXM"),
        ("t4", "T4"),
    ],
)
def test_names_people_type_resolve(name: str, gpu_id: str) -> None:
    assert resolve_gpu(name).id == gpu_id


def test_name_with_count() -> None:
    gpu, count = parse_gpu_spec("V100-SXM2-16GB:8")
    assert gpu.id == "V100-SXM2-16GB"
    assert count == 8


@pytest.mark.parametrize("count", ["\u00b2", "\uff18", "\u0663", "0", "-1", "8x"])
def test_a_count_that_is_not_ascii_digits_is_refused_in_one_line(count: str) -> None:
    # "²".isdigit() is True and int("²") a ValueError: it was a traceback, and a 500 from the service
    with pytest.raises(NotFoundError, match="write NAME:COUNT with a count of 1 or more"):
        parse_gpu_spec(f"V100-SXM2-16GB:{count}")


@pytest.mark.parametrize("spec", ["A10G:eight", "H100-SXM:abc", "V100-SXM2-16GB:one"])
def test_a_word_after_a_known_gpu_is_a_count_to_fix(spec: str) -> None:
    # "A10G:eight" had been "unknown GPU 'A10G:eight'; did you mean 'A10G'?", where "A10G:0" says
    # the count is wrong
    count = spec.partition(":")[2]
    with pytest.raises(NotFoundError) as info:
        parse_gpu_spec(spec)
    assert str(info.value) == f"unknown GPU count {count!r} (write NAME:COUNT with a count of 1 or more)"
    # a word after a name that is no GPU stays an unknown GPU
    with pytest.raises(NotFoundError, match="unknown GPU 'A10X:eight'"):
        parse_gpu_spec("A10X:eight")


@pytest.mark.parametrize("count", ["4097", "99999999999999999999"])
def test_a_count_past_the_bound_is_refused_in_one_line(count: str) -> None:
    # 10^20 GPUs was estimated: a step time of 10^15 s
    with pytest.raises(InputError, match="at most 4,096 GPUs; write NAME:COUNT with a count from 1 to 4,096"):
        parse_gpu_spec(f"H100-SXM:{count}")
    assert parse_gpu_spec(f"H100-SXM:{MAX_GPU_COUNT}")[1] == MAX_GPU_COUNT == 4096


@pytest.mark.parametrize("name", ["H100-SXM: y\n#", "H100-SXM:\x1b[2J"])
def test_a_name_with_a_colon_and_no_count_after_it_is_an_unknown_gpu(name: str) -> None:
    # a tampered plan's gpu was "unknown GPU count ' y\n#'"
    for read in (parse_gpu_spec, resolve_gpu, get_gpu):
        with pytest.raises(NotFoundError) as info:
            read(name)
        said = str(info.value)
        assert said.startswith(f"unknown GPU {name!r}; did you mean 'H100-SXM'"), said
        assert said.isprintable()


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        # An alias one part carries does not hide the other part it names as well.
        ("A100-80G", {"A100-SXM4-80GB", "A100-PCIE-80GB"}),
        ("A100-80GB", {"A100-SXM4-80GB", "A100-PCIE-80GB"}),
        ("h100-80gb", {"H100-SXM", "H100-PCIE"}),
        ("h200", {"H200-SXM", "H200-NVL"}),
        ("V100:8", {"V100-SXM2-16GB", "V100-SXM2-32GB", "V100-PCIE-16GB", "V100-PCIE-32GB"}),
    ],
)
def test_a_name_that_fits_several_parts_asks_which(name: str, parts: set[str]) -> None:
    with pytest.raises(AmbiguousNameError) as e:
        parse_gpu_spec(name)
    assert set(e.value.choices) == parts


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        # A family name is the model's whole word: every variant of it, whatever alias one carries.
        ("H100", {"H100-SXM", "H100-PCIE", "H100-NVL"}),
        ("a100", {"A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIE-40GB", "A100-PCIE-80GB"}),
        ("A100 SXM", {"A100-SXM4-40GB", "A100-SXM4-80GB"}),
        ("80GB A100", {"A100-SXM4-80GB", "A100-PCIE-80GB"}),
    ],
)
def test_a_family_name_is_every_part_of_the_family(name: str, parts: set[str]) -> None:
    assert {g.id for g in gpus_named(name)} == parts


@pytest.mark.parametrize(
    ("name", "suggested"),
    [("H10", "H100"), ("h100-sx", "H100-SXM"), ("A100-SXM4-8", "A100-SXM4-80GB"), ("mi300", "MI300X")],
)
def test_a_piece_of_a_name_is_refused_with_the_nearest(name: str, suggested: str) -> None:
    # The beginning of several ids is not a name: refused, never widened to the parts it begins.
    with pytest.raises(NotFoundError) as e:
        gpus_named(name)
    assert not isinstance(e.value, AmbiguousNameError)
    assert suggested in e.value.suggestions
    assert "did you mean" in str(e.value)


@pytest.mark.parametrize("name", ["sxm", "80gb", "pcie"])
def test_a_form_factor_or_a_memory_size_alone_names_no_gpu(name: str) -> None:
    with pytest.raises(NotFoundError) as e:
        resolve_gpu(name)
    assert not isinstance(e.value, AmbiguousNameError)


def test_unknown_name_suggests() -> None:
    with pytest.raises(NotFoundError) as e:
        resolve_gpu("h1000")
    assert e.value.suggestions
    assert "did you mean" in str(e.value)


def test_launch_and_driver_names_come_from_the_hardware_table() -> None:
    from gpuplan.hardware import gpu_by_driver_name

    h100 = get_gpu("H100-SXM")
    assert (h100.skypilot_name, h100.gke_accelerator) == ("H100", "nvidia-h100-80gb")
    # nvidia-smi names the SXM5 part "NVIDIA H100 80GB HBM3", which no alias resolves.
    found = gpu_by_driver_name("nvidia h100 80gb hbm3")
    assert found is not None and found.id == "H100-SXM"
    assert gpu_by_driver_name("NVIDIA Z100") is None
    # Every GKE label follows GCP's nvidia-<model> spelling.
    assert all(g.gke_accelerator.startswith("nvidia-") for g in all_gpus() if g.gke_accelerator)


def test_measured_matmul_fractions_are_the_published_table_s() -> None:
    # Stas Bekman, Machine Learning Engineering, "Maximum Achievable Matmul FLOPS comparison table":
    # BF16 A100 SXM 271.2 / 312, H100 SXM 794.5 / 989 ("H200 is the same"); FP8 H100 SXM 1402.6 / 1979
    assert get_gpu("A100-SXM4-80GB").matmul_fraction == pytest.approx(0.869, abs=1e-3)
    assert get_gpu("A100-PCIE-80GB").matmul_fraction == pytest.approx(0.811, abs=1e-3)
    assert get_gpu("H100-SXM").matmul_fraction == get_gpu("H200-SXM").matmul_fraction == 0.803
    assert get_gpu("H100-SXM").matmul_fraction_fp8 == pytest.approx(0.709, abs=1e-3)
    for g in all_gpus():
        for value, source in (
            (g.matmul_fraction, g.matmul_fraction_source),
            (g.matmul_fraction_fp8, g.matmul_fraction_fp8_source),
        ):
            assert source, g.id  # a figure names its measurement; an empty one says why
            assert (value is None) == source.startswith(("unknown", "no FP8")), g.id
            assert value is None or 0.3 < value <= 1.0 or (g.consumer and value < 1.2), g.id


def test_crowd_measured_fractions_are_the_median_run_over_the_datasheet_peak() -> None:
    # torch-performance-test-data, database.md (commit 9d82827): the best square torch.mm per run
    assert get_gpu("L40S").matmul_fraction == pytest.approx(269.15 / 362.05, abs=1e-3)
    assert get_gpu("L4").matmul_fraction == pytest.approx(70.89 / 121, abs=1e-3)
    assert get_gpu("H100-PCIE").matmul_fraction == pytest.approx(495.93 / 756, abs=1e-3)
    # Turing and Volta: their FP16 tensor path (neither has BF16 tensor cores); T4 median of 3 runs
    assert get_gpu("T4").matmul_fraction == pytest.approx(41.93 / 65, abs=1e-3)
    assert get_gpu("V100-SXM2-16GB").matmul_fraction == get_gpu("V100-SXM2-32GB").matmul_fraction
    assert get_gpu("V100-SXM2-16GB").matmul_fraction == pytest.approx(94.84 / 125, abs=1e-3)
    # GeForce cards hold clocks above their rated boost: the RTX 3090's median run is 76.58 of 71
    assert get_gpu("RTX-3090").matmul_fraction == pytest.approx(76.58 / 71, abs=1e-3)
    assert get_gpu("RTX-4090").matmul_fraction == pytest.approx(1.0, abs=0.01)
    # the power-limited data-centre Ada parts reach less of their peak than the GeForce one
    assert achievable_matmul_fraction(get_gpu("L4")) < achievable_matmul_fraction(get_gpu("L40S")) < 0.8


def test_an_unmeasured_gpu_takes_the_lowest_measured_matmul_fraction_of_its_kind() -> None:
    def measured(arch: str | None = None) -> list[float]:
        return [
            g.matmul_fraction
            for g in all_gpus()
            if g.vendor == "nvidia" and g.matmul_fraction and arch in (None, g.architecture)
        ]

    a10 = get_gpu("A10")
    assert a10.matmul_fraction is None
    # the worst measured Ampere part (the RTX A6000), not the 72 W Ada L4 nor the best case 1.0
    assert achievable_matmul_fraction(a10) == min(measured("Ampere")) == get_gpu("RTX-A6000").matmul_fraction
    assert achievable_matmul_fraction(a10) < achievable_matmul_fraction(get_gpu("A100-SXM4-80GB"))
    # the H100 NVL is costed like the H100 PCIe, the lowest measured Hopper part
    nvl = get_gpu("H100-NVL")
    assert nvl.matmul_fraction is None
    assert achievable_matmul_fraction(nvl) == get_gpu("H100-PCIE").matmul_fraction == min(measured("Hopper"))
    # an architecture with no measured part (Pascal) takes the vendor's lowest (the L4's)
    p100 = get_gpu("P100-PCIE-16GB")
    assert achievable_matmul_fraction(p100) == min(measured()) == get_gpu("L4").matmul_fraction
    # an unmeasured FP8 fraction is the vendor's lowest FP8 one, and at most the GPU's own BF16 one
    l40s, mi300x = get_gpu("L40S"), get_gpu("MI300X")
    assert achievable_matmul_fraction(l40s, "fp8") == get_gpu("H100-SXM").matmul_fraction_fp8
    assert achievable_matmul_fraction(mi300x, "fp8") <= achievable_matmul_fraction(mi300x) < 0.6


def test_the_china_market_parts_differ_from_their_base_part_where_their_sources_say() -> None:
    # A800 = A100 with NVLink cut to 400 GB/s; H800 = H100 with NVLink cut to 400 GB/s
    for cut, base in (
        ("A800-SXM4-80GB", "A100-SXM4-80GB"),
        ("A800-PCIE-80GB", "A100-PCIE-80GB"),
        ("H800-SXM", "H100-SXM"),
        ("H800-PCIE", "H100-PCIE"),
    ):
        g, b = get_gpu(cut), get_gpu(base)
        assert g.nvlink_gbps == 400 and b.nvlink_gbps > 400, cut
        assert (g.bf16_tflops, g.memory_gib, g.memory_bandwidth_gbps) == (
            b.bf16_tflops,
            b.memory_gib,
            b.memory_bandwidth_gbps,
        ), cut
    # H20: Hopper with more memory and far less compute than the H100 SXM
    h20, h100 = get_gpu("H20"), get_gpu("H100-SXM")
    assert (h20.architecture, h20.memory_gib, h20.memory_bandwidth_gbps) == ("Hopper", 96, 4000)
    assert h20.bf16_tflops == 148 and h100.bf16_tflops is not None
    assert h20.bf16_tflops < h100.bf16_tflops / 5
    # L20: Ada, 48 GB GDDR6; its BF16 peak derived from the L40's rate per SM per clock (181.05
    # TFLOPS on 142 SMs at 2,490 MHz) at its own 92 SMs and 2,520 MHz, said so in its notes; FP8 is
    # in no source read and stays empty
    l20, l40 = get_gpu("L20"), get_gpu("L40")
    assert (l20.architecture, l20.memory_gib, l20.memory_type) == ("Ada Lovelace", 48, "GDDR6")
    assert l40.bf16_tflops is not None and l20.bf16_tflops is not None
    per_sm_clock = l40.bf16_tflops * 1e12 / (142 * 2490e6)
    assert l20.bf16_tflops == pytest.approx(per_sm_clock * 92 * 2520e6 / 1e12, rel=1e-3)
    assert "DERIVED" in l20.notes and l20.fp8_tflops is None


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("H20", "H20"),
        ("nvidia h20", "H20"),
        ("l20", "L20"),
        ("h800 sxm", "H800-SXM"),
        ("a800-pcie", "A800-PCIE-80GB"),
    ],
)
def test_the_china_market_parts_resolve_by_the_names_people_type(name: str, gpu_id: str) -> None:
    assert resolve_gpu(name).id == gpu_id


def test_h800_and_a800_alone_name_every_part_of_the_family() -> None:
    assert {g.id for g in gpus_named("H800")} == {"H800-SXM", "H800-PCIE"}
    assert {g.id for g in gpus_named("a800")} == {"A800-SXM4-80GB", "A800-PCIE-80GB"}


def test_h2o_with_a_letter_o_is_refused_with_the_h20() -> None:
    with pytest.raises(NotFoundError) as e:
        resolve_gpu("H2O")
    assert not isinstance(e.value, AmbiguousNameError)
    assert "H20" in e.value.suggestions
    assert "did you mean 'H20'" in str(e.value)


def test_the_h20_and_a800_measured_fractions_are_their_torch_mm_runs() -> None:
    # torch-performance-test-data, database.md: H20 96GB 141.86 / 148, A800 SXM4 80GB 266.48 / 312,
    # H800 PCIe 503.8 / 756
    assert get_gpu("H20").matmul_fraction == pytest.approx(141.86 / 148, abs=1e-3)
    assert get_gpu("A800-SXM4-80GB").matmul_fraction == pytest.approx(266.48 / 312, abs=1e-3)
    assert get_gpu("H800-PCIE").matmul_fraction == pytest.approx(503.8 / 756, abs=1e-3)


def test_every_launch_date_has_a_source_and_is_not_in_the_future() -> None:
    import re
    from datetime import date

    dated = [g for g in all_gpus() if g.launched is not None]
    assert len(dated) >= len(all_gpus()) - 6  # the few without one say why (below)
    for g in all_gpus():
        if g.launched is None:
            # no source read: None, with the reason, never a guess
            assert g.launched_on is None
            assert g.launched_source.startswith("No launch date sourced:"), g.id
            continue
        assert re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", g.launched), g.id
        # a source a reader can follow, and the day it was read
        assert "https://" in g.launched_source or "http://" in g.launched_source, g.id
        read = re.search(r"read (\d{4}-\d{2}-\d{2})", g.launched_source)
        assert read is not None, g.id
        launched_on = g.launched_on
        assert launched_on is not None
        assert launched_on <= date.fromisoformat(read[1]) <= date.today(), g.id


def test_the_l20_launched_in_2023_11_as_its_sources_say() -> None:
    # introduced with the H20 and L2 in November 2023 (Everyeye, Tweakers); the catalog's SkyPilot
    # bound of 2020-11 for its prices is three years before it existed
    l20 = get_gpu("L20")
    assert l20.launched == "2023-11"
    assert "tweakers.net/nieuws/215984" in l20.launched_source
    assert get_gpu("H20").launched == "2023-11"


def test_an_unmeasured_part_takes_its_measured_twins_fraction_not_the_architectures_lowest() -> None:
    from gpuplan.hardware import same_chip_measured

    # The H800 SXM is the H100 SXM's chip at its clocks (132 SMs, HBM3, 989.5 TFLOPS): its matmuls
    # had been costed at the lowest measured Hopper share (the H100 PCIe's 65.6 %), 17 % slower
    h800, h100 = get_gpu("H800-SXM"), get_gpu("H100-SXM")
    assert h800.matmul_fraction is None and same_chip_measured(h800) == h100
    assert achievable_matmul_fraction(h800) == h100.matmul_fraction
    assert achievable_matmul_fraction(h800, "fp8") == h100.matmul_fraction_fp8
    assert same_chip_measured(get_gpu("A800-PCIE-80GB")) == get_gpu("A100-PCIE-80GB")
    # the same chip at other clocks (the NVL parts' lower peaks) is no twin: the architecture's lowest
    nvl = get_gpu("H100-NVL")
    assert same_chip_measured(nvl) is None
    assert achievable_matmul_fraction(nvl) == get_gpu("H100-PCIE").matmul_fraction
    # where both parts of a pair were measured, by different publishers, they agree within 2 %
    for cut, base in (("A800-SXM4-80GB", "A100-SXM4-80GB"), ("H800-PCIE", "H100-PCIE")):
        a, b = get_gpu(cut).matmul_fraction, get_gpu(base).matmul_fraction
        assert a is not None and b is not None and abs(a / b - 1) < 0.02, cut


def test_the_nearest_gpus_to_a_china_market_part_are_its_own_chip_first() -> None:
    from gpuplan.hardware import gpus_named, nearest_gpus

    every = [g.id for g in all_gpus()]
    # the H800 is the H100's GH100 with its NVLink cut, the A800 the A100's GA100
    assert nearest_gpus(gpus_named("H800"), every)[:2] == ["H100-PCIE", "H100-SXM"]
    assert nearest_gpus(gpus_named("A800"), every)[:2] == ["A100-PCIE-80GB", "A100-SXM4-80GB"]
    # only what is among them, never the GPU asked for; an id of no datasheet is passed over
    assert nearest_gpus(gpus_named("H800-SXM"), ["T4", "H800-SXM", "L40S", "not-a-gpu"]) == ["L40S", "T4"]
