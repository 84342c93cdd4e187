"""YAML output for manifests: key order kept, multi-line strings as readable ``|`` blocks."""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["dump_documents"]


class _BlockDumper(yaml.SafeDumper):
    """SafeDumper that writes multi-line strings as literal blocks and never emits anchors (a
    private subclass, so the global yaml module is left untouched)."""

    def ignore_aliases(self, data: object) -> bool:
        # Manifests share sub-objects (tolerations, selectors); `&id001`/`*id001` would be valid
        # YAML but unreadable, and some tools that patch manifests mishandle them.
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_BlockDumper.add_representer(str, _str)


def dump_documents(docs: list[dict[str, Any]], header: str = "") -> str:
    """Several manifests in one file, separated by ``---``, after ``header`` comment lines."""
    comment = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines())
    body = "---\n".join(yaml.dump(d, Dumper=_BlockDumper, sort_keys=False, width=110) for d in docs)
    return comment + body
