#!/usr/bin/env bash
# A search benchmark that needs no device (Kernel Tuner's simulation mode): the random,
# genetic and model-guided searches are replayed against a recorded results store, each
# over many seeds: every candidate a search asks is answered by the store's row of it
# (`liftc explore PROGRAM --replay DB --seeds N`, src/explore/store/replay_benchmark.cpp).
# Per search it prints the median best time found (over the seeds) against the number of
# measurements, and the median number of measurements to within 5% and 10% of the store's
# best. The recorded space is exhaustive: every valid point of the strategies named was
# measured, so a search never asks a point the store lacks; one it did ask would be told
# to the search as a failure and counted ("N candidate(s) asked that the store does not hold").
#
# The default store is tests/data/search_replay/matmul_small.sql, a text dump (SQLite's
# .dump) of tests/data/search_replay/matmul_small.sr explored exhaustively on PoCL (how it
# was recorded: tests/data/search_replay/README.md); it is loaded into a temporary store.
#
# Then the transfer case: a second recorded shape (default matmul_m8.sr, M = 8 instead of 4,
# and matmul_m8.sql) is replayed with the same searches, and once more with the model-guided
# search trained first on the first store's rows (`--train-db`: a tuning database of another
# shape, normalised to its best, and the first round started from its best points mapped into
# this space), printed as "model+transfer".
#
# Usage: scripts/bench_search.sh [options]
#   --liftc PATH      liftc (default build/liftc)
#   --program F.sr    the recorded program (default tests/data/search_replay/matmul_small.sr)
#   --store FILE      the recorded store: a .db, or a .sql dump (default matmul_small.sql)
#   -s STRATEGY       a recorded strategy (repeatable; default those of the default store)
#   --seeds N         seeds per search (default 20)
#   --evals N         measurements per seed (default 100)
#   --search NAME     a search to replay (repeatable; default random, genetic and model)
#   --second-program F.sr, --second-store FILE
#                     the transfer case's shape and its recorded store (default matmul_m8.sr/.sql)
#   --no-transfer     no transfer case
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
liftc="$here/build/liftc"
program="$here/tests/data/search_replay/matmul_small.sr"
store="$here/tests/data/search_replay/matmul_small.sql"
strategies=()
seeds=20
evals=100
searches=()
second_program="$here/tests/data/search_replay/matmul_m8.sr"
second_store="$here/tests/data/search_replay/matmul_m8.sql"
transfer=1

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "bench_search.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc) need "$@"; liftc="$2"; shift 2 ;;
    --program) need "$@"; program="$2"; shift 2 ;;
    --store) need "$@"; store="$2"; shift 2 ;;
    -s) need "$@"; strategies+=("$2"); shift 2 ;;
    --seeds) need "$@"; seeds="$2"; shift 2 ;;
    --evals) need "$@"; evals="$2"; shift 2 ;;
    --search) need "$@"; searches+=("$2"); shift 2 ;;
    --second-program) need "$@"; second_program="$2"; shift 2 ;;
    --second-store) need "$@"; second_store="$2"; shift 2 ;;
    --no-transfer) transfer=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench_search.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
[[ ${#strategies[@]} -gt 0 ]] || strategies=(matmul-parametric)
[[ ${#searches[@]} -gt 0 ]] || searches=(random genetic model)
[[ -x "$liftc" ]] || { echo "bench_search.sh: no liftc at $liftc (build it: scripts/build.sh liftc liftc-runner)" >&2; exit 2; }
[[ -f "$program" ]] || { echo "bench_search.sh: no program at $program" >&2; exit 2; }
[[ -f "$store" ]] || { echo "bench_search.sh: no store at $store" >&2; exit 2; }
if [[ $transfer == 1 ]]; then
  [[ -f "$second_program" ]] || { echo "bench_search.sh: no program at $second_program" >&2; exit 2; }
  [[ -f "$second_store" ]] || { echo "bench_search.sh: no store at $second_store" >&2; exit 2; }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/liftc-bench-search.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# A recorded store (.sql dump or .db) as a store file of the work folder.
load_store() {
  case "$1" in
    *.sql) python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[2])
c.executescript(open(sys.argv[1], encoding="utf-8").read())
c.commit()' "$1" "$2" ;;
    *) cp "$1" "$2" ;;
  esac
}

strategy_flags=()
for s in "${strategies[@]}"; do strategy_flags+=(-s "$s"); done
summary=()
# replay PROGRAM DB LABEL SEARCH [FLAGS...]: one search over the seeds; its summary lines,
# the search's name replaced by LABEL, kept for the end.
replay() {
  local program="$1" db="$2" label="$3" search="$4"
  shift 4
  local out
  out="$("$liftc" explore "$program" --replay "$db" "${strategy_flags[@]}" --search "$search" --seeds "$seeds" \
         --evals "$evals" --quiet "$@")"
  echo "$out"
  echo
  while IFS= read -r line; do summary+=("  ${line/#$search:/$label:}"); done \
    < <(grep -E '^[a-z]+: median measurements to within' <<<"$out")
}

db="$work/recorded.db"
load_store "$store" "$db"
summary+=("$(basename "$store"):")
for search in "${searches[@]}"; do replay "$program" "$db" "$search" "$search"; done
if [[ $transfer == 1 ]]; then
  second="$work/second.db"
  load_store "$second_store" "$second"
  summary+=("$(basename "$second_store"), and the model trained first on $(basename "$store") (model+transfer):")
  for search in "${searches[@]}"; do replay "$second_program" "$second" "$search" "$search"; done
  replay "$second_program" "$second" model+transfer model --train-db "$db"
fi
echo "summary ($seeds seeds, up to $evals measurements each):"
printf '  %s\n' "${summary[@]}"
