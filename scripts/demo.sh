#!/usr/bin/env bash
# The main job on the default example: builds liftc, then type checks and evaluates a
# small direct convolution (the paper's Listing 3) with the reference interpreter.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"
example="${1:-$root/examples/conv/conv_small.sr}"
"$root/build/liftc" check "$example"
"$root/build/liftc" eval "$example" --seed 1
# A small exploration: the stencil's stencil-parametric space, 12 random points on the
# OpenCL device, each validated against the interpreter; the Pareto front of time against
# memory, its kernels and tables in build/demo-explore (plot: scripts/plot_pareto.py).
"$root/build/liftc" explore "$root/examples/stencil2d.sr" -s stencil-parametric --evals 12 --runs 3 --pareto \
  -o "$root/build/demo-explore" --force
