#!/usr/bin/env bash
# How one exploration scales with `liftc worker`s, one per GPU of this machine: the program is
# explored once per worker count, for the same wall time, with the search and strategies
# given, each time in a fresh throwaway PostgreSQL cluster (no row served from an earlier
# count's) and with a cold OpenCL driver cache (no kernel built by an earlier count's
# workers), on the first N GPUs of --gpus. Prints per count:
#   - candidates: the rows the exploration measured (failures included);
#   - evals/s: candidates per second of the exploration's wall time, and its ratio to the
#     first count's;
#   - best ms: the fastest validated point, and its ratio to the first count's best.
# Each count's explore and worker logs and its rows (`liftc results --json`) stay in --work.
#
# Usage: scripts/bench_workers.sh [options] PROGRAM.sr
#   --gpus "G..."       the GPUs (CUDA device numbers; default "0"); on PoCL every worker
#                       runs on the CPU, whatever its number
#   --counts "N..."     worker counts (default: 1 and the number of --gpus)
#   --time SECONDS      wall time of each exploration (default 120)
#   --jobs-per-worker N candidates in flight per worker (explore --jobs N x workers; default 2:
#                       one running on each worker, one ready behind it)
#   --search NAME       the search (default liftc's)
#   -s STRATEGY         a strategy (repeatable; default every strategy that applies)
#   --device TEXT       the OpenCL device of the explorer and the workers
#   --liftc PATH        liftc (default build/liftc, else .gpu/liftc)
#   --pg-bin DIR|TAR    PostgreSQL's initdb and pg_ctl, or an archive of scripts/pack_postgres.sh
#                       (default: the one installed, else .gpu/)
#   --seed N            the search's seed (default 1)
#   --work DIR          where the logs and rows go (default a new folder under /tmp, kept)
#
# On the GPU machine (.gpu/ holds liftc, its libraries and postgres.tar.gz; DEVICE.md):
#   scripts/bench_workers.sh --liftc .gpu/liftc --device nvidia --gpus "0 1 2 3" --time 120 \
#     -s @fast --work $OUT/workers examples/vgg16/conv5.sr
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() {
  echo "bench_workers.sh: $*" >&2
  exit 1
}
liftc="" gpus_text="0" counts_text="" time_s=120 per_worker=2 search="" device="" pg_given="" seed=1 work=""
strategies=() program=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --gpus | --counts | --time | --jobs-per-worker | --search | -s | --device | --liftc | --pg-bin | --seed | --work)
      [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"
      case "$1" in
        --gpus) gpus_text="$2" ;;
        --counts) counts_text="$2" ;;
        --time) time_s="$2" ;;
        --jobs-per-worker) per_worker="$2" ;;
        --search) search="$2" ;;
        -s) strategies+=(-s "$2") ;;
        --device) device="$2" ;;
        --liftc) liftc="$2" ;;
        --pg-bin) pg_given="$2" ;;
        --seed) seed="$2" ;;
        --work) work="$2" ;;
      esac
      shift 2
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *)
      [[ -z "$program" ]] || die "give one program (got $program and $1)"
      program="$1"
      shift
      ;;
  esac
