#!/usr/bin/env bash
# Build the emulator image from a small staged context (not the whole repository).
# Usage: docker/emulator/build.sh [TAG] [extra docker build args...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tag="${1:-mgfarm/emulator:latest}"
shift || true

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
cp "$here/Dockerfile" "$here/entrypoint.sh" "$here/healthcheck.sh" "$context/"
mkdir -p "$context/mgfarm/farm"
cp "$repo/mgfarm/errors.py" "$context/mgfarm/errors.py"
cp "$repo/mgfarm/farm/emulator.py" "$context/mgfarm/farm/emulator.py"
touch "$context/mgfarm/__init__.py" "$context/mgfarm/farm/__init__.py"
chmod 0755 "$context/entrypoint.sh" "$context/healthcheck.sh"
docker build --tag "$tag" "$@" "$context"
