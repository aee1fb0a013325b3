#!/usr/bin/env bash
# Installs what is missing, configures and builds liftc into build/: every target (liftc,
# liftc-runner and the tests), or only the targets named (scripts/build.sh liftc liftc-runner).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
jobs="${LIFTC_JOBS:-$(nproc)}"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE="${LIFTC_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$root/build" -j "$jobs" "${targets[@]}"
