"""``python -m gpuplan.cli`` runs the CLI (same as the ``gpuplan`` console script)."""

from gpuplan.cli import main

main()
