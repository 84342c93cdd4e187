# gpuplan serve: the team's planning service (API, dashboard, job worker) in one container.
#   docker build -t gpuplan-serve .
#   docker run -p 8000:8000 -v gpuplan-data:/data gpuplan-serve          # SQLite in the volume
#   docker run -p 8000:8000 -e GPUPLAN_DB=postgresql+psycopg://… gpuplan-serve   # a team's PostgreSQL
# Tokens: docker exec CONTAINER gpuplan serve token create --name alice --scope plan
# Without Docker: tools/build_image.sh builds and checks it with buildah (rootless-free, vfs, chroot).
#
# Debian's own Python 3.11 (bookworm), so that the interpreter gets Debian's security updates with
# the rest of the image; gpuplan goes into a virtual environment beside it (PEP 668).
FROM debian:bookworm-slim

# tzdata: the offers map places countries by the time zone table (zone.tab).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 gpuplan \
 && mkdir -p /data && chown 10001:10001 /data \
 && python3 -m venv /opt/gpuplan
ENV PATH=/opt/gpuplan/bin:$PATH

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
# Tracing runs on fake tensors: the CPU build of torch is enough. Pass TORCH_INDEX (an index that
# serves CPU-only wheels, e.g. https://download.pytorch.org/whl/cpu) to keep the image small; the
# default wheel carries CUDA libraries (GBs). PIP_FIND_LINKS (a build argument, so pip reads it)
# may name a folder of wheels mounted into the build.
ARG TORCH_INDEX=""
ARG PIP_FIND_LINKS=""
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
