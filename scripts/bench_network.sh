#!/usr/bin/env bash
# Benchmark of a whole network: `liftc explore NET.sr --pareto` explores it layer by layer on a
# device and composes the network front; the same network then runs through PyTorch (cuDNN,
# fp32, TF32 off, batch 1; scripts/bench_torch_network.py) on the same GPU, in this one run.
# The host programs of the front's --points fastest points (by the sum of their kernels' times)
# are built and run on the device with every layer validated against the interpreter's values,
# so a point that is reported is one that works. Each gets a row: the fastest point by the
# kernels' sum is not always the fastest on the wall, where a point of fewer kernels (a fused
# layer) pays fewer launches and gaps.
#
# liftc's network time, three ways:
#   - kernels: the sum of its layers' measured times (each the median of the candidate's
#     timed runs, a run timed from its first kernel's start to its last kernel's end: the gaps
#     between a layer's kernels counted, not those between layers), the front's time_ms;
#   - host wall: the median wall time of a run of the front point's host program, run
#     --repeat times (every kernel enqueued back to back, the host clock around the run up to
#     clFinish: launches and the gaps between kernels counted, as a deployed program pays);
#   - device span: the median span of --repeat more runs on the device's clock (OpenCL event
#     profiling, from the first kernel's start to the last one's end): the kernels and the
#     gaps between them, as CUDA events recorded around PyTorch's pass measure it, without the
#     host's wait for clFinish (nor the launch of the first kernel, which PyTorch's includes).
# PyTorch's, two ways (scripts/bench_torch_network.py, CUDA event times around one pass):
#   - eager: whole forward passes, each layer launched from Python;
#   - CUDA graph: the same pass captured once and replayed (no launch gaps from Python).
# The ratios are PyTorch time / liftc time (> 1: liftc is faster): the CUDA graph against
# liftc's kernels, its host wall time and its device span. Memory is the front point's peak
# footprint (buffers freed when dead). The last line names the point of the least host wall
# time of those timed.
#
# Usage: scripts/bench_network.sh [--liftc PATH] [--device D] [--evals N] [--time S] [--search S]
#                                 [--train-db DB]... [--strategy S]... [--fusion on|off|only]
#                                 [--storage float|half] [--repeat N] [--points K] [--out DIR] NET.sr
#                                 [SIZE=VALUE...]
#   --evals N and --time S are each layer's budget (liftc explore's: a network's every layer and
#   fused layer gets them), whichever ends first; --time alone lifts --evals' default of 60;
#   --search is liftc explore's (default model, liftc explore's own default; the runs in
#   docs/results.md before 2026-11-30 used genetic, this script's default then);
#   --train-db DB (repeatable): with --search model, the tuning databases its model is trained
#   on before each layer's first measurement (other networks' or shapes' stores);
#   --fusion is liftc explore's (default on: fused layers as alternatives of the front);
#   --storage half: liftc's buffers (inputs, weights, the layers' outputs) stored as halves,
#   arithmetic in float (liftc explore --storage); PyTorch's network stays float32;
#   --repeat N: each host program's timed runs (default 100);
#   --points K: the front's K fastest points by the kernels' sum are timed (default 3; fewer
#   when the front has fewer).
#   SIZE=VALUE replaces the value of a `size` of the program (e.g. H=256 W=256 D=56 S=12),
#   and is passed to the PyTorch network of the same name (fsrcnn, resnet_block, vgg_block, mobilenet_v1_pair,
#   mobilenet_v2_block, unet_step, se_block, grouped_residual, resnext_block, conv_bn_relu_chw).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
liftc="$root/build/liftc"
device=""
evals=""
time_s=""
search=model
train_dbs=()
out=""
strategies=()
fusion=on
storage=float
repeat=100
points=3
program=""
sizes=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc) liftc="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --evals) evals="$2"; shift 2 ;;
    --time) time_s="$2"; shift 2 ;;
    --search) search="$2"; shift 2 ;;
    --train-db) train_dbs+=(--train-db "$2"); shift 2 ;;
    --strategy) strategies+=(-s "$2"); shift 2 ;;
    --fusion) fusion="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --points) points="$2"; shift 2 ;;
    --storage) storage="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *=*) sizes+=("$1"); shift ;;
    -*) echo "bench_network.sh: unknown option '$1'" >&2; exit 1 ;;
    *) [[ -z "$program" ]] || { echo "bench_network.sh: one program only ('$program', '$1')" >&2; exit 1; }
       program="$1"; shift ;;
  esac
