#!/usr/bin/env bash
# Benchmark: the reference interpreter's speed (MFLOP/s, 2 flops per multiply-add) on
# VGG-16's 3x3 layers (examples/vgg16/conv1..9.sr) and the reduced layer, BEFORE and AFTER
# in the same run: "before" is liftc built from an older commit (default: the commit before
# the interpreter ran its outer maps in parallel), "after" is build/liftc on all cores.
#
# Usage: scripts/bench_interp.sh [--before-ref REF | --before BIN | --before-sequential]
#                                [--after BIN] [--layers "reduced 1 2 ..."] [--threads N]
# --before-sequential takes the AFTER binary on one thread as "before" (LIFTC_THREADS=1:
# the sequential code path, the same inner loops) instead of building an older commit.
# --before-ref builds REF's liftc in $TMPDIR/liftc-bench-before (git archive; ccache helps);
# --before takes an existing binary. Prints a Markdown table.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
after="$root/build/liftc"
before=""
before_ref="bddf83c~1"
layers="reduced 1 2 3 4 5 6 7 8 9"
threads="$(nproc)"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --before) before="$2"; shift 2 ;;
    --before-sequential) before="sequential"; shift ;;
    --before-ref) before_ref="$2"; shift 2 ;;
    --after) after="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    *) echo "bench_interp.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ -x "$after" ]] || { echo "bench_interp.sh: no liftc at $after (build first)" >&2; exit 1; }
[[ "$before" == sequential ]] && before="$after"
echo "before: $before (1 thread); after: $after ($threads threads); $(nproc) cores" >&2

if [[ -z "$before" ]]; then
  work="${TMPDIR:-/tmp}/liftc-bench-before"
  rm -rf "$work/src" && mkdir -p "$work/src"
  git -C "$root" archive "$before_ref" | tar -x -C "$work/src"
  cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
  cmake --build "$work/build" -j "$(nproc)" --target liftc >&2
  before="$work/build/liftc"
fi

# Seconds `liftc eval` reports for FILE with BIN (threads from LIFTC_THREADS).
eval_seconds() {
  "$1" eval "$2" | sed -n 's/^evaluated in \([0-9.]*\) s$/\1/p'
}

# Multiply-adds of a layer: H*W*M*C*K*K (stride 1, pad 1, so the output is H x W).
flops() {
  local file="$1" sizes
  sizes="$(sed -n 's/^size \(.*\)$/\1/p' "$file" | tr -d ' ')"
  local C H W M K
  C="$(echo "$sizes" | tr ',' '\n' | sed -n 's/^C=//p')"
  H="$(echo "$sizes" | tr ',' '\n' | sed -n 's/^H=//p')"
  W="$(echo "$sizes" | tr ',' '\n' | sed -n 's/^W=//p')"
  M="$(echo "$sizes" | tr ',' '\n' | sed -n 's/^M=//p')"
  K="$(echo "$sizes" | tr ',' '\n' | sed -n 's/^K=//p')"
  echo $((2 * H * W * M * C * K * K))
}

echo "| layer | GFLOP | before (s) | before MFLOP/s | after, $threads threads (s) | after MFLOP/s | speed-up |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for layer in $layers; do
  if [[ "$layer" == reduced ]]; then file="$root/examples/vgg16/conv_reduced.sr"; else file="$root/examples/vgg16/conv$layer.sr"; fi
  f="$(flops "$file")"
  tb="$(LIFTC_THREADS=1 eval_seconds "$before" "$file")"
  ta="$(LIFTC_THREADS="$threads" eval_seconds "$after" "$file")"
  awk -v l="$layer" -v f="$f" -v tb="$tb" -v ta="$ta" 'BEGIN {
    printf "| %s | %.3f | %.2f | %.0f | %.2f | %.0f | %.1fx |\n", l, f / 1e9, tb, f / tb / 1e6, ta, f / ta / 1e6, tb / ta }'
done
