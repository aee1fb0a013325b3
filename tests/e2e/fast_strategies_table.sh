#!/usr/bin/env bash
# Which (form, strategy) pairs of the eight fast convolution strategies rewrite, and which
# give validated kernels on the first OpenCL device (PoCL in CI): a markdown table, one row
# a form, one column a strategy. A cell is `valid` (the strategy rewrites the form and
# `liftc explore` validates at least one of EVALS candidates against the interpreter),
# `0 valid` (it rewrites, nothing validates), or `no` (it does not rewrite).
#
#   tests/e2e/fast_strategies_table.sh BUILD_DIR [RULES_DIR] FORM.sr...
#   tests/e2e/fast_strategies_table.sh build rules examples/conv/forms/batch_of_one.sr
#
# EVALS (default 3) candidates per pair; STRATEGIES (a blank-separated list) replaces the eight
# (e.g. STRATEGIES="conv-depthwise-kappa conv-chw"); the store and scratch files go to a
# temporary folder.
set -euo pipefail
build=$1; shift
rules=rules
if [[ $# -gt 0 && -d $1 ]]; then rules=$1; shift; fi
evals=${EVALS:-3}
strategies=(conv-chw-tile conv-chw-tile-m0 conv-chw-tile-local conv-chw-tile-split conv-chw-omega-kappa conv-gemm
            conv-winograd-gemm conv-winograd-local)
short=(tile tile-m0 tile-local tile-split omega-kappa gemm winograd-gemm winograd-local)
if [[ -n ${STRATEGIES:-} ]]; then
  read -r -a strategies <<<"$STRATEGIES"
  short=("${strategies[@]}")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| form |'; printf ' %s |' "${short[@]}"; printf '\n| --- |'; printf ' --- |%.0s' "${short[@]}"; printf '\n'
for form in "$@"; do
  printf '| `%s` |' "$(basename "$form")"
  for s in "${strategies[@]}"; do
    if ! "$build/liftc" rewrite "$form" --strategy "$s" --rules "$rules" >/dev/null 2>&1; then
      printf ' no |'
      continue
    fi
    log=$("$build/liftc" explore "$form" -s "$s" --rules "$rules" --evals "$evals" -j 1 --runs 1 \
            --db "$tmp/results.db" 2>&1 || true)
    ok=$(grep -Eo 'evaluated, [0-9]+ valid' <<<"$log" | tail -1 | grep -Eo '[0-9]+' || true)
    if [[ ${ok:-0} -gt 0 ]]; then printf ' valid |'; else printf ' 0 valid |'; fi
  done
  printf '\n'
done
