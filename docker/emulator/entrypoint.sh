#!/usr/bin/env bash
# One headless emulator replica: fresh secrets, stale AVD locks removed, launch, wait for boot over
# ADB, forward the loopback-only ports. Runs as the image's non-root user (kvm group).
# The command line and AVD config come from mgfarm/farm/emulator.py (MGFARM_EMU_* variables).
set -euo pipefail

run_dir="${MGFARM_RUN_DIR:-/run/mgfarm}"
sdk="${ANDROID_SDK_ROOT:-/opt/android-sdk}"
avd_home="${ANDROID_AVD_HOME:-$HOME/.android/avd}"
emulator_bin="${MGFARM_EMULATOR:-$sdk/emulator/emulator}"
healthcheck="${MGFARM_HEALTHCHECK:-/usr/local/bin/healthcheck.py}"
adb_port="${MGFARM_EMU_ADB_PORT:-5555}"

die() {
  echo "error: $*" >&2
  exit 1
}

# A helper's output, or the end of this replica: `mapfile < <(...)` would hide its failure.
helper() {
  local output
  output="$(python3 -m mgfarm.farm.emulator "$@")" || die "'python3 -m mgfarm.farm.emulator $1' failed (its message is above); fix the MGFARM_EMU_* settings."
  printf '%s\n' "$output"
}

# Secrets live only while the replica runs: the console token and any adb key. A container
# committed after a clean stop (`mgfarm snapshot build`) holds neither; the next start makes new ones.
scrub() {
  rm -f "$HOME/.emulator_console_auth_token" "$run_dir/console_token" \
    "$HOME"/.android/adbkey "$HOME"/.android/adbkey.pub
  # The discovery files hold the gRPC token (`-grpc-use-token`).
  rm -rf "$avd_home/running" "$HOME/.android/avd/running"
}

# Lock files of an emulator that was killed, or committed while running, make the next start fail
# ("another emulator instance is running"); no emulator runs yet, so every lock is stale.
remove_locks() {
  find "$avd_home" -name '*.lock' -prune -exec rm -rf {} + 2>/dev/null || true
}

mkdir -p "$run_dir" || die "cannot create $run_dir as $(id -un); the image must give it to that user."
rm -f "$run_dir/ready"

# Without KVM the emulator is unusably slow; only the stand-in (nothing to accelerate) turns it off.
if [ "${MGFARM_EMU_ACCEL:-on}" != off ]; then
  if [ ! -e /dev/kvm ]; then
    die "/dev/kvm is missing; run on a KVM host with 'docker run --device /dev/kvm ...'."
  fi
  if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
    die "/dev/kvm is not usable by $(id -un) (groups: $(id -Gn)); give it to the kvm group (mode 0660) and pass --group-add \$(stat -c %g /dev/kvm)."
  fi
fi

scrub
remove_locks
token="${MGFARM_CONSOLE_TOKEN:-}"
if [ -z "$token" ]; then
  token="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
fi
# The console compares the file's bytes with what `auth` sends: no trailing newline.
umask 077
printf '%s' "$token" >"$HOME/.emulator_console_auth_token"
printf '%s' "$token" >"$run_dir/console_token"
umask 022

helper write-avd "$avd_home" >/dev/null
command_lines="$(helper command "$emulator_bin")"
mapfile -t emulator_cmd <<<"$command_lines"
[ "${#emulator_cmd[@]}" -gt 1 ] || die "the emulator command line came out empty."
bind_host="${MGFARM_BIND_HOST:-$(hostname -i | awk '{print $1}')}"

child_pids=()
# shellcheck disable=SC2317  # called from the EXIT trap
stop() {
  kill -TERM "${child_pids[@]}" 2>/dev/null || true
  wait || true
  remove_locks
  scrub
}
trap stop EXIT
trap 'exit 143' TERM INT

"${emulator_cmd[@]}" &
emulator_pid=$!
child_pids+=("$emulator_pid")

until python3 "$healthcheck" --boot >/dev/null 2>&1; do
  if ! kill -0 "$emulator_pid" 2>/dev/null; then
    wait "$emulator_pid" || true
    die "the emulator exited before sys.boot_completed=1; its log is above."
  fi
  sleep 2
done

python3 -m mgfarm.farm.emulator forward "$bind_host" --ready "$run_dir/ready" &
forwarder_pid=$!
child_pids+=("$forwarder_pid")
until [ -e "$run_dir/ready" ]; do
  kill -0 "$forwarder_pid" 2>/dev/null || die "the port forwarder on $bind_host exited; its message is above."
  sleep 0.2
done
echo "ready emulator-$((adb_port - 1)) console=$((adb_port - 1)) adb=$adb_port"
status=0
wait "$emulator_pid" || status=$?
echo "the emulator exited with status $status"
exit "$status"
