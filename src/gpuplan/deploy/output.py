"""Writing a generated launch directory: the one place in deploy/ that touches the disk."""

from __future__ import annotations

import os
from pathlib import Path

from gpuplan.deploy.base import GeneratedFile
from gpuplan.errors import DeployError

__all__ = ["write_files"]


def write_files(files: list[GeneratedFile], out_dir: str | Path, *, force: bool = False) -> list[Path]:
    """Write ``files`` under ``out_dir``; returns their paths.

    An existing, non-empty ``out_dir`` is refused unless ``force``: then the generated files replace
    their namesakes and every other file is left alone (nothing is deleted).
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise DeployError(f"--out {out} is a file, not a directory: choose another --out")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise DeployError(
            f"output directory {out} exists and is not empty: "
            "choose another --out, or pass --force to overwrite"
        )
    written = []
    for f in files:
        target = out / f.path
        if Path(f.path).is_absolute() or ".." in Path(f.path).parts:  # pragma: no cover - generator bug
            raise DeployError(f"refusing to write outside {out}: {f.path}")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".gpuplan-tmp")
        tmp.write_text(f.content, encoding="utf-8")
        if f.executable:
            os.chmod(tmp, 0o755)
        os.replace(tmp, target)
        written.append(target)
    return written
