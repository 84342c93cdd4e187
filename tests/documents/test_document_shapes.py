"""A document's shape cannot change under a reader of its version: each field a version had keeps
its path and the types it may hold (``document_shapes``); a field may be added. The team budget's
``planned_usd`` became nullable (a yuan budget with no CNY rate) while the budget document stayed
at the service's version 1."""

from __future__ import annotations

import json

from document_shapes import PINS, breaks, current, shape


def test_each_documents_version_keeps_the_shape_it_was_pinned_with() -> None:
    pins = json.loads(PINS.read_text(encoding="utf-8"))
    for name, (version, now) in current().items():
        pinned = pins.get(name, {}).get(str(version))
        assert pinned is not None, (
            f"{name} version {version} has no pinned shape: run python tests/documents/document_shapes.py"
        )
        broken = breaks(pinned, now)
        assert not broken, (
            f"{name} changed under readers of its version {version} ({'; '.join(broken)}): give it the "
            "next version, saying what it changed beside its constant, and pin it"
        )


def test_a_nullable_number_breaks_its_readers_and_a_new_field_does_not() -> None:
    def doc(planned: dict[str, object], **more: dict[str, object]) -> dict[str, object]:
        return {
            "type": "object",
            "properties": {"schema_version": {"type": "integer"}, "planned_usd": planned, **more},
        }

    was = shape(doc({"type": "number"}))
    assert "schema_version" not in was
    # a field added, a type narrowed: a reader of the version still reads it
    assert breaks(was, shape(doc({"type": "number"}, planned_cny={"type": "number"}))) == []
    assert breaks(shape(doc({"anyOf": [{"type": "number"}, {"type": "null"}]})), was) == []
    assert breaks(was, shape(doc({"anyOf": [{"type": "number"}, {"type": "null"}]}))) == [
        "planned_usd may now be null (was number)"
    ]
    assert breaks(was, shape({"type": "object", "properties": {}})) == ["planned_usd is gone"]
