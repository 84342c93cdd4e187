"""An option the command does not take, typed as a cloud words it or as another command has it,
is pointed to where it is: Click's "No such option" had named the command's options closest in
letters (``estimate --upfront all``: "Possible options: --count, --project")."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.cli._option_hints import EXACTLY, IN_THE_WORKLOAD, SAME_MEANING

runner = CliRunner()


def _line(*args: str) -> str:
    res = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert res.exit_code == 2, res.output
    lines = res.output.splitlines()
    assert len(lines) == 1, res.output
    return lines[0]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["plan", "job.yaml", "--term", "1y"],
            "error: No such option: --term. Did you mean --commitment? See 'gpuplan plan --help'.",
        ),
        (
            ["offers", "--zone", "us-east-1a"],
            "error: No such option: --zone. Did you mean --region? See 'gpuplan offers --help'.",
        ),
        (
            ["estimate", "job.yaml", "--upfront", "all"],
            "error: No such option: --upfront (an option of offers, plan, tco, not of estimate); "
            "see 'gpuplan estimate --help'",
        ),
        (
            ["tco", "usage.yaml", "--term", "1y"],
            "error: No such option: --term (gpuplan calls it --commitment: an option of plan, not of tco); "
            "see 'gpuplan tco --help'",
        ),
        # A user's guess at the GPUs' option: each command's own (estimate, deploy and offers count
        # them with --count; plan with a floor and a cap); there had been no pointer at all.
        (
            ["estimate", "job.yaml", "--gpu-count", "8"],
            "error: No such option: --gpu-count. Did you mean --count? See 'gpuplan estimate --help'.",
        ),
        (
            ["deploy", "job.yaml", "--num-gpus", "8"],
            "error: No such option: --num-gpus. Did you mean --count? See 'gpuplan deploy --help'.",
        ),
        (
            ["plan", "job.yaml", "--num-gpus", "8"],
            "error: No such option: --num-gpus. Did you mean --min-gpus? (with --max-gpus the same "
            "number: exactly that many); see 'gpuplan plan --help'",
        ),
        (
            ["tco", "usage.yaml", "--gpu-count", "8"],
            "error: No such option: --gpu-count (gpuplan calls it --count: an option of offers, estimate, "
            "deploy, not of tco); see 'gpuplan tco --help'",
        ),
    ],
)
def test_an_option_of_another_name_or_command_is_pointed_to(args: list[str], line: str) -> None:
    assert _line(*args) == line


def test_an_option_before_the_commands_name_is_said_to_go_after_it() -> None:
    assert _line("--region", "us-east-1", "offers") == (
        "error: No such option: --region (an option of offers, estimate, plan, deploy, catalog history, "
        "simulate share: give it after the command's name); see 'gpuplan --help'"
    )


def test_a_slip_of_the_commands_own_option_keeps_clicks_list() -> None:
    assert _line("plan", "job.yaml", "--commitmnt", "1y") == (
        "error: No such option: --commitmnt (Possible options: --commitment, --compliance); "
        "see 'gpuplan plan --help'"
    )


def test_the_pointer_is_in_chinese() -> None:
    assert _line("--lang", "zh", "plan", "job.yaml", "--term", "1y") == (
        "错误：没有选项：--term。您是不是指 --commitment？参见 'gpuplan plan --help'。"
    )
    assert _line("--lang", "zh", "estimate", "job.yaml", "--upfront", "all") == (
        "错误：没有选项：--upfront（这是 offers、plan、tco 的选项，estimate 没有）；"
        "参见 'gpuplan estimate --help'"
    )
    assert _line("--lang", "zh", "plan", "job.yaml", "--gpu-count", "8") == (
        "错误：没有选项：--gpu-count。您是不是指 --min-gpus？（再给 --max-gpus 同一个数：正好这么多）；"
        "参见 'gpuplan plan --help'"
    )
    assert _line("--lang", "zh", "gpus", "--zone", "x") == (
        "错误：没有选项：--zone（gpuplan 称之为 --region：这是 offers、estimate、plan、deploy、"
        "catalog history、simulate share 的选项，gpus 没有）；参见 'gpuplan gpus --help'"
    )


def test_each_same_meaning_names_an_option_gpuplan_has_and_none_of_its_own() -> None:
    import typer.main

    from gpuplan.cli._option_hints import _commands, _long_options

    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="gpuplan")
    every = set().union(*(_long_options(command) for _path, command in _commands(group, ctx, ())))
    meant = {m for v in SAME_MEANING.values() for m in ((v,) if isinstance(v, str) else v)}
    assert meant | set(EXACTLY.values()) <= every
    assert not set(SAME_MEANING) & every  # a cloud's word that is one of gpuplan's own would be hidden
    assert not set(IN_THE_WORKLOAD) & every  # nor a workload key's pointer


def test_what_the_workload_states_is_pointed_to_its_key() -> None:
    # `plan --p95 200` got "(Possible options: --gpu, --top)": a latency target is the workload's
    assert _line("plan", "job.yaml", "--p95", "200") == (
        "error: No such option: --p95 (the workload file states it: serving.p95_latency_ms); "
        "see 'gpuplan plan --help'"
    )
    assert _line("--lang", "zh", "plan", "job.yaml", "--seq-len", "4096") == (
        "错误：没有选项：--seq-len（它写在工作负载文件里：inputs.seq_len）；参见 'gpuplan plan --help'"
    )
