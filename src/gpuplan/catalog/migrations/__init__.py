"""Alembic migrations of the catalog database (env.py, script template); run from code by catalog/opening.py."""
