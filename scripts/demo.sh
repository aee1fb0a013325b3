#!/usr/bin/env bash
# The main job on the default example: builds liftc, then type checks and evaluates a
# small direct convolution (the paper's Listing 3) with the reference interpreter.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"
example="${1:-$root/examples/conv/conv_small.sr}"
"$root/build/liftc" check "$example"
"$root/build/liftc" eval "$example" --seed 1
