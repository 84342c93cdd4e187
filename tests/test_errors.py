"""Unknown names: a close match is suggested; with none, a short list of what is known is shown."""

from __future__ import annotations

from gpuplan.errors import NotFoundError


def test_close_match_is_suggested() -> None:
    e = NotFoundError("sort key", "prise", ["price", "price_per_gpu", "gpu_memory"])
    assert str(e) == "unknown sort key 'prise'; did you mean 'price'?"


def test_no_close_match_lists_a_short_set() -> None:
    e = NotFoundError("sort key", "cheapest", ["price", "price_per_gpu", "gpu_memory"])
    assert str(e) == "unknown sort key 'cheapest'; use one of: price, price_per_gpu, gpu_memory"


def test_a_long_set_is_not_listed() -> None:
    e = NotFoundError("GPU", "zzz", [f"gpu{i}" for i in range(40)])
    assert str(e) == "unknown GPU 'zzz'"
