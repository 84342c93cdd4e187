#!/usr/bin/env bash
# Build the gpuplan-serve image without a Docker engine, run `gpuplan serve` in it and ask its
# readiness and liveness paths. Not run by CI (it takes minutes and root). Needs root, buildah
# (apt-get install -y buildah) and, when no registry can be reached, debootstrap.
#
#   sudo tools/build_image.sh                      # base image pulled, wheels from PyPI
#   sudo tools/build_image.sh --wheels /opt/wheels --ca /etc/ssl/certs/ca-certificates.crt
#
# --wheels DIR  a folder of wheels mounted into the build (pip's find-links), e.g. a CPU build of
#               torch when download.pytorch.org cannot be reached.
# --ca FILE     a CA bundle mounted over the image's own during the build (a proxy that re-signs TLS).
# Storage is vfs and isolation chroot, so it runs where overlayfs and user namespaces do not (a
# container, a CI runner). Without a registry the Dockerfile's base (debian:bookworm-slim) is made
# from Debian's mirror with debootstrap and stored under the same name.
set -euo pipefail

cd "$(dirname "$0")/.."
WHEELS="" CA="" PORT=18765
while [ $# -gt 0 ]; do
  case "$1" in
    --wheels) WHEELS="$2"; shift 2 ;;
    --ca) CA="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
B=(buildah --storage-driver vfs)
BASE=docker.io/library/debian:bookworm-slim

if ! "${B[@]}" inspect --type image "$BASE" >/dev/null 2>&1 && ! "${B[@]}" pull -q "$BASE"; then
  echo "no registry: making $BASE with debootstrap from deb.debian.org" >&2
  work=$(mktemp -d)
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian
  tar -C "$work/rootfs" -cf "$work/base.tar" .
  ctr=$("${B[@]}" from scratch)
  "${B[@]}" add "$ctr" "$work/base.tar" /
  "${B[@]}" commit -q "$ctr" "$BASE"
  "${B[@]}" rm "$ctr" >/dev/null
  rm -rf "$work"
fi

args=(--isolation chroot -t gpuplan-serve)
[ -n "$WHEELS" ] && args+=(-v "$WHEELS:/wheels:ro" --build-arg PIP_FIND_LINKS=/wheels)
[ -n "$CA" ] && args+=(-v "$CA:/etc/ssl/certs/ca-certificates.crt:ro")
time "${B[@]}" bud "${args[@]}" .
"${B[@]}" images gpuplan-serve

# Run it as the image's user (chroot isolation shares the host's network: 127.0.0.1 is the host's).
ctr=$("${B[@]}" from gpuplan-serve)
log=$(mktemp)
"${B[@]}" run --isolation chroot --user 10001 "$ctr" -- \
  gpuplan serve --host 127.0.0.1 --port "$PORT" --workers 1 --job-workers 1 >"$log" 2>&1 &
runner=$!
stop() {
  # The server is the chroot's python; stopping it ends `buildah run`.
  pkill -TERM -P "$runner" 2>/dev/null || true
  for pid in $(pgrep -f "gpuplan serve --host 127.0.0.1 --port $PORT" || true); do kill -TERM "$pid" 2>/dev/null || true; done
  wait "$runner" 2>/dev/null || true
  "${B[@]}" rm "$ctr" >/dev/null
}
trap stop EXIT
for _ in $(seq 1 90); do
  if curl -sf "http://127.0.0.1:$PORT/api/v1/health"; then echo; break; fi
  sleep 2
done
curl -sf "http://127.0.0.1:$PORT/api/v1/health" >/dev/null || { tail -20 "$log"; exit 1; }
curl -sf -o /dev/null -w "liveness %{http_code}\n" "http://127.0.0.1:$PORT/api/v1/live"
echo "image gpuplan-serve: ready"
