"""A data set's size may be written with its unit: ``size_gb: 2TB`` had been refused as "not a
number" with no word on the unit, where ``samples: 20M`` was read."""

from __future__ import annotations

import pytest

from gpuplan.errors import InputError
from gpuplan.workload import Workload, load_workload

_BASE = {
    "name": "t",
    "task": "train",
    "model": {"preset": "resnet50"},
    "inputs": {"batch_size": 64, "image_size": 224},
}


@pytest.mark.parametrize(
    ("written", "gb"),
    [(2000, 2000.0), ("2000", 2000.0), ("2TB", 2000.0), ("500 GB", 500.0), ("1.5TiB", 1.5 * 1024**4 / 1e9),
     ("2,000 GB", 2000.0), ("750MB", 0.75)],
)  # fmt: skip
def test_a_size_is_read_with_its_unit(written: object, gb: float) -> None:
    w = Workload.model_validate(
        {**_BASE, "data": {"samples": 1000, "size_gb": written, "results_gb": written}}
    )
    assert w.data.size_gb == pytest.approx(gb) and w.data.results_gb == pytest.approx(gb)


@pytest.mark.parametrize("written", ["2 terabytes", "2T", "-2TB", "lots"])
def test_a_size_in_other_words_is_one_line_naming_the_units(written: str) -> None:
    with pytest.raises(InputError) as e:
        load_workload({**_BASE, "data": {"samples": 1000, "size_gb": written}})
    text = str(e.value)
    assert "size_gb" in text and "\n" not in text.strip(), text
