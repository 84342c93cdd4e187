"""The base of every JSON document model: strict keys, finite numbers, one way to write JSON."""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["Document", "finite"]


def finite(x: Any) -> Any:
    """``x`` with every NaN/inf float replaced by None, so that the document is strict JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


class Document(BaseModel):
    """A part of a published document: unknown keys are refused (a typo in a writer, or a file
    from elsewhere that is not what it claims), NaN/inf become null."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    @model_validator(mode="before")
    @classmethod
    def _finite(cls, data: Any) -> Any:
        return finite(data)

    def to_json(self) -> str:
        """The document as the CLI writes it: indented, keys in declaration order, a final newline."""
        return self.model_dump_json(indent=2) + "\n"
