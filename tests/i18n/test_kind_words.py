"""Every kind of name an error says is unknown is named in the reader's language.

`serve token create --scope plann` had said "错误：scope 'plann' 无法识别": the kinds an error
names are translated from one list (``KIND_WORDS``), and six were missing from it."""

from __future__ import annotations

import re
from pathlib import Path

from gpuplan.i18n.error_text import KIND_WORDS

SRC = Path(__file__).resolve().parents[2] / "src" / "gpuplan"
#: ``NotFoundError("kind", …)`` / ``UnknownChoiceError("kind", …)`` as the code writes them.
_RAISED = re.compile(r'(?:NotFoundError|UnknownChoiceError)\(\s*"([^"]+)"')


def test_every_kind_an_unknown_name_error_names_is_translated() -> None:
    kinds = {m.group(1) for f in SRC.rglob("*.py") for m in _RAISED.finditer(f.read_text(encoding="utf-8"))}
    flags = {k for k in kinds if k.startswith("--")}  # an option's own name stays as typed
    assert len(kinds) > 20
    assert kinds - flags - set(KIND_WORDS) == set()
