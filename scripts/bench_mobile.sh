#!/usr/bin/env bash
# Issue 38's GPU bar in one command: the layers phones run, liftc against PyTorch (cuDNN, fp32,
# TF32 off, batch 1) replayed from a CUDA graph (no launch gaps), on the same GPU in one run:
#   1. MobileNet's depthwise 3x3 layers alone, 112x112x32 and 14x14x576 (scripts/bench_conv_shape.sh
#      --depthwise --cuda-graph: each explored with every strategy that applies, its fastest
#      point validated at a small shape and at its own, then timed again by liftc run);
#   2. the MobileNetV2 inverted residual block (examples/networks/mobilenet_v2_block.sr) at
#      56x56, 24->144->24 and at 14x14, 96->576->96 (scripts/bench_network.sh: explored layer by
#      layer with fused layers as alternatives, the front's fastest points' host programs
#      validated on every layer and timed on the wall and by the device's clock).
# Each script's own table is printed as it finishes, then a summary: per item PyTorch's CUDA
# graph time over liftc's (> 1: liftc faster), by the kernels' time and, for a block, by its
# host program's wall and device span (the point of least wall time of those timed), whether
# each reaches 1.0, and per block the least peak memory of the front's points with a fused
# layer against that of its points without one (or that no unfused point is on the front: a
# fused point dominates each).
#
# Usage: scripts/bench_mobile.sh [--liftc PATH] [--device D] [--time S] [--layer-time S]
#                                [--points K] [--out DIR]
#   --time S        each depthwise layer's exploration (default 30 s)
#   --layer-time S  each block layer's and fused layer's exploration (default 20 s)
#   --points K      the block fronts' fastest points timed on the wall (default 3)
#   --out DIR       keep each script's files there (default: a temporary folder)
# Needs python3 with PyTorch and CUDA for the PyTorch columns (n/a without); see
# scripts/bench_conv_shape.sh and scripts/bench_network.sh for what each measures.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
liftc="$root/build/liftc"
[[ -x "$liftc" ]] || liftc="$root/.gpu/liftc"
device=""
time_s=30
layer_time=20
points=3
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc) liftc="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --time) time_s="$2"; shift 2 ;;
    --layer-time) layer_time="$2"; shift 2 ;;
    --points) points="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "bench_mobile.sh: unknown argument '$1' (usage: scripts/bench_mobile.sh [--liftc PATH] [--device D]" \
            "[--time S] [--layer-time S] [--points K] [--out DIR])" >&2; exit 1 ;;
  esac
done
for value in "$time_s" "$layer_time" "$points"; do
  [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "bench_mobile.sh: --time, --layer-time and --points take a whole number of at least 1, not '$value'" >&2; exit 1; }
done
[[ -x "$liftc" ]] || { echo "bench_mobile.sh: no liftc at $liftc" >&2; exit 1; }
work="${out:-$(mktemp -d)}"
mkdir -p "$work"
device_args=()
[[ -n "$device" ]] && device_args=(--device "$device")

echo "== depthwise 3x3 layers, ${time_s} s each" >&2
"$root/scripts/bench_conv_shape.sh" 32 112 112 32 3 1 1  576 14 14 576 3 1 1 --depthwise --cuda-graph \
  --time "$time_s" --evals 100000 --liftc "$liftc" "${device_args[@]}" -o "$work/depthwise" \
  > "$work/depthwise.md"
cat "$work/depthwise.md"

blocks=("H=56 W=56 C=24 E=144" "H=14 W=14 C=96 E=576")
for i in "${!blocks[@]}"; do
  echo "== MobileNetV2 block ${blocks[$i]}, ${layer_time} s a layer" >&2
  read -r -a sizes <<< "${blocks[$i]}"
  "$root/scripts/bench_network.sh" --liftc "$liftc" "${device_args[@]}" --points "$points" --time "$layer_time" \
    --out "$work/block$i" "$root/examples/networks/mobilenet_v2_block.sr" "${sizes[@]}" > "$work/block$i.md"
  sed -n '/^| network /,$p' "$work/block$i.md"
done

python3 - "$work" "${blocks[@]}" <<'EOF'
import json, sys
work, blocks = sys.argv[1], sys.argv[2:]

def table(path, first):
    """The rows of the Markdown table whose header starts with `first`, as lists of cells."""
    rows, inside = [], False
    for line in open(path):
        if line.startswith("| " + first):
            inside = True
            continue
        if inside and line.startswith("| ---"):
            continue
        if inside and line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif inside:
            break
    return rows

def verdict(ratio):
    return "n/a" if ratio == "n/a" else ("yes" if float(ratio) >= 1.0 else "**no**")

print("\n## Issue 38's bar: PyTorch's CUDA graph / liftc (> 1: liftc faster)\n")
print("| layer or block | liftc ms | PyTorch CUDA graph ms | graph / liftc | >= 1.0 |")
print("| --- | --- | --- | --- | --- |")
for row in table(f"{work}/depthwise.md", "shape"):
    liftc_ms, graph_ms, ratio = row[2].split()[0], row[4], row[7]
    print(f"| depthwise 3x3, C H W = {' '.join(row[0].split()[:3])} | {liftc_ms} (kernels) | {graph_ms} | {ratio} | {verdict(ratio)} |")
memory_lines = []
for i, sizes in enumerate(blocks):
    rows = table(f"{work}/block{i}.md", "network")
    if not rows:
        print(f"| MobileNetV2 {sizes} | no timed point | | | **no** |")
        continue
    best = min(rows, key=lambda r: float(r[4]))  # the least host wall time
    graph = best[9]
    for what, col, ratio_col in (("kernels", 3, 10), ("host wall", 4, 11), ("device span", 5, 12)):
        print(f"| MobileNetV2 {sizes}, point {best[2]} (fused: {best[6]}) | {best[col]} ({what}) | {graph} | "
              f"{best[ratio_col]} | {verdict(best[ratio_col])} |")
    front = json.load(open(f"{work}/block{i}/front/pareto.json"))
    front = front["points"] if isinstance(front, dict) else front
    fused = [p["memory_bytes"] for p in front if p.get("fused")]
    unfused = [p["memory_bytes"] for p in front if not p.get("fused")]
    def mib(points):
        return f"{min(points) / 2**20:.2f} MiB" if points else "none on the front (dominated)"
    # A front without unfused points means a fused point dominates each of them: it has no more
    # memory and no more time than the least-memory unfused point.
    if fused and not unfused:
        below = "yes (every unfused point is dominated by a fused one)"
    else:
        below = "yes" if fused and min(fused) < min(unfused) else "**no**"
    memory_lines.append(f"| MobileNetV2 {sizes} | {mib(fused)} | {mib(unfused)} | {below} |")
print("\n| block | least peak memory, a point with a fused layer | least peak memory, a point without | fused below |")
print("| --- | --- | --- | --- |")
print("\n".join(memory_lines))
EOF
