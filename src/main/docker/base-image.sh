#!/usr/bin/env bash
# Builds the base image the container tests, the bench and the Dockerfiles (BASE build argument)
# start from, without a registry: `debootstrap --variant=minbase` a Debian root into a scratch dir,
# then `docker import` it. No Java in it, on purpose: a pool's image needs none (the agent comes
# from its bundle, mounted at /opt/warmpool). Cached by tag: a second call costs one
# `docker image inspect`.
#   src/main/docker/base-image.sh [TAG [PACKAGE...]]   (default warmpool-base:bookworm, no package)
# PACKAGEs are added to the minbase set (e.g. python3 for a Python image, still no Java).
# Env: WARMPOOL_BASE_SUITE (bookworm), WARMPOOL_BASE_MIRROR (the first deb line of apt's sources).
set -euo pipefail
tag="${1:-warmpool-base:bookworm}"
shift || true
include=$(IFS=,; echo "$*")
suite="${WARMPOOL_BASE_SUITE:-bookworm}"

if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base image $tag: cached"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { echo "base-image.sh: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }

mirror="${WARMPOOL_BASE_MIRROR:-}"
if [ -z "$mirror" ]; then
  # the mirror apt already reaches (no other host is reachable from CI)
  mirror=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | tr -d ' ' | head -1 || true)
  mirror="${mirror:-http://deb.debian.org/debian}"
fi

root=$(mktemp -d /var/tmp/warmpool-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
start=$SECONDS
debootstrap --variant=minbase ${include:+--include="$include"} "$suite" "$root" "$mirror" >"$root.log" 2>&1 \
  || { tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
# apt's lists and caches are not needed in an image
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | docker import -c 'CMD ["/bin/sh"]' - "$tag" >/dev/null
echo "base image $tag: built in $((SECONDS - start)) s"
