#!/usr/bin/env bash
# Searches compared on a device: each program explored once per search (random, genetic,
# model by default) for the same wall time, each in a store of its own (nothing is served
# from another search's rows), then, per program and search, from the stores' rows:
#   - measured: the candidates measured (every row, failures included);
#   - to5% / to10%: how many measurements it took to validate a point within 5% and 10%
#     of the best point ANY search found for that program ("-": never);
#   - best ms: its own fastest validated point; wall s: its exploration's wall time.
# The stores are kept in --work (one per program and search, `PROGRAM-SEARCH.db`), so a
# table can be made again without a device with --table-only.
#
# Usage: scripts/bench_search_device.sh [options] PROGRAM.sr...
#   --liftc PATH        liftc (default build/liftc)
#   --search NAME       a search (repeatable; default random, genetic and model); model-db is
#                       the model search trained on --train-db's rows first
#   --train-db DB       a tuning database of model-db (another program's or shape's store;
#                       repeatable: the stores read as one)
#   -s STRATEGY         a strategy (repeatable; default every strategy that applies)
#   --time SECONDS      wall time of each exploration (default 120)
#   --device TEXT       the OpenCL device (index or part of its name)
#   --jobs N            candidates evaluated at once (default: liftc's)
#   --seed N            the searches' seed (default 1)
#   --work DIR          where the stores go (default a new folder under /tmp, kept)
#   --table-only        no exploration: the table of the stores already in --work
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
liftc="$here/build/liftc"
searches=()
strategies=()
time_s=120
device=""
jobs=""
seed=1
work=""
train_dbs=()
table_only=0
programs=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "bench_search_device.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc) need "$@"; liftc="$2"; shift 2 ;;
    --search) need "$@"; searches+=("$2"); shift 2 ;;
    -s) need "$@"; strategies+=("$2"); shift 2 ;;
    --time) need "$@"; time_s="$2"; shift 2 ;;
    --device) need "$@"; device="$2"; shift 2 ;;
    --jobs) need "$@"; jobs="$2"; shift 2 ;;
    --seed) need "$@"; seed="$2"; shift 2 ;;
    --work) need "$@"; work="$2"; shift 2 ;;
    --train-db) need "$@"; train_dbs+=("$2"); shift 2 ;;
    --table-only) table_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench_search_device.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    *) programs+=("$1"); shift ;;
  esac
done
[[ ${#programs[@]} -gt 0 ]] || { echo "bench_search_device.sh: give one or more .sr programs (--help)" >&2; exit 2; }
[[ ${#searches[@]} -gt 0 ]] || searches=(random genetic model)
[[ -n "$work" ]] || work="$(mktemp -d "${TMPDIR:-/tmp}/liftc-bench-search-device.XXXXXX")"
mkdir -p "$work"
for search in "${searches[@]}"; do  # a table of stores already made needs no database
  if [[ $search == model-db && ${#train_dbs[@]} -eq 0 && $table_only -eq 0 ]]; then
    echo "bench_search_device.sh: --search model-db needs --train-db DB" >&2; exit 2
  fi
done
for t in "${train_dbs[@]}"; do [[ -f "$t" ]] || { echo "bench_search_device.sh: no tuning database $t" >&2; exit 2; }; done
for p in "${programs[@]}"; do [[ -f "$p" ]] || { echo "bench_search_device.sh: no program $p" >&2; exit 2; }; done

if [[ $table_only -eq 0 ]]; then
  [[ -x "$liftc" ]] || { echo "bench_search_device.sh: no liftc at $liftc" >&2; exit 2; }
  flags=(--time "$time_s" --evals 10000000 --seed "$seed" --quiet)
  for s in "${strategies[@]}"; do flags+=(-s "$s"); done
  [[ -n "$device" ]] && flags+=(--device "$device")
  [[ -n "$jobs" ]] && flags+=(--jobs "$jobs")
  for p in "${programs[@]}"; do
    name="$(basename "$p" .sr)"
    for search in "${searches[@]}"; do
      db="$work/$name-$search.db"
      [[ -e "$db" ]] && { echo "bench_search_device.sh: $db exists (a new --work, or --table-only)" >&2; exit 2; }
      start=$(date +%s.%N)
      how=(--search "$search")
      if [[ $search == model-db ]]; then
        how=(--search model)
        for t in "${train_dbs[@]}"; do how+=(--train-db "$t"); done
      fi
      "$liftc" explore "$p" "${how[@]}" "${flags[@]}" --db "$db" > "$work/$name-$search.log" 2>&1 ||
        echo "bench_search_device.sh: $name $search: liftc explore failed (see $work/$name-$search.log)" >&2
      awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "$work/$name-$search.wall"
      echo "explored $name with $search ($(cat "$work/$name-$search.wall") s)" >&2
    done
  done
fi

python3 - "$work" "${searches[*]}" "${programs[@]}" <<'EOF'
import os, sqlite3, sys
work, searches, programs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
valid = ("ok", "cut")  # statuses of validated rows (a cut row was timed once, validated)
print(f"{'program':<16} {'search':<8} {'measured':>8} {'to5%':>6} {'to10%':>6} {'best ms':>10} {'wall s':>7}")
for p in programs:
    name = os.path.basename(p)[:-3]
    rows = {}
    for s in searches:
        db = os.path.join(work, f"{name}-{s}.db")
        if not os.path.exists(db):
            continue
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
            rows[s] = c.execute("SELECT status, time_ms FROM evaluations ORDER BY id").fetchall()
    times = [t for r in rows.values() for st, t in r if st in valid and t is not None]
    best_any = min(times) if times else None
    for s, r in rows.items():
        def within(f):
            for i, (st, t) in enumerate(r, 1):
                if st in valid and t is not None and t <= best_any * f:
                    return str(i)
            return "-"
        own = [t for st, t in r if st in valid and t is not None]
        wall_file = os.path.join(work, f"{name}-{s}.wall")
        wall = open(wall_file).read().strip() if os.path.exists(wall_file) else "?"
        print(f"{name:<16} {s:<8} {len(r):>8} {within(1.05) if own else '-':>6} {within(1.10) if own else '-':>6} "
              f"{(f'{min(own):.4f}' if own else '-'):>10} {wall[:7]:>7}")
EOF
echo "stores and logs: $work" >&2
