#!/usr/bin/env bash
# One headless emulator replica: console token, AVD config, launch, wait for boot, forward ports.
# The command line and AVD config come from mgfarm/farm/emulator.py (MGFARM_EMU_* variables).
set -euo pipefail

run_dir=/run/mgfarm
sdk="${ANDROID_SDK_ROOT:-/opt/android-sdk}"
avd_home="${ANDROID_AVD_HOME:-$HOME/.android/avd}"
adb_port="${MGFARM_EMU_ADB_PORT:-5555}"
serial="emulator-$((adb_port - 1))"
mkdir -p "$run_dir"
rm -f "$run_dir/ready"

if [ ! -e /dev/kvm ]; then
  echo "error: /dev/kvm is missing; run on a KVM host with 'docker run --device /dev/kvm ...'." >&2
  exit 1
fi

token="${MGFARM_CONSOLE_TOKEN:-}"
if [ -z "$token" ]; then
  token="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
fi
# The console compares the file's bytes with what `auth` sends: no trailing newline.
umask 077
printf '%s' "$token" >"$HOME/.emulator_console_auth_token"
printf '%s' "$token" >"$run_dir/console_token"
umask 022

python3 -m mgfarm.farm.emulator write-avd "$avd_home" >/dev/null
mapfile -t emulator_cmd < <(python3 -m mgfarm.farm.emulator command "$sdk/emulator/emulator")
mapfile -t forwarders < <(python3 -m mgfarm.farm.emulator forwarders "$(hostname -i | awk '{print $1}')")

# An adb server inside the container only to watch the boot; the emulator announces itself to it.
adb start-server >/dev/null
"${emulator_cmd[@]}" &
emulator_pid=$!
child_pids=("$emulator_pid")

stop() {
  kill -TERM "${child_pids[@]}" 2>/dev/null || true
  wait || true
}
trap stop TERM INT

until [ "$(adb -s "$serial" shell getprop sys.boot_completed 2>/dev/null | tr -d '\r')" = "1" ]; do
  if ! kill -0 "$emulator_pid" 2>/dev/null; then
    echo "error: the emulator exited before sys.boot_completed=1; its log is above." >&2
    exit 1
  fi
  sleep 2
done
# The emulator serves one adb client well; leave it to the host's adb server.
adb kill-server

for line in "${forwarders[@]}"; do
  read -r -a forwarder <<<"$line"
  "${forwarder[@]}" &
  child_pids+=("$!")
done
touch "$run_dir/ready"
echo "ready $serial console=$((adb_port - 1)) adb=$adb_port"
wait "$emulator_pid"
