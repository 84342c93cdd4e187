"""Every `gpuplan …` command line the README and the troubleshooting guides show parses: each
command and subcommand exists, each option is one that command has (a value after each option that
takes one), and there are no more arguments than the command takes. It is the `--help`-level check
a reader makes by trying the line, without running the command (the files it names are examples)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from gpuplan.cli import app

ROOT = Path(__file__).parents[2]
DOCS = ("README.md", "docs/troubleshooting.md", "docs/troubleshooting.zh.md")
#: A fenced code block of a console session or a shell script (indented too: inside a list item).
_FENCE = re.compile(r"^[ \t]*```(?:console|bash|sh)\n(.*?)^[ \t]*```$", re.S | re.M)


def _command_lines(text: str) -> list[str]:
    """The `gpuplan …` command lines of the file's console and shell blocks: continuation lines
    joined, the prompt, a leading `VAR=value`, the comment and what a pipe or redirection adds cut
    off."""
    found = []
    for block in _FENCE.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if not re.match(r"([A-Z_]+=\S* )*gpuplan\b", line):
                continue  # another program's line, or output
            words = shlex.split(line, comments=True)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words.pop(0)
            if words and words[0] == "gpuplan":
                cut = next((i for i, w in enumerate(words) if w in ("|", ">", ">>", "&&", ";")), len(words))
                found.append(shlex.join(words[:cut]))
    return found


def _problems(words: list[str]) -> list[str]:
    """What is wrong with the command line ``words`` (without ``gpuplan``); none: it parses. Typer
    carries its own copy of Click, so parameters are told apart by their kind, not their class."""
    command: Any = typer.main.get_command(app)
    ctx = command.context_class(command, info_name="gpuplan")
    path = ["gpuplan"]
    rest = list(words)
    while True:
        options = {
            name: p
            for p in command.params
            if p.param_type_name == "option"
            for name in (*p.opts, *p.secondary_opts)
        }
        positional: list[str] = []
        while rest:
            word = rest.pop(0)
            if word == "--help":
                continue
            if word.startswith("-") and word != "-":
                name = word.split("=", 1)[0]
                if name not in options:
                    return [f"{' '.join(path)}: no option {name}"]
                option = options[name]
                if not option.is_flag and not option.count and "=" not in word:
                    if not rest:
                        return [f"{' '.join(path)}: {name} needs a value"]
                    rest.pop(0)
                continue
            if hasattr(command, "get_command") and not positional:
                sub = command.get_command(ctx, word)
                if sub is None:
                    return [f"{' '.join(path)}: no command {word}"]
                command, path = sub, [*path, word]
                ctx = command.context_class(command, info_name=word, parent=ctx)
                break
            positional.append(word)
        else:
            arguments = [p for p in command.params if p.param_type_name == "argument"]
            if any(a.nargs == -1 for a in arguments):
                return []
            if len(positional) > sum(a.nargs for a in arguments):
                return [f"{' '.join(path)}: too many arguments {positional}"]
            return []


@pytest.mark.parametrize("doc", DOCS)
def test_every_gpuplan_command_line_in_the_docs_parses(doc: str) -> None:
    lines = _command_lines((ROOT / doc).read_text(encoding="utf-8"))
    assert lines, doc
    wrong = {line: p for line in lines if (p := _problems(shlex.split(line)[1:]))}
    assert wrong == {}, doc


def test_the_check_finds_a_wrong_flag_a_wrong_command_and_a_missing_value() -> None:
    assert _problems(["estimate", "W.yaml", "--gpu", "A10G", "-n", "8"]) == []
    assert _problems(["estimate", "W.yaml", "--gpus", "A10G"]) == ["gpuplan estimate: no option --gpus"]
    assert _problems(["estimat", "W.yaml"]) == ["gpuplan: no command estimat"]
    assert _problems(["estimate", "W.yaml", "--instance"]) == ["gpuplan estimate: --instance needs a value"]
    assert _problems(["doctor", "extra"]) == ["gpuplan doctor: too many arguments ['extra']"]
    assert _problems(["catalog", "recordings", "list"]) == []
