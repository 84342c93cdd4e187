"""Every error gpuplan raises can be written in the user's language.

A ``GpuplanError`` subclass called with a ready-made message (``InputError(f"…")``) prints as
raised: English under ``--lang zh``. So every error in ``src/gpuplan`` is made with
``XError.worded(N_(template), **fields)`` (its template goes through the message catalog), or
from a message translated where it is raised (``DataError(_("…").format(…))``), or is one of the
errors the catalog rebuilds from their parts (``NotFoundError`` and its subclasses: kind, name,
suggestions, hint). This test reads the source, so a new English-only error fails it where it is
written; the few that pass on a line already written elsewhere are listed with the reason.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import gpuplan.errors as errors_module
from gpuplan.errors import GpuplanError, NotFoundError

SRC = Path(errors_module.__file__).resolve().parent
#: Errors whose message the catalog rebuilds from their parts, and the base class's own module.
_FROM_PARTS = {
    name for name, cls in inspect.getmembers(errors_module, inspect.isclass) if issubclass(cls, NotFoundError)
}
_ERRORS = {
    name
    for name, cls in inspect.getmembers(errors_module, inspect.isclass)
    if issubclass(cls, GpuplanError) and name not in _FROM_PARTS
}


#: Errors that pass on a line already in the user's language, with why (file: count).
_PASSED_ON = {
    # The sweep stores each GPU's error as error_text(e), in the language of the run.
    "cli/estimate_cmds.py": 1,
    # deploy's fit check passes on the same sweep error as estimate does.
    "cli/deploy_checks.py": 1,
    "web/service.py": 1,
    # one_line_error's line without a template: pydantic's own reason, kept as data.
    "commit/usage.py": 1,
}


def _translated_here(arg: ast.expr) -> bool:
    """``_("…")`` or ``_("…").format(…)``: translated where the error is raised."""
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format":
        arg = arg.func.value
    return isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "_"


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _english_only_errors(path: Path, root: Path = SRC) -> list[str]:
    """``file:line name`` of each error built from a ready-made message in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in _ERRORS and (node.args or node.keywords):
            if node.args and _translated_here(node.args[0]):
                continue
            found.append(f"{path.relative_to(root)}:{node.lineno} {_called_name(node)}")
    return found


def test_every_error_in_the_package_is_worded_through_the_catalog() -> None:
    sources = [p for p in sorted(SRC.rglob("*.py")) if "templates" not in p.parts and p.name != "errors.py"]
    assert len(sources) > 100  # the whole package was read
    left = [site for p in sources for site in _english_only_errors(p)]
    per_file: dict[str, int] = {}
    for site in left:
        per_file[site.split(":")[0]] = per_file.get(site.split(":")[0], 0) + 1
    english = [site for site in left if per_file[site.split(":")[0]] > _PASSED_ON.get(site.split(":")[0], 0)]
    assert english == [], "errors that print in English under --lang zh: " + "; ".join(english)
    # The passed-on list stays exact: a site that is gone is taken off it.
    assert {f: n for f, n in per_file.items() if f in _PASSED_ON} == _PASSED_ON


def test_the_scan_finds_an_error_built_from_a_ready_made_message(tmp_path: Path) -> None:
    # The check itself: a plain InputError(f"…") is found, a worded one and a NotFoundError are not.
    probe = tmp_path / "probe.py"
    text = (
        "from gpuplan.errors import InputError, NotFoundError\n"
        "def f(x):\n"
        "    if x:\n"
        "        raise InputError(f'bad {x}')\n"
        "    raise InputError.worded('bad {x}', x=x)\n"
        "def h(x):\n"
        "    raise InputError(_('bad {x}').format(x=x))\n"
        "def g():\n"
        "    raise NotFoundError('GPU', 'h1', [])\n"
    )
    probe.write_text(text, encoding="utf-8")
    assert _english_only_errors(probe, tmp_path) == ["probe.py:4 InputError"]
