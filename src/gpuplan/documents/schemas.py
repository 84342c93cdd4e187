"""The published JSON Schemas of the documents, rendered from their models.

``tools/gen_schemas.py`` writes them to ``docs/schemas/<name>.schema.json``; a test checks that the
committed files equal a fresh rendering, so a model change cannot leave its schema behind.
"""

from __future__ import annotations

import json

from gpuplan.documents import DOCUMENTS
from gpuplan.documents.descriptions import describe_documents

__all__ = ["schema_text", "schema_texts"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_text(name: str) -> str:
    """The JSON Schema of document ``name`` (``plan``, ``estimate``, ``offers``, ``gpus``) as text."""
    model = DOCUMENTS[name]
    describe_documents()  # the fields' descriptions, read from the models' source only now
    schema = {"$schema": _DIALECT, "$id": f"docs/schemas/{name}.schema.json", **model.model_json_schema()}
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def schema_texts() -> dict[str, str]:
    """Every document's schema, by the file name it is published under."""
    return {f"{name}.schema.json": schema_text(name) for name in DOCUMENTS}
