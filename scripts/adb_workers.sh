#!/usr/bin/env bash
# One `liftc worker` per phone `adb devices` lists (state "device"), each running its
# candidates on its phone through `scripts/adb_runner.sh SERIAL` (setup: that script's
# header). The workers run what `liftc explore --workers external --db URL` queues for the
# phones' device kind (GPU name and driver); Ctrl-C or SIGTERM stops them all cleanly.
#
#   scripts/adb_workers.sh postgresql://tuner@db.lab/tuning
#   liftc explore examples/vgg16/conv_reduced.sr --target mali-g72 --runner scripts/adb_runner.sh \
#         --workers external --jobs 4 --timeout 120 --db postgresql://tuner@db.lab/tuning
#   liftc worker --list --db postgresql://tuner@db.lab/tuning   # one line a phone's worker
#
# The explorer probes a phone itself (its --runner) for the device's limits; each worker
# probes its own at start. Environment: LIFTC (the liftc binary, default liftc on PATH),
# ADB (default adb), LIFTC_DEVICE (the device selector on the phones, default: the first).
set -euo pipefail
db="${1:?usage: adb_workers.sh POSTGRESQL_URL}"
liftc="${LIFTC:-liftc}"
adb="${ADB:-adb}"
runner="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/adb_runner.sh"
mapfile -t serials < <("$adb" devices | awk 'NR > 1 && $2 == "device" { print $1 }')
if [[ ${#serials[@]} -eq 0 ]]; then
  echo "adb_workers.sh: adb devices lists no phone (connected, authorized: state 'device')" >&2
  exit 1
fi
pids=()
stop() {
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait
  exit 0
}
trap stop INT TERM
for serial in "${serials[@]}"; do
  # (the runner command is a shell line: the path of this checkout must hold no space)
  "$liftc" worker --db "$db" --device "${LIFTC_DEVICE:-}" --runner "$runner $serial" > >(sed -u "s/^/[$serial] /") 2>&1 &
  pids+=("$!")
done
echo "adb_workers.sh: ${#serials[@]} worker(s): ${serials[*]}"
wait
