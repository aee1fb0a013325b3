# shellcheck shell=bash
# Sourced by the scripts that install what they need (setup.sh, build_aarch64_runner.sh,
# qemu_runner.sh): Debian packages, installed quietly, only those that are missing.

# The command prefix for root's work: nothing when root already, else sudo.
debian_sudo() {
  if [ "$(id -u)" -eq 0 ]; then echo ""; else echo "sudo"; fi
}

# ensure_debian_packages LABEL PACKAGE...: installs the PACKAGEs (name or name:arch) that
# are not installed, with one quiet apt-get update and install; says so on stderr, prefixed
# with LABEL. Returns at once, silently, when every one is there.
ensure_debian_packages() {
  local label="$1" p missing=()
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$label: installing ${missing[*]}" >&2
  local sudo
  sudo="$(debian_sudo)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
}

# ensure_debian_architecture ARCH: lets dpkg install ARCH's packages beside the machine's
# own (multiarch); the next ensure_debian_packages updates the package lists.
ensure_debian_architecture() {
  local arch="$1"
  [ "$(dpkg --print-architecture)" = "$arch" ] && return 0
  dpkg --print-foreign-architectures | grep -qx "$arch" && return 0
  $(debian_sudo) dpkg --add-architecture "$arch"
}
