"""A light start: the root group's commands are imported and built only when they are used.

Typer builds a click command from a function by reading its signature and evaluating every
annotation; building all of gpuplan's commands, after importing every ``*_cmds.py`` module, cost
more than a quarter of ``gpuplan offers --json``. The root group instead holds a table of command
name -> the ``register`` function that adds it (``cli/__init__.py`` ``COMMANDS``) and a
:class:`LazyCommands` mapping in place of click's ``commands`` dict: its keys are the table's, so
``list_commands``, ``--help``'s listing and the "did you mean" of a mistyped command see every
command, and a command is built the first time it is looked up: the command line's own command
when it runs, all of them for a walk over the tree. The root's ``--help`` lists them from
:func:`command_summary` stand-ins (names and help texts, no parameters).

Each command's parameters then get a light coercer (:func:`light_coercion`): Typer converts every
parameter value through a pydantic ``TypeAdapter`` it builds on first use, even an option left at
``None``; importing pydantic and building the adapters cost another tenth of a second for a command
that converts nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from functools import cache
from pathlib import Path
from typing import Any

import typer
import typer.main

__all__ = ["LazyCommands", "Register", "build_command", "command_summary", "light_coercion"]

#: A command module's ``register(app)``: adds its commands (or its group) to ``app``.
Register = Callable[[typer.Typer], None]


@cache
def _registered(register: Register) -> typer.Typer:
    """A Typer app holding what ``register`` adds, registered once per process (``register``
    functions add to module-level sub-apps, which must not be registered into twice)."""
    holder = typer.Typer()
    register(holder)
    return holder


def build_command(name: str, register: Register, *, rich_markup_mode: Any, suggest_commands: bool) -> Any:
    """The click command ``name`` that ``register`` adds, built as Typer builds it for the root
    group (the root's markup mode and suggestions; Typer's default ``pretty_exceptions_short``,
    which the root app keeps); LookupError when ``register`` adds no such command."""
    holder = _registered(register)
    short = holder.pretty_exceptions_short
    for info in holder.registered_commands:
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:  # type: ignore[union-attr]
            return typer.main.get_command_from_info(
                info, pretty_exceptions_short=short, rich_markup_mode=rich_markup_mode
            )
    for group_info in holder.registered_groups:
        group = typer.main.get_group_from_info(
            group_info,
            pretty_exceptions_short=short,
            rich_markup_mode=rich_markup_mode,
            suggest_commands=suggest_commands,
        )
        if group.name == name:
            return group
    raise LookupError(f"{register.__module__}.{register.__qualname__} adds no command {name!r}")


def command_summary(name: str, register: Register) -> Any:
    """A stand-in for command ``name`` that only names it in a group's ``--help`` listing: its name,
    help texts, panel, hidden and deprecated, as Typer would give the built command, without
    building its parameters (LookupError when ``register`` adds no such command)."""
    from typer.core import TyperCommand

    holder = _registered(register)
    for info in holder.registered_commands:
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:  # type: ignore[union-attr]
            text = inspect.getdoc(info.callback) if info.help is None else inspect.cleandoc(info.help)
            return TyperCommand(
                name=name,
                help=text,
                short_help=info.short_help,
                hidden=info.hidden,
                deprecated=info.deprecated,
                rich_help_panel=info.rich_help_panel,
            )
    for group_info in holder.registered_groups:
        solved = typer.main.solve_typer_info_defaults(group_info)
        if solved.name == name:
            return TyperCommand(
                name=name,
                help=solved.help,
                short_help=solved.short_help,
                hidden=solved.hidden,
                deprecated=solved.deprecated,
                rich_help_panel=solved.rich_help_panel,
            )
    raise LookupError(f"{register.__module__}.{register.__qualname__} adds no command {name!r}")


class LazyCommands(MutableMapping[str, Any]):
    """A group's sub-commands by name, each built by ``build(name)`` when first looked up; the
    names (and their order) are the table's. A command added later (``add_command``) is kept as
    given."""

    def __init__(self, names: Mapping[str, object], build: Callable[[str], Any]) -> None:
        self._names = list(names)
        self._build = build
        self._built: dict[str, Any] = {}

    def built(self) -> dict[str, Any]:
        """The commands built so far (nothing is built by asking)."""
        return dict(self._built)

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in self._names:
                raise KeyError(name)
            self._built[name] = self._build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._names:
            self._names.append(name)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        self._names.remove(name)
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names


class _LightCoercion:
    """A parameter's value conversion that needs no pydantic for the values a command line gives
    most: an option left at ``None`` stays ``None``, a plain string for a ``str`` parameter without
    a parser stays that string, an ``int`` (a default) for an ``int`` parameter within its bounds
    stays that int, a string for a ``Path`` parameter becomes that ``Path``, through Typer's own
    path checks, and the strings of a repeatable ``list[str]`` option become their list (``()``
    when it is left out) (what Typer's own adapter returns for each). Any other value goes through Typer's
    own conversion, built on first need."""

    def __init__(self, param: Any) -> None:
        descriptor = param.type_descriptor
        info = descriptor.parameter_info
        self._descriptor = descriptor
        self._many = bool(param.multiple) or param.nargs == -1
        plain = descriptor.file_annotation is None and info.parser is None
        self._plain_str = plain and descriptor.annotation is str
        self._plain_str_list = plain and self._many and descriptor.annotation == list[str]
        self._plain_int = plain and descriptor.annotation is int and not info.clamp
        self._path = plain and descriptor.annotation is Path and info.path_type is None
        self._number = descriptor.annotation in (int, float)
        self._info = info
        self._typer: Any = None

    def coerce(self, value: Any, *, param: Any, ctx: Any) -> Any:
        if self._plain_str_list:
            # a repeatable option of strings: left out, Typer's own gives (); given, the list
            if value is None:
                return ()
            if isinstance(value, list | tuple) and all(type(v) is str for v in value):
                return list(value)
        if not self._many:
            kind = type(value)
            if value is None or (self._plain_str and kind is str):
                return value
            if self._plain_int and kind is int and self._within(value):
                return value
            if self._number and kind is str:
                # full-width digits as a Chinese input method types them (--top ０): ASCII ones
                from gpuplan.units import as_typed

                value = as_typed(value)
            if self._path and kind is str and value:
                from typer._param_types import coerce_cli_path

                # Typer's adapter makes the Path with pydantic, then runs these same checks.
                return coerce_cli_path(Path(value), self._info, path_type=Path, param=param, ctx=ctx)
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(self._descriptor)
        return self._typer.coerce(value, param=param, ctx=ctx)

    def _within(self, value: int) -> bool:
        low, high = self._info.min, self._info.max
        return (low is None or value >= low) and (high is None or value <= high)


def light_coercion(command: Any) -> None:
    """Give every Typer parameter of ``command`` (and of its sub-commands built so far) the light
    coercer, unless Typer has built its own already.

    Typer 0.29 keeps a parameter's converter in ``_runtime_param`` and builds it on first use
    (``_TyperParameter.get_runtime_param``); gpuplan pins Typer below 0.30 for this and for its
    help helpers, and ``tests/cli/test_lazy_commands.py`` fails if the hook moves."""
    # The --help option too: Typer makes it once per command, and converts its value like the others.
    help_option = command.get_help_option(command.context_class(command))
    for param in [*command.params, *([help_option] if help_option else [])]:
        if hasattr(param, "type_descriptor") and getattr(param, "_runtime_param", False) is None:
            param._runtime_param = _LightCoercion(param)
    children = getattr(command, "commands", None)
    if isinstance(children, LazyCommands):
        children = children.built()
    for child in (children or {}).values():
        light_coercion(child)
