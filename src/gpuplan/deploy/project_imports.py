"""The third-party packages the user's copied model code imports, for the launch to install.

A container built on the PyTorch image has PyTorch and little else: a model module doing
``from transformers import WhisperConfig`` fails there at import unless the project installs
transformers. Each copied ``.py`` file is parsed with ``ast`` (nothing of the user's is run) and its
absolute ``import X`` / ``from X import ...`` statements give top-level names. Left out: the
standard library (``sys.stdlib_module_names``), the user's own modules and packages copied with it,
and ``torch``, which the image (or the setup) installs at the build the plan chose.

Each name left is mapped to the distribution that provides it on this machine
(``importlib.metadata.packages_distributions()``: ``yaml`` is PyYAML, ``sklearn`` scikit-learn) and
pinned ``==`` to the version installed here, the one the user's estimate imported. Where it is not
installed here, a short table of well-known names gives the distribution, unpinned; any other name
has no known distribution and is said, never guessed (a guessed name can be somebody else's package
on the index). A distribution installed here from a folder or a VCS (its ``direct_url.json``, PEP 610)
is not on an index either, and is said the same way. PyTorch's companion packages (torchvision,
torchaudio) are written unpinned: each release needs one torch version, so pip takes the one that
matches the torch installed. A name imported only inside ``try:`` with an ``except ImportError``
(or ``if TYPE_CHECKING:``) is optional to the code and is not required.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from typing import Literal

__all__ = ["NO_IMPORTS", "Dependency", "ProjectImports", "imported_names", "project_imports"]

#: Installed by the image (or the setup) at the build the plan chose: never required again.
_PROVIDED = frozenset({"torch"})
#: Released in step with torch (one torch version each): unpinned, so pip takes the matching one.
_FOLLOW_TORCH = frozenset({"torchvision", "torchaudio", "torchtext", "torchdata"})
#: Distributions of well-known import names, for a name not installed on this machine (PyPI's
#: project pages; opencv-python-headless is the build its README gives for servers and Docker,
#: without the GUI libraries a slim image lacks).
_KNOWN = {
    "PIL": "Pillow",
    "accelerate": "accelerate",
    "cv2": "opencv-python-headless",
    "datasets": "datasets",
    "einops": "einops",
    "huggingface_hub": "huggingface-hub",
    "librosa": "librosa",
    "numpy": "numpy",
    "pandas": "pandas",
    "peft": "peft",
    "safetensors": "safetensors",
    "scipy": "scipy",
    "sentencepiece": "sentencepiece",
    "sklearn": "scikit-learn",
    "soundfile": "soundfile",
    "timm": "timm",
    "tokenizers": "tokenizers",
    "tqdm": "tqdm",
    "transformers": "transformers",
    "yaml": "PyYAML",
}
#: ``try:`` statements (``try: ... except* ...`` is ast.TryStar, Python 3.11+; the same fields).
_TRY: tuple[type[ast.stmt], ...] = (ast.Try, *([ast.TryStar] if sys.version_info >= (3, 11) else []))
_CATCHES_IMPORT_ERROR = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})

How = Literal["pinned", "follows_torch", "not_installed", "unknown", "local", "ambiguous"]


@dataclass(frozen=True)
class Dependency:
    """One third-party top-level name the code imports, and what the launch installs for it."""

    module: str
    """The import name (``yaml``)."""
    requirement: str | None
    """The requirement written (``PyYAML==6.0.2``, ``torchvision``); None: none is known."""
    how: How
    """pinned (to the version installed here), follows_torch (unpinned), not_installed (unpinned,
    from the table of well-known names); and, with no requirement: unknown (no distribution
    provides it here), local (installed here from a folder or VCS), ambiguous (several do)."""
    distributions: tuple[str, ...] = ()
    """The distributions providing it here, where several do (``ambiguous``)."""


@dataclass(frozen=True)
class ProjectImports:
    """What the copied code imports from outside the standard library, PyTorch and itself."""

    dependencies: tuple[Dependency, ...]
    optional: tuple[str, ...]
    """Names imported only where an ImportError is caught (or for type checking): not required."""

    @property
    def requirements(self) -> list[str]:
        """The requirements to install, sorted by import name."""
        return [d.requirement for d in self.dependencies if d.requirement]

    @property
    def unresolved(self) -> list[Dependency]:
        """The names no requirement could be written for: the user adds them by hand."""
        return [d for d in self.dependencies if d.requirement is None]


#: Code that imports nothing from outside the standard library, PyTorch and itself.
NO_IMPORTS = ProjectImports(dependencies=(), optional=())


def imported_names(source: str) -> tuple[set[str], set[str]]:
    """The top-level names ``source``'s absolute imports name, read with ``ast`` (nothing is run),
    at any depth: (every one, those imported only where an ImportError is caught or under ``if
    TYPE_CHECKING:``). ``import a.b`` and ``from a.b import c`` give ``a``. Code that does not parse
    gives none (it would fail to import anyway)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    required: set[str] = set()
    guarded: set[str] = set()
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:  # a stack, not recursion: deeply nested code cannot overflow it
        node, optional = stack.pop()
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        (guarded if optional else required).update(n.split(".")[0] for n in names)
        if isinstance(node, _TRY) and any(_catches_import_error(h) for h in _handlers(node)):
            stack.extend((child, True) for child in node.body)  # type: ignore[attr-defined]
            rest = [*_handlers(node), *node.orelse, *node.finalbody]  # type: ignore[attr-defined]
            stack.extend((child, optional) for child in rest)
        elif isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend((child, True) for child in node.body)
            stack.extend((child, optional) for child in node.orelse)
        else:
            stack.extend((child, optional) for child in ast.iter_child_nodes(node))
    return required | guarded, guarded - required


