"""``python -m gpuplan`` runs the CLI (same as the ``gpuplan`` console script)."""

from gpuplan.cli import main

main()
