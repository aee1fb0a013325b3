#!/usr/bin/env bash
# A runner for `liftc explore --runner scripts/adb_runner.sh`: runs one candidate bundle
# on an Android phone (Mali, Adreno) over adb and prints the phone runner's JSON answer.
#
# Setup, once: build liftc-runner for the phone with the Android NDK (it needs only
# OpenCL's C API and the C++ standard library) against the phone's libOpenCL.so, e.g.
#   adb pull /vendor/lib64/libOpenCL.so /tmp/phone/
#   cmake -S src/runner -B build-android \
#         -DCMAKE_TOOLCHAIN_FILE=$ANDROID_NDK/build/cmake/android.toolchain.cmake \
#         -DANDROID_ABI=arm64-v8a -DANDROID_PLATFORM=android-28 \
#         -DOpenCL_INCLUDE_DIR=/usr/include -DOpenCL_LIBRARY=/tmp/phone/libOpenCL.so
#   cmake --build build-android
#   adb push build-android/liftc-runner /data/local/tmp/liftc/liftc-runner
# then explore with the phone's limits, e.g.
#   liftc explore examples/vgg16/conv_reduced.sr --pareto --target mali-g72 \
#         --runner scripts/adb_runner.sh --timeout 120
#
# Environment: ADB (default adb), ANDROID_SERIAL (which phone, read by adb itself),
# LIFTC_PHONE_DIR (default /data/local/tmp/liftc).
#
# The inputs and expected outputs of an exploration are the same for every candidate:
# liftc explore writes them once into its work folder's shared/ (beside the bundle) and
# hard-links them into each bundle. This script pushes shared/ to the phone once, into a
# folder of that exploration's own, shared-KEY with KEY a hash of its contents
# (scripts/lib/shared_key.sh: another exploration's files of the same names are never
# read; adb push --sync skips files the phone has already, under a host-side flock so
# parallel --jobs scripts and explorations do not push at once), and gives each bundle on
# the phone links to it; a bundle file that is not one of the shared files (a buffer
# holding other values) is pushed itself. The shared-KEY folders of past explorations stay
# on the phone: `adb shell rm -rf /data/local/tmp/liftc/shared-*` between explorations
# removes them.
# The bundle's device lock becomes a file on the phone, so parallel runners there still
# take turns on the GPU. A bundle not written by explore (no shared/ beside it) is pushed whole.
set -euo pipefail
# shellcheck source=scripts/lib/shared_key.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_key.sh"
# `adb_runner.sh SERIAL BUNDLE_DIR` runs it on the phone SERIAL (as ANDROID_SERIAL=SERIAL
# would): `liftc worker --runner 'scripts/adb_runner.sh SERIAL'`, one worker per phone
# (scripts/adb_workers.sh).
if [[ $# -ge 2 ]]; then
  export ANDROID_SERIAL="$1"
  shift
fi
bundle="${1:?usage: adb_runner.sh [SERIAL] BUNDLE_DIR}"
bundle="${bundle%/}"
adb="${ADB:-adb}"
phone_dir="${LIFTC_PHONE_DIR:-/data/local/tmp/liftc}"
remote="$phone_dir/$(basename "$bundle")-$$"
shared="$(dirname "$bundle")/shared"
phone_shared=""
if [[ -d "$shared" ]]; then phone_shared="$phone_dir/shared-$(shared_key "$shared")"; fi
"$adb" shell "rm -rf '$remote' && mkdir -p '$remote/inputs' '$remote/expected' '${phone_shared:-$remote}'" >&2
sed "s|^lock .*|lock $phone_dir/device.lock|" "$bundle/bundle.txt" > "$bundle/bundle.phone.txt"
"$adb" push "$bundle/bundle.phone.txt" "$remote/bundle.txt" >&2
"$adb" push "$bundle/kernels.cl" "$remote/kernels.cl" >&2
links=""
if [[ -n "$phone_shared" ]]; then
  flock "${TMPDIR:-/tmp}/liftc-adb-push.lock" "$adb" push --sync "$shared/." "$phone_shared" >&2
fi
for sub in inputs expected; do
  for f in "$bundle/$sub"/*.bin; do
    [[ -e "$f" ]] || continue
    name="$(basename "$f")"
    if [[ -e "$shared/$sub/$name" && "$f" -ef "$shared/$sub/$name" ]]; then
      links="$links ln -s '$phone_shared/$sub/$name' '$remote/$sub/$name' &&"
    else
      "$adb" push "$f" "$remote/$sub/$name" >&2
    fi
  done
done
# The phone runner's stdout is the answer; its exit status is passed on.
"$adb" shell "$links cd '$phone_dir' && LD_LIBRARY_PATH=/vendor/lib64:/system/vendor/lib64 ./liftc-runner '$remote'; code=\$?; rm -rf '$remote'; exit \$code"
