"""The two options by which the user widens what files from others may make gpuplan do.

``--project DIR``: the folder that files named by other files (a project folder, a config.json,
workload files) may lie in; without it, the folder of the file given on the command line.
``--allow-code``: a workload named by another file (services, usage) may import its
``model.python``. Both exist only on the command line: no file can set them (``gpuplan.confine``,
``gpuplan.workload.named``, SECURITY.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["AllowCodeOption", "ProjectOption"]

ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="The folder the files named inside your file (model.project_dir, hf_config, workload "
        "files) may lie in. Default: the folder of the file you give.",
        show_default=False,
        metavar="DIR",
    ),
]

AllowCodeOption = Annotated[
    bool,
    typer.Option(
        "--allow-code",
        help="Let workloads named in the file import and run their model.python code "
        "(only for files you trust).",
    ),
]
