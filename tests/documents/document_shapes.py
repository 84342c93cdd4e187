"""Each document's shape as a reader relies on it, pinned per schema version in
``document_shapes.json``: every field's path and the JSON types it may hold.

A document may gain fields within its version (a reader that does not know them ignores them,
as ``plan`` gained ``upfront_usd``); a field removed or renamed, or one that may now hold a type it
could not (a number that may be null, a string that may be a list), breaks a reader of the version
and needs the next one. What a field means is not a shape: a change of meaning needs the next
version too, and only its author can tell (the version constant's comment says what each changed).

    python tests/documents/document_shapes.py   # pin each document's current version where unpinned
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PINS = Path(__file__).with_name("document_shapes.json")

#: Carried by every document, and changed by each bump: not part of what a version pins.
_UNPINNED = frozenset({"schema_version"})


def shape(schema: dict[str, Any]) -> dict[str, str]:
    """Each field's path (``options[].price_usd_per_month``, ``cost_usd_by_pricing{}``) -> the JSON
    types it may hold (``null|number``), from a published JSON Schema."""
    defs = schema.get("$defs", {})
    out: dict[str, set[str]] = {}

    def walk(node: dict[str, Any], path: str, seen: frozenset[str]) -> None:
        here = out.setdefault(path, set())
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name in seen:  # a recursive model: pinned by its name
                here.add(f"ref:{name}")
                return
            walk(defs[name], path, seen | {name})
            return
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in node.get(key, ()):
                walk(sub, path, seen)
        types = node.get("type")
        types = [types] if isinstance(types, str) else list(types or ())
        if not types and "const" in node:
            types = [_json_type(node["const"])]
        if not types and not any(k in node for k in ("$ref", "anyOf", "oneOf", "allOf")):
            here.add("any")
        for t in types:
            here.add(t)
            if t == "object":
                for key, sub in node.get("properties", {}).items():
                    if not (path == "" and key in _UNPINNED):
                        walk(sub, f"{path}.{key}" if path else key, seen)
                extra = node.get("additionalProperties")
                if isinstance(extra, dict):
                    walk(extra, f"{path}{{}}", seen)
            elif t == "array" and isinstance(node.get("items"), dict):
                walk(node["items"], f"{path}[]", seen)

    walk(schema, "", frozenset())
    return {path: "|".join(sorted(types)) for path, types in sorted(out.items())}


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def breaks(pinned: dict[str, str], now: dict[str, str]) -> list[str]:
    """How ``now`` breaks a reader of ``pinned``: each pinned field gone, or holding a type it
    could not; empty where ``now`` only adds fields."""
    said = []
    for path, types in pinned.items():
        was = types.split("|")
        if path not in now:
            said.append(f"{path or 'the document'} is gone")
        elif "any" not in was and (new := sorted(set(now[path].split("|")) - set(was))):
            said.append(f"{path or 'the document'} may now be {', '.join(new)} (was {', '.join(was)})")
    return said


def current() -> dict[str, tuple[int, dict[str, str]]]:
    """Each document's version and shape as the models render them now."""
    from gpuplan.documents import DOCUMENTS
    from gpuplan.documents.schemas import schema_text

    return {
        name: (int(model.model_fields["schema_version"].default), shape(json.loads(schema_text(name))))
        for name, model in DOCUMENTS.items()
    }


def main() -> None:
    pins = json.loads(PINS.read_text(encoding="utf-8")) if PINS.is_file() else {}
    for name, (version, now) in current().items():
        held = pins.setdefault(name, {})
        if str(version) not in held:
            held[str(version)] = now
            print(f"pinned {name} version {version}")
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
