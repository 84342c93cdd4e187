"""YAML output for manifests: key order kept, multi-line strings as readable ``|`` blocks."""

from __future__ import annotations

from typing import Any

import yaml

from gpuplan.deploy.base import commented

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
    comment = commented(header)
    # allow_unicode: text in another language (launch.sh's Chinese comments in a ConfigMap) is
    # written as itself; without it PyYAML escapes each character, which a `|` block cannot hold,
    # so the whole script would become one double-quoted line of \u escapes. The files are UTF-8.
    body = "---\n".join(
        yaml.dump(d, Dumper=_BlockDumper, sort_keys=False, width=110, allow_unicode=True) for d in docs
    )
    return comment + body