done
[[ -n "$program" && -f "$program" ]] || { echo "bench_network.sh: give the network's .sr file" >&2; exit 1; }
[[ -x "$liftc" ]] || { echo "bench_network.sh: no liftc at $liftc" >&2; exit 1; }
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "bench_network.sh: --repeat takes a whole number of at least 1, not '$repeat'" >&2; exit 1; }
[[ "$points" =~ ^[1-9][0-9]*$ ]] || { echo "bench_network.sh: --points takes a whole number of at least 1, not '$points'" >&2; exit 1; }
budget=(--evals "${evals:-60}")
budget_text="${evals:-60} evals"
if [[ -n "$time_s" ]]; then
  budget=(--evals "${evals:-10000000}" --time "$time_s")
  budget_text="${time_s} s${evals:+, $evals evals}"
fi
name="$(basename "$program" .sr)"
work="${out:-$(mktemp -d)}"
mkdir -p "$work"

# The program at the given sizes: each NAME = VALUE of its `size` line replaced.
sized="$work/$name.sr"
python3 - "$program" "$sized" "${sizes[@]}" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
for assignment in sys.argv[3:]:
    key, value = assignment.split("=")
    pattern = re.compile(r"^(size\b.*?\b" + re.escape(key) + r"\s*=\s*)\d+", re.M)
    text, n = pattern.subn(lambda m: m.group(1) + value, text)
    if n != 1:
        sys.exit(f"bench_network.sh: the program has no size {key}")
open(sys.argv[2], "w").write(text)
EOF

device_args=()
[[ -n "$device" ]] && device_args=(--device "$device")
start=$(date +%s)
"$liftc" explore "$sized" --pareto --search "$search" "${train_dbs[@]}" "${budget[@]}" --fusion "$fusion" \
  --storage "$storage" "${device_args[@]}" "${strategies[@]}" -o "$work/front" --force -q > "$work/explore.txt"
explore_s=$(( $(date +%s) - start ))
cat "$work/explore.txt"

