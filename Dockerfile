# gpuplan serve: the team's planning service (API, dashboard, job worker) in one container.
#   docker build -t gpuplan-serve .
#   docker run -p 8000:8000 -v gpuplan-data:/data gpuplan-serve          # SQLite in the volume
#   docker run -p 8000:8000 -e GPUPLAN_DB=postgresql+psycopg://… gpuplan-serve   # a team's PostgreSQL
# Tokens: docker exec CONTAINER gpuplan serve token create --name alice --scope plan
FROM python:3.11-slim

# tzdata: the offers map places countries by the time zone table (zone.tab).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tzdata \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 gpuplan

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
# Tracing runs on fake tensors: the CPU build of torch is enough. Pass TORCH_INDEX (an index that
# serves CPU-only wheels) to keep the image small; the default wheel carries CUDA libraries (GBs).
ARG TORCH_INDEX=""
RUN if [ -n "$TORCH_INDEX" ]; then pip install --no-cache-dir --index-url "$TORCH_INDEX" torch==2.13.0; fi \
 && pip install --no-cache-dir '.[torch,hf,postgres,serve]'

USER 10001
# The catalog (and the job queue, in the same file) when no GPUPLAN_DB is given.
ENV GPUPLAN_DB=/data/gpuplan.sqlite \
    XDG_DATA_HOME=/data \
    TMPDIR=/tmp
VOLUME ["/data"]
EXPOSE 8000
ENTRYPOINT ["gpuplan", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD ["--workers", "2", "--job-workers", "1"]
