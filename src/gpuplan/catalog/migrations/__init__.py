"""Alembic migrations of the catalog database (env.py, the script template), run from code by
catalog/open_catalog.py."""
