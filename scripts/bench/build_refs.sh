#!/usr/bin/env bash
# Builds scripts/bench/conv_refs.cpp (the hand-written and CLBlast references of
# scripts/bench_shape.sh, bench_vgg.sh and bench_explored.sh) into DIR, with Debian's
# CLBlast 1.5.3 unpacked beside it (apt-get download + dpkg -x: nothing is installed), so
# DIR can be carried to a machine that has an OpenCL driver but no CLBlast.
# Usage: scripts/bench/build_refs.sh DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download libclblast1 libclblast-dev > /dev/null 2>&1 &&
   for deb in *.deb; do dpkg -x "$deb" x; done)
cp -P "$work"/x/usr/lib/x86_64-linux-gnu/libclblast.so* "$out/"
g++ -O2 -std=c++17 -I"$work/x/usr/include" "$here/conv_refs.cpp" -o "$out/conv_refs" \
  -L"$out" -lclblast -lOpenCL -Wl,-rpath,'$ORIGIN'
echo "built $out/conv_refs"
