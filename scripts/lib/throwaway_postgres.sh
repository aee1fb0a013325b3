# shellcheck shell=bash
# Sourced by scripts that need a PostgreSQL store for `liftc worker`s on a machine that has
# no server of its own (the GPU machine: none installed, no network): a throwaway cluster,
# as tests/explore/postgres_server.hpp makes one. initdb makes it in a new folder under /tmp,
# pg_ctl starts it listening only on a Unix socket in that folder (no TCP port), and
# throwaway_pg_stop stops it and removes the folder. initdb refuses root: run as root (as
# the GPU machine's commands are), the server runs as the user liftc-pg, else nobody.
#
#   pg_bin="$(throwaway_pg_bin "$given")" || exit 1   # where initdb and pg_ctl are
#   throwaway_pg_start "$pg_bin" || exit 1            # sets pg_url and pg_folder
#   trap throwaway_pg_stop EXIT

# What throwaway_pg_start sets: the URL and folder the sourcing script reads, the server's
# user and binaries that throwaway_pg_stop uses.
# shellcheck disable=SC2034  # pg_url is the sourcing script's
pg_url="" pg_folder="" pg_user="" pg_bin_used="" pg_started=""

# throwaway_pg_bin [GIVEN]: the folder of initdb and pg_ctl, or a packed archive of
# scripts/pack_postgres.sh: GIVEN when given, else `pg_config --bindir`, else the newest
# /usr/lib/postgresql/*/bin, else a packed copy carried in .gpu/ (.gpu/postgres/bin,
# .gpu/postgres.tar.gz). Prints it; an error on stderr and status 1 when none.
throwaway_pg_bin() {
  local given="${1:-}" root candidates=() c
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  if [[ -n "$given" ]]; then
    if [[ -f "$given" && "$given" == *.tar.gz ]] || [[ -x "$given/initdb" && -x "$given/pg_ctl" ]]; then
      echo "$given"
      return 0
    fi
    echo "--pg-bin $given: neither a folder with initdb and pg_ctl nor an archive of scripts/pack_postgres.sh (.tar.gz)" >&2
    return 1
  fi
  if command -v pg_config > /dev/null 2>&1; then candidates+=("$(pg_config --bindir)"); fi
  mapfile -t -O ${#candidates[@]} candidates < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r)
  candidates+=("$root/.gpu/postgres/bin" "$root/.gpu/postgres.tar.gz")
  for c in "${candidates[@]}"; do
    if [[ -x "$c/initdb" && -x "$c/pg_ctl" ]] || [[ -f "$c" && "$c" == *.tar.gz ]]; then
      echo "$c"
      return 0
    fi
  done
  echo "no PostgreSQL server here (no initdb in pg_config --bindir, /usr/lib/postgresql/*/bin or .gpu/postgres/bin, no" \
    ".gpu/postgres.tar.gz): install it (scripts/setup.sh), give --pg-bin DIR (a packed copy: scripts/pack_postgres.sh)," \
    "or give --db URL of a server" >&2
  return 1
}

# throwaway_pg_user: who runs a server made here: nobody printed (this user) unless this is
# root, which initdb refuses; then the user liftc-pg where it exists, else nobody.
throwaway_pg_user() {
  if [[ $(id -u) -eq 0 ]]; then
    if id liftc-pg > /dev/null 2>&1; then echo liftc-pg; else echo nobody; fi
  fi
}

# throwaway_pg_as COMMAND...: runs COMMAND as the server's user (this one, unless root).
throwaway_pg_as() {
  if [[ -n "$pg_user" ]]; then
    runuser -u "$pg_user" -- "$@"
  else
    "$@"
  fi
}

# throwaway_pg_start BIN: makes and starts the cluster (BIN: what throwaway_pg_bin printed);
# sets pg_folder and pg_url (the database `postgres`, as the superuser liftc, no password,
# on the socket in pg_folder). Status 1, with initdb's or the server's log on stderr, when
# it does not start.
throwaway_pg_start() {
  local bin="$1"
  pg_user="" pg_started=""
  pg_folder="$(mktemp -d /tmp/liftc-pg-XXXXXX)" || return 1
  pg_user="$(throwaway_pg_user)"
  if [[ -n "$pg_user" ]]; then
    command -v runuser > /dev/null || { echo "as root, PostgreSQL runs as another user, through runuser, which is missing" >&2; return 1; }
    chown "$pg_user" "$pg_folder"
  fi
  if [[ -f "$bin" ]]; then
    # A packed archive: unpacked in the cluster's folder (the server's user reads it there).
    tar xzf "$bin" -C "$pg_folder" || { echo "cannot unpack $bin" >&2; return 1; }
    bin="$(ls -d "$pg_folder"/*/bin)"
    [[ -x "$bin/initdb" ]] || { echo "$1 holds no bin/initdb: not an archive of scripts/pack_postgres.sh" >&2; return 1; }
  elif [[ -n "$pg_user" ]] && ! throwaway_pg_as test -x "$bin/postgres"; then
    # A packed copy in a folder the server's user cannot enter (under /root): copied.
    [[ -f "$bin/../PACKED-BY-LIFTC" ]] ||
      { echo "$pg_user, which runs the server, cannot run $bin/postgres" >&2; return 1; }
    cp -a "$bin/.." "$pg_folder/pack" && chown -R "$pg_user" "$pg_folder/pack" && bin="$pg_folder/pack/bin"
  fi
  pg_bin_used="$bin"
  throwaway_pg_as "$bin/initdb" -D "$pg_folder/data" -U liftc -A trust -E UTF8 --locale=C --no-sync \
    > "$pg_folder/initdb.log" 2>&1 || { cat "$pg_folder/initdb.log" >&2; echo "initdb failed (above)" >&2; return 1; }
  # GMT: a server that reads time zones from the system's files needs none for it.
  throwaway_pg_as "$bin/pg_ctl" -D "$pg_folder/data" -l "$pg_folder/server.log" -w -s -o \
    "-c listen_addresses='' -c unix_socket_directories='$pg_folder' -c fsync=off -c timezone=GMT -c log_timezone=GMT" \
    start || { cat "$pg_folder/server.log" >&2; echo "the PostgreSQL server did not start (above)" >&2; return 1; }
  pg_started=yes
  pg_url="postgresql://liftc@/postgres?host=$pg_folder"
}

# throwaway_pg_stop: stops the cluster and removes its folder (nothing when none was made).
throwaway_pg_stop() {
  if [[ -n "${pg_started:-}" ]]; then
    throwaway_pg_as "$pg_bin_used/pg_ctl" -D "$pg_folder/data" -m immediate -w -s stop > /dev/null 2>&1 || true
    pg_started=""
  fi
  if [[ -n "${pg_folder:-}" ]]; then
    rm -rf "$pg_folder"
    pg_folder=""
  fi
}
