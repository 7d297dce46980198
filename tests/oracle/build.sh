#!/usr/bin/env bash
# Builds the programs the oracle tests hold the sim's shell against, from their public sources:
# toybox 0.8.6 with Android 13's device config (android-13.0.0_r1's external/toybox/.config-device,
# the Android-only parts, which need bionic and SELinux, left out) and mksh R59c, Android 13's sh.
# Needs git, curl, make, a C compiler, and zlib and OpenSSL headers (Debian: zlib1g-dev libssl-dev).
# Usage: tests/oracle/build.sh [DEST]   (DEST defaults to $MGFARM_ORACLES, else ~/.cache/mgfarm/oracles)
set -euo pipefail
dest="${1:-${MGFARM_ORACLES:-$HOME/.cache/mgfarm/oracles}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest/bin"

git clone -q --depth 1 --branch 0.8.6 https://github.com/landley/toybox "$work/toybox"
curl -fsSL "https://android.googlesource.com/platform/external/toybox/+/refs/tags/android-13.0.0_r1/.config-device?format=TEXT" \
  | base64 -d > "$work/toybox/.config"
sed -i -E 's/^CONFIG_(TOYBOX_ON_ANDROID|TOYBOX_ANDROID_SCHEDPOLICY|TOYBOX_SELINUX|CHCON|GETENFORCE|LOAD_POLICY|LOG|RESTORECON|RUNCON|SETENFORCE)=y/# CONFIG_\1 is not set/' \
  "$work/toybox/.config"
(cd "$work/toybox" && yes "" | make oldconfig >/dev/null && make -j"$(nproc)" >/dev/null)
cp "$work/toybox/toybox" "$dest/toybox"
for name in $("$dest/toybox"); do ln -sf ../toybox "$dest/bin/$name"; done

git clone -q --depth 1 --branch mksh-R59c https://github.com/MirBSD/mksh "$work/mksh"
(cd "$work/mksh" && sh Build.sh -r >/dev/null)
cp "$work/mksh/mksh" "$dest/mksh"
echo "oracles in $dest: run MGFARM_ORACLES=$dest .venv/bin/python -m pytest tests/oracle"