[[ -f "$work/front/pareto.json" ]] || { echo "bench_network.sh: the exploration wrote no front (no layer had a valid point?): see $work/explore.txt" >&2; exit 1; }
# The front's fastest points by the kernels' sum (rank 1 of pareto.csv is not necessarily the
# fastest), one line each: rank, time_ms, memory_bytes, fused layers.
mapfile -t chosen < <(python3 - "$work/front/pareto.json" "$points" <<'EOF'
import json, sys
points = json.load(open(sys.argv[1]))
points = points["points"] if isinstance(points, dict) else points
timed = sorted((p for p in points if p.get("time_ms") is not None), key=lambda p: p["time_ms"])
for p in timed[: int(sys.argv[2])]:
    fused = ",".join(f"{f['producer']}>{f['consumer']}" for f in p.get("fused", [])) or "none"
    print(p["rank"], p["time_ms"], p["memory_bytes"], fused)
EOF
)
[[ ${#chosen[@]} -gt 0 ]] || { echo "bench_network.sh: the front has no timed point: see $work/front/pareto.json" >&2; exit 1; }

# Each one's host program, built and run on the device, every layer checked; its wall time
# ("wall: X ms per run (median of N runs ...") and span ("span: X ms per run ..."). A point
# whose host program does not validate is not timed; the others are, and the script then fails.
timings=()
invalid=()  # ranks of points whose host program does not validate: not timed, named at the end
for line in "${chosen[@]}"; do
  read -r rank liftc_ms memory fused <<< "$line"
  host="$work/front/front/$rank"
  cmake -S "$host" -B "$host/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$host/build" -j > /dev/null
  exe="$(find "$host/build" -maxdepth 1 -type f -executable | head -1)"
  mkdir -p "$work/outputs/$rank"
  echo "== front point $rank ($liftc_ms ms by its kernels, fused: $fused)"
  # A point with layers through Winograd's arrays is compared with the rounding explore allowed.
  allowance=()
  [[ -d "$host/allowance" ]] && allowance=(--allowance "$host/allowance")
  "$exe" "$work/front/inputs" "$work/outputs/$rank" --expected "$work/front/expected" "${allowance[@]}" \
    --repeat "$repeat" |
    tee "$work/validate-$rank.txt"
  if grep -q "DIFFERS\|never written" "$work/validate-$rank.txt"; then
    # Not reported as a time; the other points are still timed, and the script fails at the end.
    echo "bench_network.sh: front point $rank's host program does not validate (see $work/validate-$rank.txt)" >&2
    invalid+=("$rank")
    continue
  fi
  wall_ms="$(sed -n 's/^wall: \([0-9.]*\) ms per run .*/\1/p' "$work/validate-$rank.txt")"
  [[ -n "$wall_ms" ]] || { echo "bench_network.sh: the host program printed no wall time: see $work/validate-$rank.txt" >&2; exit 1; }
  span_ms="$(sed -n 's/^span: \([0-9.]*\) ms per run .*/\1/p' "$work/validate-$rank.txt")"
  [[ -n "$span_ms" ]] || { echo "bench_network.sh: the host program printed no span: see $work/validate-$rank.txt" >&2; exit 1; }
  timings+=("$rank $liftc_ms $wall_ms $span_ms $memory $fused")
done

[[ ${#timings[@]} -gt 0 ]] || { echo "bench_network.sh: no timed point's host program validates (front points ${invalid[*]})" >&2; exit 1; }

torch_eager="n/a"
torch_graph="n/a"
# PyTorch's version of the network, where bench_torch_network.py has one by this name.
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null &&
   grep -q "^    \"$name\": \|\"$name\": $name" "$root/scripts/bench_torch_network.py"; then
  # Every size of the program (given or its default), for the PyTorch network of that name.
  read -r -a all_sizes <<< "$(python3 -c 'import re, sys
print(" ".join(f"{k}={v}" for line in open(sys.argv[1]) if line.startswith("size")
               for k, v in re.findall(r"(\w+)\s*=\s*(\d+)", line)))' "$sized")"
  read -r torch_eager torch_graph <<< "$(python3 "$root/scripts/bench_torch_network.py" "$name" "${all_sizes[@]}")"
fi
python3 - "$name" "${sizes[*]}" "$repeat" "$torch_eager" "$torch_graph" "$explore_s" "$budget_text" "${timings[@]}" <<'EOF'
import sys
name, sizes, repeat, eager, graph, explore_s, budget = sys.argv[1:8]
rows = [line.split() for line in sys.argv[8:]]
def ratio(torch_ms, ms):
    return f"{float(torch_ms) / ms:.2f}" if torch_ms != "n/a" else "n/a"
print()
print("| network | sizes | front point | liftc kernels (ms, sum of layers' times) | liftc host wall (ms, median of "
      f"{repeat} runs) | liftc device span (ms, median of {repeat} more runs) | fused | peak memory (MiB) | "
      "PyTorch eager (ms) | PyTorch CUDA graph (ms) | graph / liftc kernels | graph / liftc wall | "
      "graph / liftc span | explore (s; budget per layer) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for rank, liftc_ms, wall_ms, span_ms, memory, fused in rows:
    liftc_ms, wall_ms, span_ms = float(liftc_ms), float(wall_ms), float(span_ms)
    print(f"| {name} | {sizes} | {rank} | {liftc_ms:.4f} | {wall_ms:.4f} | {span_ms:.4f} | {fused} | "
          f"{int(memory) / 2**20:.2f} | {eager} | {graph} | {ratio(graph, liftc_ms)} | {ratio(graph, wall_ms)} | "
          f"{ratio(graph, span_ms)} | {explore_s} ({budget}) |")
walls = [float(r[2]) for r in rows]
best = rows[walls.index(min(walls))]
print(f"\nleast host wall time of the {len(rows)} point(s) timed: front point {best[0]} ({float(best[2]):.4f} ms, "
      f"fused: {best[5]}), {ratio(graph, float(best[2]))} of PyTorch's CUDA graph")
EOF
if [[ ${#invalid[@]} -gt 0 ]]; then
  echo "bench_network.sh: front point(s) ${invalid[*]} did not validate in their host programs: not timed above" >&2
  exit 1
fi
