"""Where an option a command does not take belongs: Click's "No such option" with a pointer.

Click answers an unknown option with the command's options its name is close to, by letters
alone: ``estimate --upfront all`` got "(Possible options: --count, --project)". An option typed
as another cloud or another command words it is no typo, and this module says where it is:

- a word a cloud uses for what gpuplan names otherwise (:data:`SAME_MEANING`): ``plan --term 1y``
  is asked "Did you mean --commitment?";
- an option of other commands: ``estimate --upfront all`` is told that ``--upfront`` is an option
  of plan, offers and tco, not of estimate (``gpus --zone``: gpuplan calls it ``--region``, an
  option of offers and plan).

- what the workload file states (:data:`IN_THE_WORKLOAD`): ``plan --p95 200`` is told that the
  workload's ``serving.p95_latency_ms`` states it.

A misspelling of one of the command's own options keeps Click's list (``plan --commitmnt``).
"""

from __future__ import annotations

import difflib
from typing import Any

from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import item_list

__all__ = ["EXACTLY", "IN_THE_WORKLOAD", "SAME_MEANING", "option_hint"]

#: An option's name as the clouds (or users) word it -> gpuplan's option for the same thing, or its
#: options for it, the first the command takes named (the GPUs: estimate, deploy and offers count
#: them with --count, plan with --min-gpus and --max-gpus).
SAME_MEANING: dict[str, str | tuple[str, ...]] = {
    # AWS sells a reservation for a term of one or three years, paid by one of three "payment
    # options" (No, Partial, All Upfront): AWS whitepaper "Amazon EC2 Reserved Instances and Other
    # AWS Reservation Models", https://docs.aws.amazon.com/whitepapers/latest/cost-optimization-
    # reservation-models/reserved-instances-payment-options.html (as catalog/upfront.py cites it).
    "--term": "--commitment",
    "--payment": "--upfront",
    "--payment-option": "--upfront",
    # The catalog keeps prices by region, not by zone (a zone is a part of a region).
    "--zone": "--region",
    "--zones": "--regions",
    "--az": "--region",
    # The GPUs asked for, as users guess the option's name.
    "--gpu-count": ("--count", "--min-gpus"),
    "--num-gpus": ("--count", "--min-gpus"),
}

#: A floor whose command takes a cap beside it: the two together ask for exactly that many.
EXACTLY = {"--min-gpus": "--max-gpus"}

#: An option name for what the workload file states -> its key there (a service's targets are part of
#: the workload, so that plan, deploy, simulate and tco read the same ones).
IN_THE_WORKLOAD = {
    "--p95": "serving.p95_latency_ms",
    "--p95-latency": "serving.p95_latency_ms",
    "--p95-latency-ms": "serving.p95_latency_ms",
    "--latency": "serving.p95_latency_ms",
    "--ttft": "serving.ttft_p95_ms",
    "--ttft-p95": "serving.ttft_p95_ms",
    "--tpot": "serving.tpot_p95_ms",
    "--tpot-p95": "serving.tpot_p95_ms",
    "--qps": "serving.requests_per_s",
    "--rps": "serving.requests_per_s",
    "--batch-size": "inputs.batch_size",
    "--seq-len": "inputs.seq_len",
    "--epochs": "data.epochs",
}

#: The most commands an option's pointer names (--region: six of them); an option of more is left
#: to Click's own line.
MOST_NAMED = 6

MEANT = N_("No such option: {name}. Did you mean {option}?")
MEANT_FLOOR = N_(
    "No such option: {name}. Did you mean {option}? (with {cap} the same number: exactly that many)"
)
IN_WORKLOAD = N_("No such option: {name} (the workload file states it: {key})")
ELSEWHERE = N_("No such option: {name} (an option of {commands}, not of {command})")
CALLED_ELSEWHERE = N_(
    "No such option: {name} (gpuplan calls it {option}: an option of {commands}, not of {command})"
)
#: The same, given before the command's name (``gpuplan --region x offers``).
BEFORE_COMMAND = N_("No such option: {name} (an option of {commands}: give it after the command's name)")
CALLED_BEFORE_COMMAND = N_(
    "No such option: {name} (gpuplan calls it {option}: an option of {commands}; give it after the "
    "command's name)"
)


def option_hint(name: str, ctx: Any) -> str | None:
    """The line for option ``name`` that the command of ``ctx`` does not take, in the current
    language; None where there is nothing to add to Click's (a slip of the command's own option,
    or an option no command takes)."""
    here = _long_options(ctx.command)
    said = SAME_MEANING.get(name, name)
    choices = (said,) if isinstance(said, str) else said
    meant = next((m for m in choices if m in here), choices[0])
    if meant != name and meant in here:
        cap = EXACTLY.get(meant)
        if cap in here:
            return _(MEANT_FLOOR).format(name=name, option=meant, cap=cap)
        return _(MEANT).format(name=name, option=meant)
    if difflib.get_close_matches(name.lstrip("-"), [o.lstrip("-") for o in here], cutoff=0.8):
        return None  # a slip of one of its own: Click's list names it
    root = ctx.find_root()
    takers = [path for path, command in _commands(root.command, root, ()) if meant in _long_options(command)]
    if not takers:
        key = IN_THE_WORKLOAD.get(name)
        return _(IN_WORKLOAD).format(name=name, key=key) if key else None
    command = " ".join(_path(ctx))
    if command:
        template = ELSEWHERE if meant == name else CALLED_ELSEWHERE
    else:
        template = BEFORE_COMMAND if meant == name else CALLED_BEFORE_COMMAND
    if len(takers) > MOST_NAMED:
        return None  # an option most commands take (--lang, --json): naming them would not help
    return _(template).format(name=name, option=meant, commands=item_list(takers), command=command)


def _long_options(command: Any) -> set[str]:
    return {
        o for p in getattr(command, "params", ()) for o in (*p.opts, *p.secondary_opts) if o.startswith("--")
    }


def _commands(group: Any, ctx: Any, path: tuple[str, ...]) -> list[tuple[str, Any]]:
    """Every command under ``group`` that is shown in help, by its path from the root (``plan``,
    ``catalog import``)."""
    found: list[tuple[str, Any]] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or getattr(command, "hidden", False):
            continue
        if hasattr(command, "list_commands"):
            found += _commands(command, ctx, (*path, name))
        else:
            found.append((" ".join((*path, name)), command))
    return found


def _path(ctx: Any) -> list[str]:
    """The command's names from the root's first subcommand down (``catalog import``)."""
    names: list[str] = []
    while ctx.parent is not None:
        names.insert(0, ctx.info_name)
        ctx = ctx.parent
    return names
