"""`gpuplan serve`: the team service (FastAPI application, dashboard, job worker), a face over the library."""
