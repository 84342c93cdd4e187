"""Unknown names: a close match is suggested; with none, a short list of what is known is shown."""

from __future__ import annotations

from gpuplan.errors import NotFoundError, closest


def test_close_match_is_suggested() -> None:
    e = NotFoundError("sort key", "prise", ["price", "price_per_gpu", "gpu_memory"])
    assert str(e) == "unknown sort key 'prise'; did you mean 'price'?"


def test_no_close_match_lists_a_short_set() -> None:
    e = NotFoundError("sort key", "cheapest", ["price", "price_per_gpu", "gpu_memory"])
    assert str(e) == "unknown sort key 'cheapest'; use one of: price, price_per_gpu, gpu_memory"


def test_a_long_set_is_not_listed() -> None:
    e = NotFoundError("GPU", "zzz", [f"gpu{i}" for i in range(40)])
    assert str(e) == "unknown GPU 'zzz'"


def test_a_letter_written_for_a_look_alike_digit_is_suggested_first() -> None:
    # "A1OO" (letter O for zero) was answered "did you mean 'A10' or 'A10G' or 'A100'?": spelling
    # alone ranks the shorter name nearer than the one the user meant.
    known = ["A10", "A10G", "A100", "H100", "L4", "L40", "L40S"]
    assert closest("A1OO", known)[0] == "A100"
    assert closest("L4O", known)[0] == "L40"
    assert closest("HlOO", known) == ["H100"]


def test_a_name_written_with_its_parts_in_another_order_is_suggested_first() -> None:
    # "bf16-amp" was answered "did you mean 'bf16' or 'bf16-master' or 'fp16-master'?": 'bf16' has
    # no fp32 master copy, where the user meant amp-bf16
    known = ["fp32", "amp-fp16", "amp-bf16", "bf16", "bf16-master", "fp16-master"]
    assert closest("bf16-amp", known)[0] == "amp-bf16"
    assert closest("FP16_AMP", known)[0] == "amp-fp16"
    assert closest("master_bf16", known)[0] == "bf16-master"
    # one part is not a reordering: spelling still decides
    assert closest("bf61", known)[0] == "bf16"
