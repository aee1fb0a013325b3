#!/usr/bin/env bash
# A runner for `liftc explore --runner scripts/qemu_runner.sh`: an emulated phone. It runs
# one candidate bundle with the aarch64 liftc-runner under qemu-aarch64 (user mode), on
# Debian's arm64 PoCL as the OpenCL device, and prints that runner's JSON answer; its
# "machine" is aarch64. Towards liftc it behaves as scripts/adb_runner.sh does: the bundle
# is copied into a separate device folder (the phone's /data/local/tmp/liftc), the inputs
# and expected outputs shared by every candidate are copied there once, into a folder of
# the exploration's own (shared-KEY, KEY a hash of their contents: scripts/lib/shared_key.sh),
# and linked, the device lock is a file of the device folder, the runner's exit status is
# passed on, and the bundle's copy is removed afterwards.
#
# It installs what it needs itself, once, under a lock (so parallel --jobs wait for one
# another): qemu-user-static, the aarch64 runner (scripts/build_aarch64_runner.sh, rebuilt
# when its sources change), and an arm64 root with PoCL and the OpenCL ICD loader
# (build-aarch64/sysroot: Debian's arm64 packages unpacked, not installed, since arm64 PoCL
# needs an arm64 clang-15 that cannot sit beside the machine's own). Emulation is slow: PoCL
# compiles each candidate's kernels with an emulated LLVM (seconds), so give explore a
# generous --timeout (scripts/explore_on_qemu.sh uses 600).
#
# Environment: LIFTC_QEMU_DEVICE_DIR (the device folder, default $TMPDIR/liftc-qemu-device),
# LIFTC_ARM64_SYSROOT (default build-aarch64/sysroot).
set -euo pipefail
bundle="${1:?usage: qemu_runner.sh BUNDLE_DIR}"
bundle="${bundle%/}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/debian_packages.sh
source "$root/scripts/lib/debian_packages.sh"
# shellcheck source=scripts/lib/shared_key.sh
source "$root/scripts/lib/shared_key.sh"
device_dir="${LIFTC_QEMU_DEVICE_DIR:-${TMPDIR:-/tmp}/liftc-qemu-device}"
sysroot="${LIFTC_ARM64_SYSROOT:-$root/build-aarch64/sysroot}"
mkdir -p "$device_dir"

