#!/usr/bin/env bash
# Builds liftc and runs the whole test suite (unit, rule-equivalence and end-to-end tests
# on the default OpenCL device, PoCL here).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"
# A test without a TIMEOUT of its own fails after 15 minutes rather than hanging the run.
ctest --test-dir "$root/build" --output-on-failure --timeout 900 -j "${LIFTC_JOBS:-$(nproc)}" "$@"
