#!/usr/bin/env bash
# Packs this machine's PostgreSQL server into DIR, to carry to a machine without one (the
# GPU machine: no PostgreSQL, no network) where scripts/bench_conv_shape.sh --explore-gpus
# starts a throwaway cluster from it (--pg-bin DIR/bin).
#
#   scripts/pack_postgres.sh DIR [--with BINARY]...
#
# DIR gets the server's own layout below it, so that PostgreSQL finds its files relative to
# its binaries (as it does when installed under another prefix):
#   DIR/bin/{initdb,pg_ctl,postgres}   small wrappers: each runs the real one with DIR/libs first
#                                      on LD_LIBRARY_PATH (what a child server inherits too)
#   DIR/lib/postgresql/V/bin/...       the real binaries (pg_config --bindir, relative to the prefix)
#   DIR/lib/postgresql/V/lib/...       the modules initdb loads: plpgsql, dict_snowball, the
#                                      encoding conversions (pg_config --pkglibdir)
#   DIR/share/postgresql/V/...         what initdb reads (postgres.bki, the catalogs' SQL,
#                                      timezone abbreviations; pg_config --sharedir)
#   DIR/libs/                          every shared library those need (ldd), but the C
#                                      library's own (libc, libm, ld-linux, ...): the target's are used
#   DIR/PACKED-BY-LIFTC                what was packed, from where
# --with BINARY adds the libraries BINARY needs too (e.g. --with build/liftc: libpqxx, libpq,
# z3 ... for a liftc carried beside it; put DIR/libs on its LD_LIBRARY_PATH). DIR.tar.gz holds
# the same, to carry (the folder is about 70 MB, over the 64 MiB a command may carry to the
# GPU machine; the archive about 29 MB): bench_conv_shape.sh --pg-bin DIR.tar.gz unpacks it.
#
# A server built with --with-system-tzdata (Debian's) reads time zones from the system's
# /usr/share/zoneinfo, which is not packed: on a machine without it the cluster runs in
# GMT, which needs no file (bench_conv_shape.sh starts it with timezone=GMT).
# Prints DIR's size at the end. Check a packed copy on this machine, with nothing of the
# installed server in reach: scripts/pack_postgres.sh DIR --check.
set -euo pipefail
me="pack_postgres.sh"
# shellcheck source=scripts/lib/throwaway_postgres.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/throwaway_postgres.sh"  # throwaway_pg_user, throwaway_pg_as
die() {
  echo "$me: error: $*" >&2
  exit 1
}

dir=""
check=""
with=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with)
      [[ $# -ge 2 ]] || die "--with needs a binary"
      [[ -x "$2" ]] || die "--with $2: not an executable file"
      with+=("$2")
      shift 2
      ;;
    --check)
      check=yes
      shift
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*) die "unknown option $1" ;;
    *)
      [[ -z "$dir" ]] || die "one DIR only ('$dir', '$1')"
      dir="$1"
      shift
      ;;
  esac
done
[[ -n "$dir" ]] || die "give the folder to pack into: $me DIR"

