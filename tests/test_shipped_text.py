"""What ships cites what a reader can follow: no shipped file (the package, its data, the docs and
examples, and the transcribed price tables the snapshot is built from) names the tools a maintainer
used to find a source instead of the source itself."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Words of a code-search tool's answers, which no reader can follow: a hit's id, the tool's calls.
TOOL_WORDS = re.compile(r"find_string|find_files|read_file\(|search index|\bid \d{9,}\b", re.IGNORECASE)

TEXT_SUFFIXES = {".py", ".csv", ".json", ".md", ".yaml", ".yml", ".html", ".js", ".css", ".po", ".txt"}


def _shipped_files() -> list[Path]:
    roots = [ROOT / "src" / "gpuplan", ROOT / "docs", ROOT / "examples"]
    files = [p for r in roots for p in r.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES]
    files += [ROOT / "README.md", *sorted((ROOT / "tools").glob("*.csv"))]
    return [p for p in files if "__pycache__" not in p.parts]


def test_no_shipped_file_cites_a_search_tool_instead_of_a_source() -> None:
    found = []
    for path in _shipped_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if match := TOOL_WORDS.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert found == []
