#!/usr/bin/env bash
# The fresh-machine truth: `make demo` and the unit tests from a clean clone, as a user without root,
# with the system Python and before CI installs any system package, so a missing install step fails.
set -euo pipefail
user=mgfarm-ci
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home="$(getent passwd "$user" | cut -d: -f6)"
rm -rf "$home/fresh" "$home/.mgfarm"
git clone --quiet --no-hardlinks "$PWD" "$home/fresh"
chown -R "$user:" "$home/fresh"
echo "==> as $user (no root), in a fresh clone: make demo, then make unit"
runuser -u "$user" -- env -i HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 CI=true \
  bash -c 'cd ~/fresh && make demo PYTHON=/usr/bin/python3 && make unit PYTHON=/usr/bin/python3'
