#!/usr/bin/env bash
# Healthy once the entrypoint saw sys.boot_completed=1 and while the emulator process lives.
set -euo pipefail
test -f /run/mgfarm/ready
pgrep -f qemu-system >/dev/null
