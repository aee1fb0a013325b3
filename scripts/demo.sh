#!/usr/bin/env bash
# The main job on the default example: builds liftc and liftc-runner (only what the demo
# runs; scripts/test.sh builds the tests), then type checks and evaluates a
# small direct convolution (the paper's Listing 3) with the reference interpreter, explores
# its kernels on the OpenCL device and plots their Pareto front.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh" liftc liftc-runner
example="${1:-$root/examples/conv/conv_small.sr}"
"$root/build/liftc" check "$example"
"$root/build/liftc" eval "$example" --seed 1
# A small exploration of the same convolution: 24 random points of four strategies that
# trade memory for time (conv-naive reads the image in place; conv-chw first copies it
# padded and channel-major; conv-chw-omega adds partial sums; conv-gemm materializes the
# im2col matrix), each run on the OpenCL device and validated against the interpreter.
# The Pareto front of time against memory, its kernels and tables go to build/demo-explore,
# and its plot to build/demo-explore/pareto.png.
"$root/build/liftc" explore "$example" -s conv-naive -s conv-chw -s conv-chw-omega -s conv-gemm \
  --evals 24 --runs 3 --pareto -o "$root/build/demo-explore" --force
# Debian's python3 has Debian's matplotlib (setup.sh installs it); another python3 first
# on the PATH (pyenv's, say) may not.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$root/scripts/plot_pareto.py" "$root/build/demo-explore"
echo "demo: the front's plot is $root/build/demo-explore/pareto.png"
