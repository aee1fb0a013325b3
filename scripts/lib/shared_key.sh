# shellcheck shell=bash
# Sourced by the phone runners (adb_runner.sh, qemu_runner.sh): the name of an exploration's
# shared inputs and expected outputs on the device.
#
# Every exploration gets a device folder of its own for them, shared-KEY, KEY a hash of
# their contents: two explorations whose programs name their inputs alike (grid.bin) but
# hold other values never read each other's files, and one with the very same values uses
# the same folder. (A single shared/ refreshed newest-wins validated correct kernels as
# `wrong` against another exploration's data.)

# shared_key SHARED: 16 hex digits of a SHA-256 over the path (relative to SHARED) and
# contents of every file under SHARED. Computed once per exploration: it is kept beside
# SHARED in SHARED.key with the files' names, sizes, times and inodes, and computed again
# only when those change.
shared_key() {
  local shared="$1" cache="$1.key" signature key
  signature="$(cd "$shared" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r stat -c '%n %s %y %i' | sha256sum)"
  if [[ -f "$cache" && "$(sed -n 1p "$cache")" == "$signature" ]]; then
    sed -n 2p "$cache"
    return
  fi
  key="$(cd "$shared" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c 1-16)"
  printf '%s\n%s\n' "$signature" "$key" > "$cache.$$"
  mv -f "$cache.$$" "$cache"
  echo "$key"
}
