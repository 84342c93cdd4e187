"""``tco --budget`` takes a budget for the whole horizon (a year or more of work), so the refusal of
one that is no amount gives examples of a budget's size that the option itself reads, not a price
per hour's (it had said "write it as ¥18.49 or $2.6")."""

from __future__ import annotations

import re

import pytest

from gpuplan.cli._given_price import given_price_in
from gpuplan.units import BUDGET_EXAMPLES, MAX_BUDGET_USD, MIN_BUDGET
from one_line import refused


def _examples(line: str) -> tuple[str, str]:
    found = re.search(r"write it as (\S+) or (\S+?);", line)
    assert found is not None, line
    return found.group(1), found.group(2)


def test_the_hint_gives_budget_sized_examples_that_parse(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["tco", "--budget", "abc"], capsys, code=2)
    assert "abc is not an amount" in line and "¥18.49" not in line and "$2.6" not in line
    one, two = _examples(line)
    assert (one, two) == BUDGET_EXAMPLES
    parse = given_price_in(MIN_BUDGET, MAX_BUDGET_USD, BUDGET_EXAMPLES)
    dollars, yuan = parse(one), parse(two)
    # each in its currency, as signed (no shell `$` to lose), and of a year's size
    assert (dollars.currency, dollars.amount) == ("USD", 250_000.0)
    assert (yuan.currency, yuan.amount) == ("CNY", 1_200_000.0)


def test_the_hint_is_the_same_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["--lang", "zh", "tco", "--budget", "abc"], capsys, code=2)
    assert "250000USD" in line and "¥1200000" in line
