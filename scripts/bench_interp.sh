#!/usr/bin/env bash
# Benchmark: the reference interpreter's speed (MFLOP/s, 2 flops per multiply-add) on
# VGG-16's 3x3 layers (examples/vgg16/conv1..9.sr) and the reduced layer, BEFORE and AFTER
# in the same run, each on 1 thread and on N threads (`liftc eval` reads the thread count
# of its outermost maps from the environment variable LIFTC_THREADS; unset, it uses every
# core the machine reports).
#
# Usage: scripts/bench_interp.sh [--before BIN | --before-ref REF | --before-sequential]
#                                [--after BIN] [--layers "reduced 1 2 ..."] [--threads N]
#                                [--repeat R]
#   --before BIN        an older liftc binary as "before"
#   --before-ref REF    builds REF's liftc in $TMPDIR/liftc-bench-before (git archive;
#                       ccache helps) as "before"; the default, REF = bc3938b (main before
#                       the interpreter's inner loops were tightened; its outer maps
#                       already run in parallel)
#   --before-sequential no older binary: only AFTER is measured (on 1 and N threads)
#   --after BIN         default build/liftc
#   --layers L          default "reduced 1 2 3 4 5 6 7 8 9" (conv1..9; the older binary at
#                       1 thread takes minutes per full-size layer: about 17 MFLOP/s)
#   --threads N         the "all threads" count, default $(nproc); N = 1 measures 1 thread only
#   --repeat R          runs per cell (default 1); a cell gives the median MFLOP/s and,
#                       for R > 1, the range over the runs (the spread of a busy machine)
# Prints a Markdown table; the times are what `liftc eval` reports (evaluation only, wall
# clock), on random inputs (seed 0).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
after="$root/build/liftc"
before=""
before_ref="bc3938b"
layers="reduced 1 2 3 4 5 6 7 8 9"
threads="$(nproc)"
repeat=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --before) before="$2"; shift 2 ;;
    --before-sequential) before="none"; shift ;;
    --before-ref) before_ref="$2"; shift 2 ;;
    --after) after="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_interp.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || { echo "bench_interp.sh: --threads takes a positive integer, not '$threads'" >&2; exit 1; }
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "bench_interp.sh: --repeat takes a positive integer, not '$repeat'" >&2; exit 1; }
[[ -x "$after" ]] || { echo "bench_interp.sh: no liftc at $after (build first)" >&2; exit 1; }

if [[ -z "$before" ]]; then
  work="${TMPDIR:-/tmp}/liftc-bench-before"
  rm -rf "$work/src" && mkdir -p "$work/src"
  git -C "$root" archive "$before_ref" | tar -x -C "$work/src"
  cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
  cmake --build "$work/build" -j "$(nproc)" --target liftc >&2
  before="$work/build/liftc"
fi
[[ "$before" == none || -x "$before" ]] || { echo "bench_interp.sh: no liftc at $before" >&2; exit 1; }

# The layer's .sr file.
layer_file() {
  if [[ "$1" == reduced ]]; then echo "$root/examples/vgg16/conv_reduced.sr"; else echo "$root/examples/vgg16/conv$1.sr"; fi
}
for layer in $layers; do
  [[ -f "$(layer_file "$layer")" ]] || { echo "bench_interp.sh: no layer '$layer' ($(layer_file "$layer"))" >&2; exit 1; }
done

thread_counts="1"
[[ "$threads" != 1 ]] && thread_counts="1 $threads"
binaries=()
[[ "$before" != none ]] && binaries+=("before=$before")
binaries+=("after=$after")
echo "$(for b in "${binaries[@]}"; do echo -n "$b; "; done)threads: $thread_counts; $(nproc) cores; $repeat run(s) per cell" >&2

# Seconds `liftc eval` reports for FILE with BIN on THREADS threads.
eval_seconds() {
  LIFTC_THREADS="$3" "$1" eval "$2" | sed -n 's/^evaluated in \([0-9.]*\) s$/\1/p'
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

# One cell: "median" or "median (min-max)" MFLOP/s over $repeat runs; the median's MFLOP/s
# also goes to the file $2 (for the speed-ups).
cell() {
  local bin="$1" out="$2" file="$3" t="$4" f="$5" runs=()
  for ((r = 0; r < repeat; ++r)); do runs+=("$(eval_seconds "$bin" "$file" "$t")"); done
  printf '%s\n' "${runs[@]}" | sort -g | awk -v f="$f" '
    { s[NR] = $1 }
    END {
      n = NR
      med = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
      printf "%.1f", f / med / 1e6 > "'"$out"'"
      if (n > 1) printf "%.0f (%.0f-%.0f)", f / med / 1e6, f / s[n] / 1e6, f / s[1] / 1e6
      else printf "%.0f", f / med / 1e6
    }'
}

header="| layer | GFLOP |"
rule="| --- | --- |"
for b in "${binaries[@]}"; do
  for t in $thread_counts; do header+=" ${b%%=*}, $t thread(s), MFLOP/s |"; rule+=" --- |"; done
done
if [[ "$before" != none ]]; then
  for t in $thread_counts; do header+=" after / before, $t |"; rule+=" --- |"; done
elif [[ "$threads" != 1 ]]; then
  header+=" $threads / 1 thread |"; rule+=" --- |"
fi
echo "$header"
echo "$rule"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for layer in $layers; do
  file="$(layer_file "$layer")"
  f="$(flops "$file")"
  row="| $layer | $(awk -v f="$f" 'BEGIN { printf "%.3f", f / 1e9 }') |"
  for b in "${binaries[@]}"; do
    for t in $thread_counts; do row+=" $(cell "${b#*=}" "$tmp/${b%%=*}.$t" "$file" "$t" "$f") |"; done
  done
  if [[ "$before" != none ]]; then
    for t in $thread_counts; do row+=" $(awk '{ a = $1 } END { getline b < "'"$tmp/before.$t"'"; printf "%.1fx", a / b }' "$tmp/after.$t") |"; done
  elif [[ "$threads" != 1 ]]; then
    row+=" $(awk '{ a = $1 } END { getline b < "'"$tmp/after.1"'"; printf "%.1fx", a / b }' "$tmp/after.$threads") |"
  fi
  echo "$row"
done
