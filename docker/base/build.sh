#!/usr/bin/env bash
# Build the mgfarm base image from Debian packages, without any registry:
# mmdebstrap (as root or not) or debootstrap (root) lays out a minimal Debian, `docker import` turns it into
# an image. The image carries the hash of this recipe as a label, so an unchanged recipe is not rebuilt.
# Usage: docker/base/build.sh [TAG]    (env: DEBIAN_SUITE, DEBIAN_MIRROR, MGFARM_REBUILD=1)
set -euo pipefail

tag="${1:-mgfarm/base:bookworm}"
suite="${DEBIAN_SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# python3-venv: the sim image installs mgfarm into a venv (Debian's python is externally managed).
packages="python3,python3-venv,ca-certificates,procps,tini"

recipe_hash="$(printf '%s\n' "$suite" "$mirror" "$packages" | cat - "$0" | sha256sum | cut -c1-16)"
current="$(docker image inspect --format '{{ index .Config.Labels "org.mgfarm.recipe" }}' "$tag" 2>/dev/null || true)"
if [ "$current" = "$recipe_hash" ] && [ "${MGFARM_REBUILD:-0}" != 1 ]; then
  echo "$tag is current (recipe $recipe_hash); not rebuilding."
  exit 0
fi

import_image() {
  docker import \
    --change "LABEL org.mgfarm.recipe=$recipe_hash" \
    --change "LABEL org.mgfarm.suite=$suite" \
    --change 'ENV LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' \
    - "$tag" >/dev/null
}

if command -v mmdebstrap >/dev/null; then
  # Without root, mmdebstrap maps ids in a user namespace (needs uidmap and a /etc/subuid range);
  # either way it streams a tarball with the right owners and leaves no apt lists or caches.
  mode=root
  [ "$(id -u)" = 0 ] || mode=unshare
  mmdebstrap --quiet --mode="$mode" --variant=minbase --include="$packages" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    "$suite" - "$mirror" | import_image
elif command -v debootstrap >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "error: debootstrap needs root; install mmdebstrap ('apt-get install mmdebstrap'), which builds without it." >&2
    exit 1
  fi
  rootfs="$(mktemp -d /tmp/mgfarm-base.XXXXXX)"
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror"
  rm -rf "$rootfs/var/cache/apt/archives/"*.deb "$rootfs/var/lib/apt/lists/"*
  tar --numeric-owner -C "$rootfs" -c . | import_image
else
  echo "error: neither mmdebstrap nor debootstrap is installed; run 'apt-get install mmdebstrap'." >&2
  exit 1
fi
echo "built $tag (recipe $recipe_hash)"
