#!/bin/sh
# One simulated device listening on the container's console 5554 and adb 5555 (published by the
# farm on 127.0.0.1 of the host). The console token comes from MGFARM_CONSOLE_TOKEN.
set -eu
run_dir=/run/mgfarm
data=/var/lib/mgfarm
golden=/var/lib/mgfarm-golden
mkdir -p "$run_dir" "$data/snapshots" "$golden"
if [ -n "${MGFARM_CONSOLE_TOKEN:-}" ]; then
  # No trailing newline: adb reads the token file untrimmed. Only root may read it (0600); the
  # device process reads it before it gives up root.
  (umask 077 && printf '%s' "$MGFARM_CONSOLE_TOKEN" >"$run_dir/console_token")
fi
# Snapshots committed into the image (`mgfarm snapshot build --backend docker`) become the golden
# folder: owned by root, no write bit, and read-only to the device's sandbox (mgfarm.sim.confine).
for snap in "$data"/snapshots/*/; do
  [ -f "${snap}state.json" ] || continue
  name=$(basename "$snap")
  chmod -R u+w "$golden/$name" 2>/dev/null || true
  rm -rf "${golden:?}/$name"
  mv "$snap" "$golden/$name"
done
chown -R 0:0 "$golden"
chmod -R a-w "$golden"
# exec: python becomes PID 1 and gets SIGTERM from `docker stop` directly.
exec python3 -m mgfarm.sim serve --host 0.0.0.0 --adb-port 5555 \
  --token-file "$run_dir/console_token" --data "$data" --golden "$golden" "$@"
