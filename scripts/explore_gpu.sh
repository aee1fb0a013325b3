#!/usr/bin/env bash
# On a GPU machine without Z3 or a build (e.g. the H100 one, see DEVICE.md): liftc and
# liftc-runner carried in BIN (default .gpu, with libz3.so.4, libfmt.so.9, libsqlite3.so.0, and
# libclblast.so.1 for a build with CLBlast: the machine cannot install packages),
# the interpreter benchmark (before = the same binary on one thread) and explorations of
# VGG-16 layers on the NVIDIA OpenCL device, resumable from one store per layer.
#
# Usage: scripts/explore_gpu.sh [--bin DIR] [--out DIR] [--layers "reduced 1 5"] [--time S]
#                               [--evals N] [--search random|genetic] [--jobs N] [--device D]
#                               [--strategies "conv-chw-tile conv-chw-tile-m0 ..."] [--bench-layers "reduced 1 9 5"]
# Prep (on the build machine, in the repository root):
#   mkdir -p .gpu && strip -o .gpu/liftc build/liftc && strip -o .gpu/liftc-runner build/liftc-runner
#   cp /usr/lib/x86_64-linux-gnu/{libz3.so.4,libfmt.so.9,libsqlite3.so.0} .gpu/
#   cp -L /usr/lib/x86_64-linux-gnu/libclblast.so.1 .gpu/    # when built with CLBlast (clblast- candidates)
# Each exploration stops after --time seconds (default 540, under a 10-minute command limit);
# running the same command again continues it: the search, with the same seed, proposes the
# same candidates, those in the layer's store (DIR/layerN-SEARCH.db, kept while the machine
# is) are served from it, and new ones are evaluated. --jobs N (default: every core) runners
# at once: they build and validate in parallel and take turns on the GPU for the timed runs;
# the candidates do not depend on N. Each layer ends with its wall time and evaluations/s.
# Each exploration writes its front (kernels, host programs, pareto.csv/json, evaluated.csv)
# to DIR/front-layerN-SEARCH (liftc explore -o, replaced by a rerun). After every layer the
# stores, the fronts' pareto.csv and pareto.json and the benchmark table are copied to $OUT
# when it is set (what comes back from the machine; bring_back below). To resume on a fresh
# machine, unpack stores.tgz into the --out folder of the next run (carried along in an
# ignored folder, e.g. .gpu-explore/).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/.gpu"
out="/tmp/liftc-gpu"
budget=540
layers="reduced"
evals=1000
search=random
bench_layers=""
jobs="$(nproc)"
device=nvidia
strategies=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --evals) evals="$2"; shift 2 ;;
    --search) search="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --bench-layers) bench_layers="$2"; shift 2 ;;
    --time) budget="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --strategies) strategies="$2"; shift 2 ;;
    *) echo "explore_gpu.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LIFTC_RULES="$root/rules"  # its targets/ go with it
export OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-libnvidia-opencl.so.1}"
mkdir -p "$out"
# bring_back: when $OUT is set (the device tool's folder that comes back, at most 8 files of
# 16 MiB), every store so far, without its cached references (the interpreter's outputs, up
# to 13 MB a layer, recomputed in seconds on resume), in one $OUT/stores.tgz, and the
# benchmark table; after every layer, so a command cut off at its time limit loses little.
bring_back() {
  [[ -n "${OUT:-}" ]] || return 0
  local slim="$out/slim"
  rm -rf "$slim" && mkdir -p "$slim"
  for db in "$out"/*.db; do
    [[ -e "$db" ]] || continue
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("VACUUM INTO ?", (sys.argv[2],)); c.close()
c = sqlite3.connect(sys.argv[2]); c.execute("DELETE FROM refs"); c.commit(); c.execute("VACUUM"); c.close()' "$db" "$slim/$(basename "$db")"
  done
  for front in "$out"/front-*; do
    [[ -d "$front" ]] || continue
    mkdir -p "$slim/$(basename "$front")"
    cp "$front"/pareto.csv "$front"/pareto.json "$slim/$(basename "$front")/" 2> /dev/null
  done
  tar -czf "$OUT/stores.tgz" -C "$slim" . && cp "$out"/*.md "$OUT"/ 2> /dev/null
  return 0
}
"$bin/liftc" devices | head -3
if [[ -n "$bench_layers" ]]; then
  OCL_ICD_FILENAMES= bash "$root/scripts/bench_interp.sh" --before-sequential --after "$bin/liftc" --layers "$bench_layers" \
    | tee "$out/bench_interp.md"
fi
# --strategies: explore only these (liftc explore -s each); default every strategy that
# applies. On the H100 the paper's generic strategies (conv-tiled, stencil-parametric,
# conv-parametric, conv-lower) draw points whose first run takes 0.2 to 8 s on layers 6 to 9:
# most of the device time of a random run there.
strategy_flags=()
for s in $strategies; do strategy_flags+=(-s "$s"); done
for layer in $layers; do
  if [[ "$layer" == reduced ]]; then file="$root/examples/vgg16/conv_reduced.sr"; else file="$root/examples/vgg16/conv$layer.sr"; fi
  db="$out/layer$layer-$search.db"
  echo "== layer $layer ($search, $evals evaluations, $jobs jobs, store $db)"
  start=$(date +%s.%N)
  "$bin/liftc" explore "$file" "${strategy_flags[@]}" --device "$device" --pareto --search "$search" --evals "$evals" --time "$budget" \
      --timeout 30 --jobs "$jobs" --db "$db" -o "$out/front-layer$layer-$search" --force -q 2>&1 | tail -40
  awk -v a="$start" -v b="$(date +%s.%N)" -v l="$layer" \
    'BEGIN { printf "== layer %s: wall time %.1f s (all of liftc explore: space, reference, evaluations, front)\n", l, b - a }'
  bring_back
done
bring_back
