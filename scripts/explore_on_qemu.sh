#!/usr/bin/env bash
# The phone path, proven off the host: `liftc explore` of a program (default
# examples/conv/conv_small.sr) through scripts/qemu_runner.sh (the aarch64 liftc-runner
# under qemu-aarch64, on arm64 PoCL), then checks that candidates were validated and that
# every row says aarch64, and says where the time went. Too slow for CI (tens of seconds a
# candidate): run it by hand. Installs what it needs (scripts/setup.sh, and qemu_runner.sh
# its own); builds liftc into build/ when it is not there.
#
# Usage: scripts/explore_on_qemu.sh [PROGRAM.sr] [liftc explore options...]
#   --evals 6 --jobs 1 --timeout 600 unless given
# Environment: LIFTC (the liftc binary, default build/liftc), OUT (the folder for the
# store, the logs and the device folder, default build-aarch64/explore-on-qemu). The device
# folder starts empty, PoCL's kernel cache too, so the times are those of kernels never
# built before.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
program="$root/examples/conv/conv_small.sr"
if [[ $# -gt 0 && "$1" != -* ]]; then program="$1"; shift; fi
liftc="${LIFTC:-$root/build/liftc}"
out="${OUT:-$root/build-aarch64/explore-on-qemu}"
[[ -x "$liftc" ]] || { bash "$root/scripts/setup.sh" > /dev/null && bash "$root/scripts/build.sh" > /dev/null; }
mkdir -p "$out"
db="$out/results.db"
rm -f "$db" "$db-wal" "$db-shm"
export LIFTC_QEMU_DEVICE_DIR="$out/device"
rm -rf "$LIFTC_QEMU_DEVICE_DIR"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Set-up first, on its own (packages, the aarch64 runner, the arm64 root), so the
# exploration's time is the emulated device's.
start=$(now)
probe="$out/probe"
rm -rf "$probe" && mkdir -p "$probe" && printf 'liftc-bundle 1\ndevice \n' > "$probe/bundle.txt"
bash "$root/scripts/qemu_runner.sh" "$probe" > "$out/probe.json"
echo "set-up and a device probe: $(since "$start") s"
# qemu-aarch64 starting the runner (its usage message: no OpenCL at all).
start=$(now)
QEMU_LD_PREFIX="${LIFTC_ARM64_SYSROOT:-$root/build-aarch64/sysroot}" \
  qemu-aarch64-static "$root/build-aarch64/liftc-runner" --help 2> /dev/null || true
echo "qemu-aarch64 start and exit of the runner: $(since "$start") s"

options=("$@")
for default in --evals=6 --jobs=1 --timeout=600; do
  flag="${default%=*}"
  [[ " $* " == *" $flag "* || " $* " == *" $flag="* ]] || options+=("$flag" "${default#*=}")
done
start=$(now)
"$liftc" explore "$program" --runner "$root/scripts/qemu_runner.sh" --db "$db" "${options[@]}" 2>&1 |
  tee "$out/explore.log"
echo "explore: $(since "$start") s"
"$liftc" results "$db" | tee "$out/results.txt"

# Every row that ran says aarch64; at least one candidate was validated.
awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { rows++; if ($3 != "aarch64") other++; if ($4 == "ok" || $4 == "cut") valid++ }
     END {
       printf "%d row(s), %d validated, %d not aarch64\n", rows, valid, other
       exit (rows > 0 && valid > 0 && other == 0) ? 0 : 1
     }' "$out/results.txt" ||
  { echo "error: explore_on_qemu.sh: expected validated candidates, every row aarch64" >&2; exit 1; }