# The arm64 packages PoCL and the ICD loader need, with their dependencies (every
# alternative of one, a virtual one's first provider). clang-15 is left out: PoCL compiles
# with its in-process clang (libclang-cpp15) and links with the linker given below.
arm64_closure() {
  local -A seen=()
  local pending=("$@") p
  while [[ ${#pending[@]} -gt 0 ]]; do
    p="${pending[-1]}"
    unset 'pending[-1]'
    [[ -n "${seen[$p]:-}" || "$p" == clang-15:arm64 ]] && continue
    seen[$p]=1
    # "Depends: X" is X; "Depends: <V>" is a virtual V, its providers on the next lines.
    while read -r p; do pending+=("$p"); done < <(apt-cache depends --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "$p" |
      awk '/^ *\|?(Pre)?Depends: [^<]/ { print $2; virtual = 0; next }
           /^ *\|?(Pre)?Depends: </ { virtual = 1; next }
           virtual && /^    [^ ]/ { print $1; virtual = 0 }')
  done
  printf '%s\n' "${!seen[@]}"
}

# The arm64 root: Debian's packages unpacked (apt-get download, dpkg-deb -x).
make_sysroot() {
  echo "qemu_runner: unpacking arm64 PoCL into $sysroot" >&2
  local debs="$sysroot.debs" f
  rm -rf "$sysroot" "$debs"
  mkdir -p "$debs"
  apt-cache policy pocl-opencl-icd:arm64 | grep -q '^ *Candidate: [0-9]' ||
    DEBIAN_FRONTEND=noninteractive $(debian_sudo) apt-get update -qq >&2
  local packages
  mapfile -t packages < <(arm64_closure pocl-opencl-icd:arm64 ocl-icd-libopencl1:arm64 libclang-common-15-dev:arm64)
  # (as root, apt warns that it cannot drop to its _apt user for this folder: it is ours)
  (cd "$debs" && apt-get download -qq "${packages[@]}" 2> >(grep -v 'unsandboxed as root' >&2) > /dev/null)
  for f in "$debs"/*.deb; do dpkg-deb -x "$f" "$sysroot"; done
  rm -rf "$debs"
  # The ICD names PoCL by its path in the root, not /usr/lib/...: PoCL finds its kernel
  # library beside itself, and qemu maps only some system calls' paths into the root.
  mkdir -p "$sysroot/liftc/vendors" "$sysroot/liftc/bin"
  echo "$sysroot/usr/lib/aarch64-linux-gnu/libpocl.so.2" > "$sysroot/liftc/vendors/pocl.icd"
  # PoCL's clang links each kernel with `ld`: the machine's aarch64 linker, run natively.
  ln -sf "$(command -v aarch64-linux-gnu-ld)" "$sysroot/liftc/bin/ld"
  touch "$sysroot/liftc/complete"
}

# Once per change, under a lock: packages, the runner (pushed to the device folder as a
# whole file, so a runner running from it is not disturbed), the root, the shared files.
setup() {
  ensure_debian_packages qemu_runner qemu-user-static
  local runner
  runner="$(bash "$root/scripts/build_aarch64_runner.sh")"
  if ! cmp -s "$runner" "$device_dir/liftc-runner"; then
    cp "$runner" "$device_dir/liftc-runner.new"
    mv -f "$device_dir/liftc-runner.new" "$device_dir/liftc-runner"
  fi
  [[ -f "$sysroot/liftc/complete" ]] || make_sysroot
  # Copied whole once, then never touched: a folder of that name holds those very files.
  if [[ -n "$device_shared" && ! -d "$device_shared" ]]; then
    rm -rf "$device_shared.new"
    cp -r "$shared" "$device_shared.new"
    mv "$device_shared.new" "$device_shared"
  fi
}

shared="$(dirname "$bundle")/shared"
device_shared=""
if [[ -d "$shared" ]]; then device_shared="$device_dir/shared-$(shared_key "$shared")"; fi
exec 9> "$device_dir/setup.lock"
flock 9
setup
flock -u 9
exec 9>&-

remote="$device_dir/$(basename "$bundle")-$$"
trap 'rm -rf "$remote"' EXIT
rm -rf "$remote"
mkdir -p "$remote/inputs" "$remote/expected"
sed "s|^lock .*|lock $device_dir/device.lock|" "$bundle/bundle.txt" > "$remote/bundle.txt"
if [[ -e "$bundle/kernels.cl" ]]; then cp "$bundle/kernels.cl" "$remote/kernels.cl"; fi  # (a probe may have none)
for sub in inputs expected; do
  for f in "$bundle/$sub"/*.bin; do
    [[ -e "$f" ]] || continue
    name="$(basename "$f")"
    if [[ -e "$shared/$sub/$name" && "$f" -ef "$shared/$sub/$name" ]]; then
      ln -s "$device_shared/$sub/$name" "$remote/$sub/$name"
    else
      cp "$f" "$remote/$sub/$name"
    fi
  done
done

# The runner's stdout is the answer; its exit status is passed on.
libgcc_dir="$(dirname "$(aarch64-linux-gnu-gcc -print-libgcc-file-name)")"
cd "$device_dir"
set +e
QEMU_LD_PREFIX="$sysroot" OCL_ICD_VENDORS="$sysroot/liftc/vendors" POCL_CACHE_DIR="$device_dir/pocl-cache" \
  COMPILER_PATH="$sysroot/liftc/bin" LIBRARY_PATH="$libgcc_dir" qemu-aarch64-static ./liftc-runner "$remote"
exit $?
