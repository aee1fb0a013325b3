#!/usr/bin/env bash
# Benchmark on top of `liftc explore`: for each VGG-16 layer, the fastest point that the
# explorations of scripts/explore_gpu.sh found (stores DIR/layerL-random.db and
# DIR/layerL-genetic.db) is rewritten, generated, validated against the interpreter's values
# of the layer's source program (liftc run --reference) and timed again, in this one run, beside
#   conv-naive   liftc's one-work-item-per-output kernel (the OpenCL runtime's work-group size);
#   hand-written a plain OpenCL direct convolution and CLBlast's Sconvgemm (--refs DIR, built
#                by scripts/bench/build_refs.sh), on the same device;
#   cuDNN        fp32, TF32 off, through PyTorch when python3 has it with CUDA.
# It reports ms, TFLOP/s, every ratio (reference time / liftc time: > 1 means liftc is
# faster), and liftc's memory footprint (the memory plan: inputs, outputs, every temporary
# buffer) against im2col's (inputs + output + the H*W x K*K*C matrix).
#
# Usage: scripts/bench_explored.sh --dir DIR [--liftc PATH] [--device NAME] [--layers "1 .. 9"]
#                                  [--refs DIR] [--runs N] [-o FILE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
liftc="$root/build/liftc"
device=""
dir=""
layers="1 2 3 4 5 6 7 8 9"
refs=""
runs=20
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc) liftc="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --refs) refs="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    *) echo "bench_explored.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ -n "$dir" && -d "$dir" ]] || { echo "bench_explored.sh: give the explorations' folder with --dir DIR" >&2; exit 1; }
[[ -x "$liftc" ]] || { echo "bench_explored.sh: no liftc at $liftc" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
dev=()
[[ -n "$device" ]] && dev=(--device "$device")
torch=""
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then torch=yes; fi

# run_ms SOURCE PROGRAM [FLAGS...]: "median-ms footprint-bytes" of a run of PROGRAM (rewritten
# from SOURCE) validated against the interpreter's values of SOURCE (--reference: a rewritten
# register-tiled program takes the interpreter minutes on a large layer, the source seconds).
run_ms() {
  local text source="$1"
  shift
  text=$("$liftc" run "$@" "${dev[@]}" --reference "$source" --warmup 2 --runs "$runs") || { echo "bench_explored.sh: liftc run $* failed:" >&2; echo "$text" >&2; return 1; }
  grep -q "matches the interpreter" <<< "$text" || { echo "bench_explored.sh: $1 does not match the interpreter" >&2; return 1; }
  echo "$(awk '/^time: median/ {print $3}' <<< "$text") $(sed -n 's/^memory: global .* (\([0-9]*\) bytes).*/\1/p' <<< "$text")"
}

header="| layer | liftc ms (strategy, point) | TFLOP/s | conv-naive ms | naive / liftc | liftc MiB | im2col MiB | liftc / im2col memory |"
rule="| --- | --- | --- | --- | --- | --- | --- | --- |"
if [[ -n "$refs" ]]; then header="$header hand-written ms | hand / liftc | CLBlast ms | CLBlast / liftc |"; rule="$rule --- | --- | --- | --- |"; fi
if [[ -n "$torch" ]]; then header="$header cuDNN ms | cuDNN / liftc |"; rule="$rule --- | --- |"; fi
"$liftc" devices | head -n 1 >&2
table="$header"$'\n'"$rule"
# With -o the file grows a row per layer, so a run cut off by a time limit keeps the layers it
# finished (the GPU machine's commands are limited to 10 minutes).
if [[ -n "$out" ]]; then echo "$table" > "$out"; fi
for l in $layers; do
  src="$root/examples/vgg16/conv$l.sr"
  read -r C H W M < <(sed -n 's/^size C = \([0-9]*\), H = \([0-9]*\), W = \([0-9]*\), M = \([0-9]*\).*/\1 \2 \3 \4/p' "$src")
  IFS=$'\t' read -r strategy alternative flags explored_ms _ < <(python3 "$root/scripts/explore_summary.py" "$dir" "$l" --best-flags)
  "$liftc" rewrite "$src" --strategy "$strategy" --alternative "$alternative" > "$work/best$l.sr"
  # shellcheck disable=SC2086  # the flags are words: --params a=1,b=2 --local 8,4,1
  read -r best best_bytes < <(run_ms "$src" "$work/best$l.sr" $flags)
  "$liftc" rewrite "$src" --strategy conv-naive > "$work/naive$l.sr"
  read -r naive _ < <(run_ms "$src" "$work/naive$l.sr")
  row=$(awk -v l="$l" -v C="$C" -v H="$H" -v W="$W" -v M="$M" -v t="$best" -v n="$naive" -v b="$best_bytes" \
            -v how="$strategy #$alternative $flags; explored $explored_ms ms" 'BEGIN {
    flop = 2 * H * W * M * C * 9
    im2col = 4 * (M * 9 * C + M + H * W * C + H * W * M + H * W * 9 * C)
    printf "| %d | %.4f (%s) | %.2f | %.4f | %.2f | %.1f | %.1f | %.2f |", l, t, how, flop / (t * 1e-3) / 1e12, n, n / t,
           b / 1048576, im2col / 1048576, b / im2col }')
  if [[ -n "$refs" ]]; then
    hand="" blas=""
    read -r _ _ _ _ _ _ _ hand _ blas _ < <("$refs/conv_refs" "$device" "$runs" "$C" "$H" "$W" "$M" 3 1 1 2> /dev/null | tail -n 1) || true
    row="$row $(awk -v h="$hand" -v b="$blas" -v t="$best" 'BEGIN { printf "%.4f | %.2f | %.4f | %.2f |", h, h / t, b, b / t }')"
  fi
  if [[ -n "$torch" ]]; then
    ref=$(python3 "$root/scripts/bench_torch_conv.py" "$C" "$H" "$W" "$M" "$runs")
    row="$row $(awk -v r="$ref" -v t="$best" 'BEGIN { printf "%.4f | %.2f |", r, r / t }')"
  fi
  echo "$row" >&2
  table="$table"$'\n'"$row"
  if [[ -n "$out" ]]; then echo "$row" >> "$out"; fi
done
echo "$table"
