"""Write the JSON Schemas of gpuplan's documents to docs/schemas/ (or check them with --check).

    python tools/gen_schemas.py [--check]

The schemas are rendered from the pydantic models in gpuplan.documents; run this after changing
a document model and commit the result.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpuplan.documents.schemas import schema_texts

OUT = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a committed schema is out of date")
    args = parser.parse_args()
    stale = []
    for name, text in schema_texts().items():
        path = OUT / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(OUT.parent.parent)}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python tools/gen_schemas.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
