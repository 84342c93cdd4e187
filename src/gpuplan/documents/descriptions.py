"""Field descriptions for the published JSON Schemas, read from the models' attribute docstrings.

Each document field is documented by the string under it in the model's source. pydantic can read
those at class creation (``use_attribute_docstrings``), but that parses the source of every model
at every import — tens of milliseconds on each ``--json`` run, which only needs the values. The
descriptions matter only in a JSON Schema, so :func:`describe_documents` reads them when one is
rendered (``tools/gen_schemas.py``, the web app's OpenAPI document), with the same rule as pydantic:
the string literal right after an annotated attribute, ``inspect.cleandoc``-ed, taken from the
class that declares the field.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterator
from functools import cache
from typing import Any, get_args

from gpuplan.documents.base import Document

__all__ = ["describe_documents"]


def describe_documents() -> None:
    """Give every field of every document model imported so far its attribute docstring as its
    description, and rebuild the models so that their JSON Schemas carry it (a model after the
    models it nests). Idempotent; call it before rendering a schema."""
    done: set[type[Document]] = set()
    for cls in _subclasses(Document):
        _describe(cls, done)


def _describe(cls: type[Document], done: set[type[Document]]) -> None:
    if cls in done:
        return
    done.add(cls)
    for nested in _nested(cls):  # a nested model's schema is copied into this one's: it goes first
        _describe(nested, done)
    changed = False
    for name, field in cls.model_fields.items():
        if field.description is None:
            owner = next((c for c in cls.__mro__ if name in inspect.get_annotations(c)), cls)
            if (doc := _attribute_docs(owner).get(name)) is not None:
                field.description = doc
                changed = True
    if changed or any(_nested(cls)):
        cls.model_rebuild(force=True)


def _subclasses(cls: type[Document]) -> Iterator[type[Document]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _nested(cls: type[Document]) -> Iterator[type[Document]]:
    """The document models named in the fields' types of ``cls``."""
    for field in cls.model_fields.values():
        yield from _models_in(field.annotation)


def _models_in(annotation: Any) -> Iterator[type[Document]]:
    if isinstance(annotation, type) and issubclass(annotation, Document):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)


@cache
def _attribute_docs(cls: type) -> dict[str, str]:
    """Attribute name -> the string literal right after its annotated assignment in ``cls``'s body."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source (a frozen or generated class): no descriptions
        return {}
    body = ast.parse(source).body[0]
    if not isinstance(body, ast.ClassDef):
        return {}
    docs: dict[str, str] = {}
    for before, node in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(before, ast.AnnAssign)
            and isinstance(before.target, ast.Name)
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            docs[before.target.id] = inspect.cleandoc(node.value.value)
    return docs
