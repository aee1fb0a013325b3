#!/usr/bin/env bash
# Benchmark: how `liftc check` scales with the number of definitions (issue 11: 30,000
# definitions once took 12.5 s, quadratic in the elaborator's binder naming). Generates
# programs of N independent definitions `def dI = map(v -> v + 1.0, x)` and of a chain
# `def dI = map(v -> v + 1.0, dI-1)`, and prints the wall time of `liftc check` for each.
#
# Usage: scripts/bench_load.sh [--liftc PATH] [--counts "10000 20000 30000"]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
liftc="$root/build/liftc"
counts="10000 20000 30000"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc) liftc="$2"; shift 2 ;;
    --counts) counts="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 1 ;;
  esac
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "| definitions | independent (s) | chain (s) |"
echo "| --- | --- | --- |"
for n in $counts; do
  {
    printf 'size N = 4\ninput x : [float]N\n'
    for ((i = 0; i < n; ++i)); do printf 'def d%d = map(v -> v + 1.0, x)\n' "$i"; done
  } > "$work/independent.sr"
  {
    printf 'size N = 4\ninput x : [float]N\ndef d0 = map(v -> v + 1.0, x)\n'
    for ((i = 1; i < n; ++i)); do printf 'def d%d = map(v -> v + 1.0, d%d)\n' "$i" "$((i - 1))"; done
  } > "$work/chain.sr"
  times=()
  for f in independent chain; do
    start=$(date +%s.%N)
    "$liftc" check "$work/$f.sr" > /dev/null
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  echo "| $n | ${times[0]} | ${times[1]} |"
done
