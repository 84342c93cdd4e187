"""Alembic environment for gpuplan's store.

Run only programmatically (``gpuplan.catalog.store``), which passes an open connection in
``config.attributes["connection"]``; no alembic.ini is needed on the user's side.
"""

from __future__ import annotations

from alembic import context

from gpuplan.catalog.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - guards against running the Alembic CLI by hand
    raise RuntimeError("gpuplan migrations run through gpuplan.catalog.open_store, not the alembic CLI")

# render_as_batch: SQLite cannot ALTER most columns; batch mode lets later migrations work on it too.
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
