#!/bin/sh
# One simulated device listening on the container's console 5554 and adb 5555 (published by the
# farm on 127.0.0.1 of the host). The console token comes from MGFARM_CONSOLE_TOKEN.
set -eu
run_dir=/run/mgfarm
mkdir -p "$run_dir" /var/lib/mgfarm
if [ -n "${MGFARM_CONSOLE_TOKEN:-}" ]; then
  # No trailing newline: adb reads the token file untrimmed.
  printf '%s' "$MGFARM_CONSOLE_TOKEN" >"$run_dir/console_token"
fi
# exec: python becomes PID 1 and gets SIGTERM from `docker stop` directly.
exec python3 -m mgfarm.sim serve --host 0.0.0.0 --adb-port 5555 \
  --token-file "$run_dir/console_token" --data /var/lib/mgfarm "$@"