# is_glibc LIB: whether LIB is the C library's own, which is never packed: those must be the
# target's (a libc copied beside another system's ld-linux breaks every program).
is_glibc() {
  case "$(basename "$1")" in
    libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | libresolv.so.* | libutil.so.* | ld-linux*.so.* | \
      libanl.so.* | libnsl.so.* | libBrokenLocale.so.* | libmvec.so.* | linux-vdso.so.*) return 0 ;;
    *) return 1 ;;
  esac
}
# check_pack DIR: a cluster made and started from DIR's copy alone, with a clean environment
# and (where this process may: root, unshare) the installed server's folders hidden.
check_pack() {
  local pack tmp user
  pack="$(cd "$1" && pwd)"
  [[ -f "$pack/PACKED-BY-LIFTC" ]] || die "$pack is not a folder this script packed"
  tmp="$(mktemp -d /tmp/liftc-pack-check-XXXXXX)" || die "cannot make a folder under /tmp for the check's cluster"
  user="$(throwaway_pg_user)"
  [[ -z "$user" ]] || chown "$user" "$tmp"
  local hide=""
  if [[ $(id -u) -eq 0 ]] && unshare -m true 2> /dev/null; then
    hide=yes
  fi
  # The commands run inside a mount namespace where the installed server's folders are empty.
  local script="
    set -e
    if [ -n '$hide' ]; then
      for d in /usr/lib/postgresql /usr/share/postgresql /usr/share/postgresql-common /usr/share/zoneinfo; do
        if [ -d \"\$d\" ]; then mount -t tmpfs none \"\$d\"; fi
      done
    fi
    as() { if [ -n '$user' ]; then runuser -u '$user' -- \"\$@\"; else \"\$@\"; fi; }
    as env -i PATH=/usr/bin:/bin '$pack/bin/initdb' -D '$tmp/data' -U liftc -A trust -E UTF8 --locale=C --no-sync > '$tmp/initdb.log' 2>&1 ||
      { cat '$tmp/initdb.log'; exit 1; }
    as env -i PATH=/usr/bin:/bin '$pack/bin/pg_ctl' -D '$tmp/data' -l '$tmp/server.log' -w -s \
      -o \"-c listen_addresses='' -c unix_socket_directories='$tmp' -c fsync=off -c timezone=GMT -c log_timezone=GMT\" start ||
      { cat '$tmp/server.log'; exit 1; }
    ls '$tmp'/.s.PGSQL.* > /dev/null
    if [ -n '$hide' ] && [ -n \"\$(find /usr/lib/postgresql /usr/share/postgresql /usr/share/zoneinfo -mindepth 1 | head -n 1)\" ]; then
      echo 'the installed server was not hidden'; exit 1
    fi
    as env -i PATH=/usr/bin:/bin '$pack/bin/pg_ctl' -D '$tmp/data' -m fast -w -s stop
  "
  local status=0
  if [[ -n "$hide" ]]; then
    unshare -m sh -c "$script" || status=$?
  else
    sh -c "$script" || status=$?
  fi
  # A check that failed after the server started (no socket, the installed server not hidden)
  # left it running: stopped before its folder goes.
  if [[ $status -ne 0 && -f "$tmp/data/postmaster.pid" ]]; then
    pg_user="$user" throwaway_pg_as "$pack/bin/pg_ctl" -D "$tmp/data" -m immediate -w -s stop > /dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
  [[ $status -eq 0 ]] || die "a cluster did not start from $pack (above)"
  # Every library the binaries load is the pack's or the C library's.
  local binary line
  for binary in "$pack"/lib/*/*/bin/*; do
    while read -r line; do
      [[ "$line" == *"=> $pack/libs/"* ]] || is_glibc "${line%% *}" || die "$(basename "$binary") loads $line, not from $pack/libs"
    done < <(LD_LIBRARY_PATH="$pack/libs" ldd "$binary" | grep '=>')
  done
  echo "$me: a cluster was made and started from $pack alone (env -i${user:+, as $user}${hide:+; /usr/lib/postgresql, /usr/share/postgresql and /usr/share/zoneinfo hidden}; every library from $pack/libs but the C library's)"
}

if [[ -n "$check" ]]; then
  check_pack "$dir"
  exit 0
fi

command -v pg_config > /dev/null || die "no pg_config on PATH: install PostgreSQL's server here (scripts/setup.sh)"
bindir="$(pg_config --bindir)"
sharedir="$(pg_config --sharedir)"
pkglibdir="$(pg_config --pkglibdir)"
version="$(pg_config --version)"
for program in initdb pg_ctl postgres; do
  [[ -x "$bindir/$program" ]] || die "no $program in $bindir (pg_config --bindir): install the server (postgresql)"
done
[[ -f "$sharedir/postgres.bki" ]] || die "no postgres.bki in $sharedir (pg_config --sharedir)"

# The prefix the three folders share ("/usr" for /usr/lib/postgresql/15/bin and
# /usr/share/postgresql/15): each is copied below DIR at its path under the prefix.
common_prefix() {
  local a="$1" b="$2"
  while [[ "${b#"$a"/}" == "$b" ]]; do a="$(dirname "$a")"; done
  echo "$a"
}
prefix="$(common_prefix "$(common_prefix "$bindir" "$sharedir")" "$pkglibdir")"
[[ "$prefix" != / ]] || prefix=""

[[ ! -e "$dir" || -d "$dir" ]] || die "$dir is not a folder"
if [[ -d "$dir" && -n "$(ls -A "$dir")" ]]; then
  [[ -f "$dir/PACKED-BY-LIFTC" ]] || die "$dir is not empty, and not a folder this script packed: give a new or empty one"
  rm -rf "${dir:?}"/*
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
real_bin="$dir${bindir#"$prefix"}"
mkdir -p "$real_bin" "$dir${pkglibdir#"$prefix"}" "$dir${sharedir#"$prefix"}" "$dir/libs" "$dir/bin"
for program in initdb pg_ctl postgres; do cp -p "$bindir/$program" "$real_bin/"; done
# The share folder but its manual pages and the extensions' scripts (CREATE EXTENSION of
# contrib modules, which are not packed) other than PL/pgSQL's, which initdb installs.
share="$dir${sharedir#"$prefix"}"
cp -a "$sharedir"/. "$share"/
rm -rf "$share/man"
find "$share/extension" -type f ! -name 'plpgsql*' -delete
# The modules initdb loads (PL/pgSQL, the snowball stemmers) and the encoding conversions.
modules=(plpgsql.so dict_snowball.so)
for f in "$pkglibdir"/*_and_*.so "$pkglibdir"/euc2004_sjis2004.so; do [[ -f "$f" ]] && modules+=("$(basename "$f")"); done
for m in "${modules[@]}"; do
  [[ -f "$pkglibdir/$m" ]] || die "no $m in $pkglibdir (pg_config --pkglibdir)"
  cp -p "$pkglibdir/$m" "$dir${pkglibdir#"$prefix"}/"
done

# The shared libraries all of them need, but the C library's own.
needs=("$real_bin"/* "$dir${pkglibdir#"$prefix"}"/*.so "${with[@]}")
missing=""
for binary in "${needs[@]}"; do
  while read -r name arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    if [[ "$path" == "not" ]]; then
      missing="$missing $name (of $(basename "$binary"))"
      continue
    fi
    is_glibc "$path" && continue
    [[ -e "$dir/libs/$name" ]] || cp -L "$path" "$dir/libs/$name"
  done < <(ldd "$binary")
done
[[ -z "$missing" ]] || die "ldd finds no$missing here"

# The wrappers: the real binary with DIR/libs first on LD_LIBRARY_PATH. PostgreSQL resolves
# its own path through links (it finds share/ and lib/ beside the real one), and initdb and
# pg_ctl start the real postgres beside them, which inherits LD_LIBRARY_PATH.
for program in initdb pg_ctl postgres; do
  cat > "$dir/bin/$program" << EOF
#!/bin/sh
# Written by scripts/pack_postgres.sh: PostgreSQL's $program with its libraries (../libs).
here="\$(cd "\$(dirname "\$0")/.." && pwd)"
LD_LIBRARY_PATH="\$here/libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here${bindir#"$prefix"}/$program" "\$@"
EOF
  chmod 755 "$dir/bin/$program"
done
{
  echo "PostgreSQL server packed by scripts/pack_postgres.sh on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "version: $version"
  echo "from: bindir $bindir, sharedir $sharedir, pkglibdir $pkglibdir"
  echo "bin: bin (wrappers of ${bindir#"$prefix/"})"
  [[ ${#with[@]} -eq 0 ]] || echo "with the libraries of: ${with[*]}"
} > "$dir/PACKED-BY-LIFTC"
chmod -R a+rX "$dir"
# The folder is larger than the 64 MiB a command may carry to the GPU machine (ICU's data
# alone is 30 MB); the archive is under half of it.
tar czf "$dir.tar.gz" -C "$(dirname "$dir")" "$(basename "$dir")"
echo "$me: packed $version into $dir: $(du -sb "$dir" | cut -f1) bytes (libs $(du -sb "$dir/libs" | cut -f1)), and $dir.tar.gz: $(stat -c %s "$dir.tar.gz") bytes"
echo "$me: start a cluster from it with --pg-bin $dir/bin, or --pg-bin $dir.tar.gz (unpacked in the cluster's folder); check it here: $me $dir --check"
