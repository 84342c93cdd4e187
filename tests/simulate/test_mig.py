"""MIG tables follow NVIDIA's placement rules (nvidia-smi mig -lgipp), and layouts respect them."""

from __future__ import annotations

import pytest

from gpuplan.errors import InputError, NotFoundError
from gpuplan.simulate.mig import layout_is_valid, layouts, mig_gpu, mig_gpus, place


@pytest.mark.parametrize(
    ("gpu", "names"),
    [
        ("A100-SXM4-40GB", ("1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")),
        ("A100-SXM4-80GB", ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
        ("H100-SXM", ("1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
        ("H200-SXM", ("1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb")),
    ],
)
def test_profile_names_and_instance_counts_match_nvidia(gpu: str, names: tuple[str, ...]) -> None:
    table = mig_gpu(gpu)
    assert tuple(p.name for p in table.profiles) == names
    # Instances available per the MIG user guide: 7, 1 (+me), 4, 3, 2, 1, 1.
    assert [p.max_instances for p in table.profiles] == [7, 1, 4, 3, 2, 1, 1]
    assert [p.compute_slices for p in table.profiles] == [1, 1, 1, 2, 3, 4, 7]


def test_start_slots_are_the_lgipp_placements() -> None:
    t = mig_gpu("A100-SXM4-40GB")
    starts = {p.name: (p.starts, p.memory_slices) for p in t.profiles}
    assert starts["1g.5gb"] == ((0, 1, 2, 3, 4, 5, 6), 1)
    assert starts["1g.10gb"] == ((0, 2, 4, 6), 2)
    assert starts["2g.10gb"] == ((0, 2, 4), 2)
    assert starts["3g.20gb"] == ((0, 4), 4)
    assert starts["4g.20gb"] == ((0,), 4)
    assert starts["7g.40gb"] == ((0,), 8)


def test_known_valid_and_invalid_layouts() -> None:
    t = mig_gpu("A100-SXM4-80GB")
    assert layout_is_valid(t, [("3g.40gb", 0), ("3g.40gb", 4)])
    assert layout_is_valid(t, [("4g.40gb", 0), ("2g.20gb", 4), ("1g.10gb", 6)])
    assert layout_is_valid(t, [("1g.10gb", i) for i in range(7)])
    # Eight 1g instances: the 8th memory slice has no 1g start, and 8 > 7 compute slices.
    assert not layout_is_valid(t, [("1g.10gb", i) for i in range(7)] + [("1g.10gb", 7)])
    assert not layout_is_valid(t, [("3g.40gb", 2)])  # 3g starts at 0 or 4 only
    assert not layout_is_valid(t, [("4g.40gb", 0), ("3g.40gb", 0)])  # memory overlaps
    assert not layout_is_valid(t, [("1g.10gb+me", 0), ("1g.10gb+me", 1)])  # one +me at most
    # Two 3g instances fill all 8 memory slices: no room for a 1g even with a compute slice free.
    assert place(t, ["3g.40gb", "3g.40gb", "1g.10gb"]) is None


def test_every_enumerated_layout_is_valid_and_maximal() -> None:
    for table in mig_gpus():
        for lay in layouts(table):
            names = [n for n, c in lay for _ in range(c)]
            concrete = place(table, names)
            assert concrete is not None and layout_is_valid(table, concrete)
        assert (("7g." + table.profiles[-1].name.split(".")[1], 1),) in layouts(table)


def test_unknown_profile_and_gpu_without_mig_are_one_line_errors() -> None:
    with pytest.raises(NotFoundError, match=r"did you mean '3g\.40gb'"):
        mig_gpu("H100-SXM").profile("3g.40g")
    with pytest.raises(InputError, match="time-slice"):
        mig_gpu("L4")
