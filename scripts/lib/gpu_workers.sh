# shellcheck shell=bash
# Sourced by the benchmarks that explore on the GPUs of this machine through `liftc worker`s,
# one per GPU, each seeing that GPU alone (CUDA_VISIBLE_DEVICES; PoCL ignores it: there every
# worker runs on the CPU): scripts/bench_conv_shape.sh --explore-gpus, scripts/bench_workers.sh.
#
#   gpu_workers_start LIFTC URL LOGDIR GPU... || exit 1   # LOGDIR/worker-gpuG.log each
#   trap gpu_workers_stop EXIT
#   gpu_workers_alive || ...                             # whether any still runs
#
# $gpu_worker_flags (an array, e.g. (--device nvidia)) goes to every worker.

gpu_worker_pids=() gpu_worker_gpus=() gpu_worker_logs="" gpu_worker_flags=()

# gpu_running PID: whether the child PID still runs (one that ended, not yet reaped, does not).
gpu_running() {
  local state
  state="$(sed 's/^.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1)"
  [[ -n "$state" && "$state" != Z ]]
}

# gpu_workers_alive: whether any worker still runs.
gpu_workers_alive() {
  local pid
  for pid in "${gpu_worker_pids[@]}"; do gpu_running "$pid" && return 0; done
  return 1
}

# gpu_worker_log_text: every worker's log, each under its GPU's name.
gpu_worker_log_text() {
  local g
  for g in "${gpu_worker_gpus[@]}"; do
    echo "== worker on GPU $g ($gpu_worker_logs/worker-gpu$g.log):"
    cat "$gpu_worker_logs/worker-gpu$g.log"
  done
}

# gpu_workers_start LIFTC URL LOGDIR GPU...: one `liftc worker` per GPU, claiming from the
# store at URL; returns once every one has probed its device and claims candidates (a line
# per worker on stderr), or status 1 with the log of a worker that ended before that.
gpu_workers_start() {
  local liftc="$1" url="$2" g i log
  gpu_worker_logs="$3"
  shift 3
  for g in "$@"; do
    # The store's URL through the environment: a password in it is not shown by ps.
    CUDA_VISIBLE_DEVICES="$g" LIFTC_WORKER_DB="$url" "$liftc" worker "${gpu_worker_flags[@]}" \
      > "$gpu_worker_logs/worker-gpu$g.log" 2>&1 &
    gpu_worker_pids+=($!)
    gpu_worker_gpus+=("$g")
  done
  for ((i = 0; i < ${#gpu_worker_gpus[@]}; i++)); do
    g="${gpu_worker_gpus[i]}" log="$gpu_worker_logs/worker-gpu$g.log"
    until grep -q "claiming its candidates" "$log"; do
      if ! gpu_running "${gpu_worker_pids[i]}"; then
        cat "$log" >&2
        echo "the worker on GPU $g ended before it claimed anything (above)" >&2
        return 1
      fi
      sleep 0.2
    done
    echo "[gpu $g] $(grep -m 1 "claiming its candidates" "$log")" >&2
  done
}

# gpu_workers_stop: SIGTERM to every worker (each gives back the candidate it holds), reaped.
gpu_workers_stop() {
  local pid
  for pid in "${gpu_worker_pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for pid in "${gpu_worker_pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  gpu_worker_pids=() gpu_worker_gpus=()
}

# gpu_workers_wait_for PID: waits for the child PID (an exploration on the workers) as long
# as a worker runs; when every worker has ended, stops PID (it would wait for them for ever)
# and returns 125 with their logs on stderr. Else PID's status.
gpu_workers_wait_for() {
  local pid="$1" status=0
  while [[ ${#gpu_worker_pids[@]} -gt 0 ]] && gpu_running "$pid"; do
    if ! gpu_workers_alive; then
      kill -TERM "$pid" 2> /dev/null || true
      wait "$pid" || true
      gpu_worker_log_text >&2
      return 125
    fi
    sleep 0.5
  done
  wait "$pid" || status=$?
  return "$status"
}
