"""Importers: files and APIs -> offer rows for :meth:`gpuplan.catalog.Store.import_offers`."""

from gpuplan.catalog.importers.skypilot import ParsedFile, parse_skypilot

__all__ = ["ParsedFile", "parse_skypilot"]
