#!/usr/bin/env bash
# Installs what is missing, configures and builds liftc and its tests into build/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
jobs="${LIFTC_JOBS:-$(nproc)}"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE="${LIFTC_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build "$root/build" -j "$jobs"