done
[[ -n "$program" ]] || die "give a .sr program (--help)"
[[ -f "$program" ]] || die "no program $program"
# Every number in base 10 (08 is eight, not an octal error), at most six digits.
count() {
  [[ "$2" =~ ^[0-9]{1,6}$ ]] && ((10#$2 >= $3)) || die "$1 takes a whole number of at least $3, got '$2'"
  echo $((10#$2))
}
time_s=$(count --time "$time_s" 1)
per_worker=$(count --jobs-per-worker "$per_worker" 1)
seed=$(count --seed "$seed" 0)
gpus=()
for g in $gpus_text; do gpus+=("$(count --gpus "$g" 0)"); done
[[ ${#gpus[@]} -gt 0 ]] || die "--gpus names no GPU"
counts=()
for n in ${counts_text:-1 ${#gpus[@]}}; do
  n=$(count --counts "$n" 1)
  ((n <= ${#gpus[@]})) || die "--counts $n: more workers than the ${#gpus[@]} GPU(s) of --gpus (one worker per GPU)"
  [[ " ${counts[*]} " == *" $n "* ]] || counts+=("$n")
done

if [[ -z "$liftc" ]]; then
  liftc="$root/build/liftc"
  [[ -x "$liftc" || ! -x "$root/.gpu/liftc" ]] || liftc="$root/.gpu/liftc"
fi
[[ -x "$liftc" ]] || die "no liftc at $liftc (build it, or give --liftc PATH)"
liftc="$(cd "$(dirname "$liftc")" && pwd)/$(basename "$liftc")"
bin="$(dirname "$liftc")"
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIFTC_RULES="${LIFTC_RULES:-$root/rules}" LIFTC_TARGETS="${LIFTC_TARGETS:-$root/rules/targets}"
# shellcheck source=scripts/lib/throwaway_postgres.sh
source "$root/scripts/lib/throwaway_postgres.sh"
# shellcheck source=scripts/lib/gpu_workers.sh
source "$root/scripts/lib/gpu_workers.sh"
pg_bin="$(throwaway_pg_bin "$pg_given")" || die "cannot start a PostgreSQL server (above)"
[[ -n "$work" ]] || work="$(mktemp -d "${TMPDIR:-/tmp}/liftc-bench-workers.XXXXXX")"
mkdir -p "$work" || die "--work $work: cannot create the folder"
work="$(cd "$work" && pwd)"
dev=()
[[ -n "$device" ]] && dev=(--device "$device")
gpu_worker_flags=("${dev[@]}")
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  gpu_workers_stop
  throwaway_pg_stop
}
trap cleanup EXIT

explore_flags=(--time "$time_s" --evals 10000000 --seed "$seed" --workers external "${dev[@]}" "${strategies[@]}")
[[ -z "$search" ]] || explore_flags+=(--search "$search")
lines=()
for n in "${counts[@]}"; do
  dir="$work/workers-$n"
  [[ ! -e "$dir" ]] || die "$dir exists (give a new --work)"
  mkdir -p "$dir"
  throwaway_pg_start "$pg_bin" || die "cannot start a PostgreSQL server from $pg_bin (above)"
  echo "== $n worker(s) on GPU(s) ${gpus[*]:0:n}: a throwaway PostgreSQL server in $pg_folder" >&2
  # Each count's kernels are built with a cold driver cache of their own: NVIDIA's OpenCL keeps
  # the kernels it built on disk, and an earlier count's would make this count's builds cheaper.
  export CUDA_CACHE_PATH="$dir/driver-cache" POCL_CACHE_DIR="$dir/driver-cache"
  gpu_workers_start "$liftc" "$pg_url" "$dir" "${gpus[@]:0:n}" || die "a worker did not start"
  start=$(date +%s.%N)
  "$liftc" explore "$program" "${explore_flags[@]}" --jobs $((n * per_worker)) --db "$pg_url" \
    > "$dir/explore.log" 2>&1 &
  status=0
  gpu_workers_wait_for $! || status=$?
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  [[ $status -ne 125 ]] || die "every worker ended while liftc explore $program ran (their logs above)"
  [[ $status -eq 0 ]] || { cat "$dir/explore.log" >&2; die "liftc explore $program with $n worker(s) failed (above)"; }
  gpu_workers_stop
  rm -rf "$dir/driver-cache"
  "$liftc" results --db "$pg_url" --json "$dir/rows.json" --force > /dev/null ||
    die "liftc results could not export the rows of $n worker(s)"
  throwaway_pg_stop
  lines+=("$n $wall $dir/rows.json")
  echo "== $n worker(s): explored in $wall s" >&2
done

python3 - "${lines[@]}" <<'EOF'
import json, sys
valid = ("ok", "cut")  # statuses of validated rows (a cut row was timed once, validated)
print(f"{'workers':>7} {'candidates':>10} {'wall s':>7} {'evals/s':>8} {'x first':>7} {'best ms':>10} {'/ first':>7}")
first = None
for line in sys.argv[1:]:
    n, wall, path = line.split(" ", 2)
    with open(path) as f:
        rows = json.load(f)
    rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
    times = [r["time_ms"] for r in rows if r.get("status") in valid and r.get("time_ms") is not None]
    rate = len(rows) / float(wall)
    best = min(times) if times else None
    if first is None:
        first = (rate, best)
    ratio = f"{rate / first[0]:.2f}" if first[0] else "-"
    best_ratio = f"{best / first[1]:.3f}" if best and first[1] else "-"
    print(f"{n:>7} {len(rows):>10} {float(wall):>7.1f} {rate:>8.2f} {ratio:>7} "
          f"{(f'{best:.4f}' if best else '-'):>10} {best_ratio:>7}")
EOF
echo "logs and rows: $work" >&2
