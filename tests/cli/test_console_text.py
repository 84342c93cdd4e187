"""How tables reach the terminal: a wide listing is measured on the rows that hold each column's
widest cell, to the same width Rich measures on every row (the layout chosen for 8,000 offers is
the one chosen before); and text is printed as written, brackets and colons included."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from gpuplan.report.common import house_table, widest_rows

WORDS = ["a", "p5en.48xlarge", "华为云/cn-north-4", ":smile:", "8× H100", "2025-03–2026-12-02", "—"]
#: Markup a console that reads it takes as style ("[b]…[/b]" is one cell narrower per pair) and
#: text one that does not (gpuplan's console): "[/x]" is only text to the latter.
MARKUP = {True: "[bold]wide[/bold]", False: "[/x]"}


def _table(rng: random.Random, rows: int, *, max_width: int | None, markup: bool) -> Table:
    words = [*WORDS, MARKUP[markup]]
    table = house_table()
    table.add_column("provider", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("notes", max_width=max_width, overflow="fold")
    for _ in range(rows):
        cells: list[str | Text] = []
        for _col in range(3):
            text = "\n".join(
                " ".join(rng.choices(words, k=rng.randint(1, 4))) for _ in range(rng.randint(1, 3))
            )
            cells.append(Text(text) if rng.random() < 0.5 else text)
        table.add_row(*cells)
    return table


@pytest.mark.parametrize("markup", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_widest_rows_measure_as_wide_as_every_row(seed: int, markup: bool) -> None:
    rng = random.Random(seed)
    console = Console(file=io.StringIO(), width=80, markup=markup, emoji=markup)
    options = console.options.update_width(10_000)
    table = _table(rng, 300, max_width=rng.choice([None, 28]), markup=markup)
    probe = widest_rows(console, table)
    assert len(probe.rows) <= 6 < len(table.rows)  # per column: its widest cell, its longest word
    assert Measurement.get(console, options, probe) == Measurement.get(console, options, table)
    # The table itself is untouched.
    assert len(table.rows) == 300 and all(len(c._cells) == 300 for c in table.columns)


def test_a_cell_that_is_not_text_keeps_the_whole_table() -> None:
    console = Console(file=io.StringIO(), width=80)
    table = house_table()
    table.add_column("x")
    for i in range(10):
        table.add_row(Table(str(i)) if i == 3 else str(i))
    assert widest_rows(console, table) is table


def test_brackets_in_a_fix_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    # The doctor's fix "pip install 'gpuplan[nvml]'" printed as "pip install 'gpuplan'": the
    # console took "[nvml]" for a style.
    from gpuplan.cli._i18n import console
    from gpuplan.machine.findings import Finding, Severity
    from gpuplan.report.machine import doctor_table

    fix = "pip install 'gpuplan[nvml]' to check driver, ECC, clocks and PCIe"
    console().print(doctor_table([Finding(check="driver", severity=Severity.INFO, message="m", fix=fix)]))
    assert "pip install 'gpuplan[nvml]'" in " ".join(capsys.readouterr().out.split())


def _text_table(rng: random.Random, rows: int, *, max_width: int | None, markup: bool) -> Table:
    # a run of Chinese wraps between its characters, on both paths alike
    words = [
        *WORDS,
        MARKUP[markup],
        "averyveryverylongwordwithnospacesthatmustfold",
        "时效未知（最多六点六年），已过期",
    ]
    table = house_table()
    table.add_column("provider", no_wrap=True)
    table.add_column("n\nper h", justify="right", no_wrap=True)
    table.add_column("notes", max_width=max_width, overflow="fold")
    for _ in range(rows):
        table.add_row(
            *(
                "\n".join(" ".join(rng.choices(words, k=rng.randint(1, 3))) for _ in range(rng.randint(1, 2)))
                for _col in range(3)
            )
        )
    return table


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("markup", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_a_long_table_written_line_by_line_reads_as_rich_writes_it(
    seed: int, markup: bool, terminal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rich lays out every cell of a table through its wrapping machinery (8 s for 5,700 offers);
    # Widest writes the rows of a long text table itself, and what it writes must be Rich's
    # output character for character and style for style, whatever wraps or folds.
    import gpuplan.report.common as common

    used: list[bool] = []
    fast_rows = common.fast_rows

    def spy(*args: Any) -> Any:
        written = fast_rows(*args)
        used.append(written is not None)
        return written

    monkeypatch.setattr(common, "fast_rows", spy)
    monkeypatch.setattr(common, "_FAST_ROWS", 20)  # the threshold is speed only; 40 rows test the same
    rng = random.Random(seed)
    max_width = rng.choice([None, 28])
    for width in (40, 90, 400):
        console = Console(
            file=io.StringIO(),
            width=width,
            markup=markup,
            emoji=False,
            force_terminal=terminal,
            color_system="truecolor" if terminal else None,
        )
        state = rng.getstate()

        def build(state: object = state) -> Table:
            return _text_table(random.Random(str(state)), 40, max_width=max_width, markup=markup)

        with console.capture() as rich_own:
            console.print(build())
        with console.capture() as ours:
            console.print(common.Widest([build]))
        assert ours.get() == rich_own.get()
    assert any(used)


@pytest.mark.parametrize("odd", ["tab", "trailing", "row_style", "section", "center"])
def test_what_the_line_by_line_path_does_not_write_is_left_to_rich(
    odd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tab, a right-justified cell with trailing spaces, a row's own style, a section line and a
    # centred column are features of rows the probe (the widest rows) may not hold: the written
    # rows must still equal Rich's, whatever row holds them.
    import gpuplan.report.common as common

    monkeypatch.setattr(common, "_FAST_ROWS", 20)

    def build() -> Table:
        table = house_table()
        table.add_column("name", justify="center" if odd == "center" else "left")
        table.add_column("n", justify="right")
        for i in range(40):
            name = "a very long name indeed" if i == 0 else "x\ty" if odd == "tab" and i == 7 else "x"
            n = "1.0  " if odd == "trailing" and i == 9 else "12345678" if i == 1 else "1"
            style = "red" if odd == "row_style" and i == 11 else None
            table.add_row(name, n, style=style, end_section=odd == "section" and i == 13)
        return table

    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="truecolor")
    with console.capture() as rich_own:
        console.print(build())
    with console.capture() as ours:
        console.print(common.Widest([build]))
    assert ours.get() == rich_own.get()


def test_chinese_in_a_house_table_wraps_between_characters_and_english_as_rich_wraps_it() -> None:
    def rendered(table: Table, width: int) -> list[str]:
        console = Console(file=io.StringIO(), width=width)
        console.print(table)
        return console.file.getvalue().splitlines()  # type: ignore[attr-defined]

    def table(cls: type[Table] | None, note: str) -> Table:
        from rich import box

        t = house_table() if cls is None else cls(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                                                   collapse_padding=True, padding=(0, 1))  # fmt: skip
        t.add_column("where", no_wrap=True)
        t.add_column("note", overflow="fold")
        t.add_row("tencent/ap-hongkong", note)
        return t

    zh = rendered(table(None, "14 个地域中最便宜，时效未知（最多 6.6 年）"), 40)
    notes = [line[21:].rstrip() for line in zh[2:]]
    # Rich broke the run of Chinese only at its spaces ("…，时效未知（最多" is one word to it); a
    # line now breaks between characters, never before a closing mark nor after an opening one
    assert notes == ["14 个地域中最便宜，", "时效未知（最多 6.6", "年）"], zh
    english = "the cheapest of 14 regions, age unknown (up to 6.6 y)"
    for width in (30, 40, 60):
        assert rendered(table(None, english), width) == rendered(table(Table, english), width)
