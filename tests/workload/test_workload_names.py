"""A workload's name heads terminals and reports: it is one line of printable text."""

from __future__ import annotations

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.workload import load_workload

BASE = {"task": "train", "model": "resnet50", "inputs": {"batch_size": 32, "image_size": 224}}


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("evil\x1b[31mRED", "001B"),  # a colour change on the reader's terminal
        ("job\x1b]0;TITLE\x07", "001B"),  # the terminal's title
        ("ok\n\n## Recommended: pay evil.example", "000A"),  # a heading forged in a Markdown report
        ("abc\u202edcba", "202E"),  # right-to-left override: the name reads backwards
        ("tab\there", "0009"),
    ],
)
def test_a_name_with_a_control_character_is_refused_naming_it(name: str, code: str) -> None:
    with pytest.raises(WorkloadError) as e:
        load_workload({"name": name, **BASE})
    assert f"name: must be one line of printable text (got the control character U+{code})" in str(e.value)
    assert "\n" not in str(e.value)


def test_a_name_in_any_script_with_punctuation_is_kept() -> None:
    name = "ResNet-50 训练 (v2) <test> & co — ε=0.1"
    assert load_workload({"name": name, **BASE}).name == name