def _handlers(node: ast.stmt) -> list[ast.ExceptHandler]:
    """The ``except`` clauses of a ``try:`` statement (ast.Try or ast.TryStar)."""
    return list(vars(node)["handlers"])


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    """True when ``except`` catches a failed import: bare, or naming ImportError (or a base of it)."""
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(c, ast.Name) and c.id in _CATCHES_IMPORT_ERROR for c in caught)


def _type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def project_imports(
    sources: Iterable[str], own: Iterable[str], installed: Mapping[str, list[str]] | None = None
) -> ProjectImports:
    """The third-party imports of the ``sources`` (the copied ``.py`` files' text), ``own`` being
    the user's top-level modules and packages copied with them; ``installed``: import name to
    distributions (``importlib.metadata.packages_distributions()`` where None)."""
    everything: set[str] = set()
    optional: set[str] = set()
    for source in sources:
        names, guarded = imported_names(source)
        optional |= guarded
        everything |= names - guarded
    optional -= everything
    skip = set(own) | set(sys.stdlib_module_names) | _PROVIDED
    if installed is None:
        installed = _installed()
    found = sorted(n for n in everything - skip if n.isascii() and n.isidentifier())
    return ProjectImports(
        dependencies=tuple(_dependency(n, installed.get(n, [])) for n in found),
        optional=tuple(sorted(optional - skip)),
    )


@cache
def _installed() -> Mapping[str, list[str]]:
    """Import names to the distributions providing them on this machine, read once a process: the
    scan of every installed distribution takes ~0.2 s, and one deploy reads the user's package for
    its launch files and again for its notes."""
    return metadata.packages_distributions()


def _dependency(module: str, distributions: list[str]) -> Dependency:
    """What to install for ``module``, from the distributions that provide it here."""
    names = sorted({d.lower().replace("_", "-"): d for d in distributions}.values())
    if module in _FOLLOW_TORCH:
        return Dependency(module=module, requirement=module, how="follows_torch")
    if len(names) > 1:
        return Dependency(module=module, requirement=None, how="ambiguous", distributions=tuple(names))
    if not names:
        known = _KNOWN.get(module)
        return Dependency(module=module, requirement=known, how="not_installed" if known else "unknown")
    try:
        dist = metadata.distribution(names[0])
    except metadata.PackageNotFoundError:
        return Dependency(module=module, requirement=None, how="unknown")
    if _not_from_an_index(dist):
        return Dependency(module=module, requirement=None, how="local")
    name = dist.metadata["Name"] or names[0]
    # without its local label (+cu121): PEP 440 ignores it where the requirement has none
    return Dependency(module=module, requirement=f"{name}=={dist.version.split('+')[0]}", how="pinned")


def _not_from_an_index(dist: metadata.Distribution) -> bool:
    """True when ``dist`` was installed from a folder, an archive URL or a VCS (PEP 610's
    ``direct_url.json``): an index may not have it, or have somebody else's under its name."""
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        return bool(json.loads(text))
    except ValueError:
        return True
