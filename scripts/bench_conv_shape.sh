#!/usr/bin/env bash
# Benchmark of any convolution shape on top of `liftc explore`: for each shape given on the
# command line (C H W M K STRIDE PAD: C input channels, an H x W image, M kernels of K x K,
# the stride, the padding on every side; batch 1, fp32), in one command on one device:
#   1. the convolution is written as a .sr program from examples/vgg16/conv2.sr, its sizes,
#      stride and padding replaced (HWC image, [M][K][K][C] weights, bias; the output Ho x Wo
#      with Ho = (H + 2*PAD - K) / STRIDE + 1, rounded down as PyTorch does: a last row or
#      column the windows do not cover is cropped with a negative pad2D);
#   2. first, the same convolution at a small shape (C and M at most 8, H = W = --check-size,
#      the same K, stride and padding) is explored briefly (--check-evals) and its fastest
#      point rewritten, generated and run by `liftc run`, validated against the interpreter:
#      the whole path from exploration to the timed kernel is checked before it is used (a
#      shape that is already that small skips this step: step 3 validates it the same way);
#   3. `liftc explore FILE --search genetic --pareto --evals N` explores the shape (every
#      candidate's first run is validated against the interpreter); its fastest validated
#      point is rewritten (`liftc rewrite --strategy S --alternative A`), generated and timed
#      again by `liftc run` (--runs, OpenCL event times, the median), validated once more
#      against the interpreter's values of the shape's program (--reference);
#   4. beside it, on the same device: the hand-written OpenCL direct convolution and CLBlast's
#      Sconvgemm (scripts/bench/conv_refs.cpp, built with scripts/bench/build_refs.sh DIR and
#      given as --refs DIR; each checks its output against a CPU reference), and cuDNN fp32
#      with TF32 off (scripts/bench_torch_conv.py) when python3 has PyTorch with CUDA.
# Every shape's explorations (steps 2 and 3) run first, then cuDNN times every shape (in the
# same three processes), then one shape after another its two points are timed and validated
# and its references timed (the rest of steps 2 and 3, and 4), so that no exploration runs
# beside a timing.
# It prints a Markdown table, one row per shape: times in ms (liftc: OpenCL event times of
# its kernels, the median of --runs; hand-written and CLBlast: wall-clock time of --runs
# back-to-back calls, divided by --runs; cuDNN: CUDA events, the median, the fastest of three
# processes, as cuDNN's pick of an algorithm varies between processes: bench_torch_conv.py), liftc's GFLOP/s
# (direct convolution arithmetic, 2*Ho*Wo*M*C*K*K), the time ratios cuDNN ms / liftc ms,
# CLBlast ms / liftc ms and hand-written ms / liftc ms (above 1: liftc is faster), and each
# one's memory footprint in MiB: liftc's memory plan (inputs, output, every
# intermediate buffer), the hand-written kernel's inputs and output, CLBlast's plus its
# im2col buffer (K*K*C x Ho*Wo floats), cuDNN's peak GPU memory in one call (inputs, output,
# workspace). A column without its library says n/a.
#
# Usage: scripts/bench_conv_shape.sh C H W M K STRIDE PAD [C H W M K STRIDE PAD ...] [options]
# Options:
#   --liftc PATH        liftc (default build/liftc, else .gpu/liftc); its folder is put on
#                       LD_LIBRARY_PATH (a carried binary's libz3 lies beside it)
#   --device NAME       the OpenCL device: part of its name (default: the first)
#   --evals N           explore's budget of candidates per shape (default 300)
#   --search S          genetic (default) or random
#   --time S            explore's wall-time budget per shape in seconds (default: none)
#   --time-for TAG=S    this shape's budget in place of --time (repeatable; S from 1 to
#                       999999 seconds); TAG names the shape as the log does,
#                       CxHxWxM-kKsSTRIDEpPAD (64x224x224x64-k3s1p1): a shape whose search
#                       needs longer than the others. On an H100 VGG layer 2's Winograd
#                       points were found in 150 s by three seeds of three and in 70-90 s by
#                       none of three (docs/results.md, "Layer 2's search time")
#   --jobs N            explore's candidates at once (default: explore's; with --explore-gpus,
#                       two per GPU: one running on each worker, one ready behind it)
#   --explore-gpus "G..." explore on these NVIDIA GPUs at once (CUDA device numbers, e.g.
#                       "0 1 2 3"): one `liftc worker` per GPU (CUDA_VISIBLE_DEVICES=G, which
#                       NVIDIA's OpenCL driver honours: the worker sees that GPU alone),
#                       started before the explorations and stopped after them; every
#                       exploration, one shape after another, queues its candidates for them
#                       (`liftc explore --workers external`) in a PostgreSQL store (--db, else
#                       a throwaway server: --pg-bin), so that each shape's exploration runs on
#                       every GPU. The timing (steps 3 and 4) still runs afterwards, one shape
#                       after another on the device --device names, alone. Each worker's log is
#                       worker-gpuG.log in the work folder (-o); each shape's rows are exported
#                       from the store to layerTAG-SEARCH.json there
#   --db URL            with --explore-gpus: the PostgreSQL store the explorations queue in and
#                       keep their rows in (postgresql://USER@HOST/DATABASE: a team's server,
#                       whose rows outlive the command). Default: a throwaway cluster that
#                       this script makes (initdb, pg_ctl, on a Unix socket in a folder under
#                       /tmp; as root, run as the user liftc-pg, else nobody) and removes at the
#                       end, rows and all (scripts/lib/throwaway_postgres.sh)
#   --pg-bin DIR        the throwaway cluster's server: a folder with initdb, pg_ctl and postgres,
#                       or an archive of scripts/pack_postgres.sh (a machine without PostgreSQL:
#                       pack it on one that has it, carry DIR.tar.gz). Default: pg_config
#                       --bindir, else /usr/lib/postgresql/*/bin, else .gpu/postgres/bin, else
#                       .gpu/postgres.tar.gz
#   --strategies "S..." explore only these strategies, those of them that apply to each shape
#                       (default: every one that applies)
#   --runs N            timed runs of liftc's point, the references and cuDNN (default 20)
#   --depthwise         the shapes are depthwise convolutions (M = C: each channel convolved
#                       with its own K x K kernel and bias), written from
#                       examples/conv/forms/depthwise.sr; PyTorch times them with groups=C;
#                       the hand-written kernel and CLBlast are dense only (their columns say
#                       n/a); GFLOP/s count 2*Ho*Wo*C*K*K
#   --cuda-graph        cuDNN's time is that of replaying a CUDA graph of the call
#                       (bench_torch_conv.py --cuda-graph: no launch gaps), not of an eager call
#   --refs DIR          conv_refs and CLBlast (default .gpu/refs when it holds conv_refs)
#   --no-refs           time no hand-written kernel and no CLBlast (their columns say n/a)
#   --check-size N      H = W of the small validation shape (default 8; at least K)
#   --check-evals N     its exploration budget (default 8; 0 skips the small shape)
#   -o DIR              keep every program, exploration and the table (table.md) in DIR
#   --db-dir DIR        keep each shape's results store in DIR (layerTAG-SEARCH.db, kept
#                       between commands) and start each genetic exploration from the
#                       fastest points earlier commands stored there (`liftc explore
#                       --warm-start`): explorations of a shape add up over commands. The
#                       best point may then be an earlier command's; it is rewritten,
#                       timed and validated again in this one, beside the references.
#                       With --explore-gpus the rows are in --db's store (needed: a throwaway
#                       server keeps nothing), which the warm start reads; DIR gets the exports
#
# On PoCL (this machine; CLBlast compiles its kernels for about 30 s per process):
#   scripts/bench/build_refs.sh /tmp/refs
#   scripts/bench_conv_shape.sh 8 8 8 8 3 1 1 8 8 8 8 1 1 0 --evals 20 --runs 5 --refs /tmp/refs
# On the GPU machine (shared/DEVICE.md; binaries carried in .gpu/, refs in .gpu/refs):
#   OCL_ICD_FILENAMES=libnvidia-opencl.so.1 scripts/bench_conv_shape.sh 128 28 28 128 3 1 1 \
#     64 56 56 128 3 2 1 32 64 64 64 5 1 2 --device nvidia --evals 300 -o $OUT/shapes
# Explored on its four GPUs, one worker each, against a throwaway cluster from a packed
# PostgreSQL (here: scripts/pack_postgres.sh .gpu/postgres; carry .gpu/postgres.tar.gz):
#   ... --device nvidia --explore-gpus "0 1 2 3" --pg-bin .gpu/postgres.tar.gz -o $OUT/shapes
# The same on PoCL (CUDA_VISIBLE_DEVICES means nothing to it: both workers run on the CPU):
#   scripts/bench_conv_shape.sh 4 8 8 4 3 1 1 --evals 6 --check-evals 0 --runs 2 --no-refs --explore-gpus "0 1"
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
me="bench_conv_shape.sh"
die() {
  echo "$me: error: $*" >&2
  exit 1
}

liftc=""
device=""
evals=300
search=genetic
budget=""
shape_budgets=()  # TAG=S of --time-for
jobs=""
explore_gpus=""
strategies=""
runs=20
depthwise=""
cuda_graph=""
refs=""
no_refs=""
check_size=8
check_evals=8
out=""
db_dir=""
db_url=""
pg_bin=""
shapes=()
# Every number of the command line is read in base 10, whatever its leading zeros (010 is
# ten, 08 is eight: bash arithmetic would read them in octal), and has at most nine digits
# (bash arithmetic would overflow): is_count checks a word, base10 rewrites a variable
# holding one as its plain decimal digits, before any arithmetic or tag uses it.
is_count() { [[ "$1" =~ ^[0-9]{1,9}$ ]]; }
# base10 NAME MESSAGE: the variable NAME, a count, rewritten in base 10; else MESSAGE.
base10() {
  local -n number="$1"
  is_count "$number" || die "$2"
  number=$((10#$number))
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --liftc | --device | --evals | --search | --time | --time-for | --jobs | --explore-gpus | --strategies | --runs | --refs | \
      --check-size | --check-evals | -o | --db-dir | --db | --pg-bin)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      case "$1" in
        --liftc) liftc="$2" ;;
        --device) device="$2" ;;
        --evals) evals="$2" ;;
        --search) search="$2" ;;
        --time) budget="$2" ;;
        --time-for) shape_budgets+=("$2") ;;
        --jobs) jobs="$2" ;;
        --explore-gpus) explore_gpus="$2" ;;
        --strategies) strategies="$2" ;;
        --runs) runs="$2" ;;
        --refs) refs="$2" ;;
        --check-size) check_size="$2" ;;
        --check-evals) check_evals="$2" ;;
        -o) out="$2" ;;
        --db-dir) db_dir="$2" ;;
        --db) db_url="$2" ;;
        --pg-bin) pg_bin="$2" ;;
      esac
      shift 2
      ;;
    --no-refs)
      no_refs=yes
      shift
      ;;
    --depthwise)
      depthwise=yes
      shift
      ;;
    --cuda-graph)
      cuda_graph=yes
      shift
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*) die "unknown option $1" ;;
    *)
      is_count "$1" || die "a shape's sizes are non-negative integers of at most 9 digits, got '$1'"
      shapes+=("$((10#$1))")
      shift
      ;;
  esac
done
[[ ${#shapes[@]} -gt 0 ]] || die "give a shape: C H W M K STRIDE PAD (see --help)"
[[ $((${#shapes[@]} % 7)) -eq 0 ]] || die "a shape is 7 numbers, C H W M K STRIDE PAD; got ${#shapes[@]} number(s)"
base10 evals "--evals: not a count: '$evals'"
base10 runs "--runs: not a count: '$runs'"
base10 check_size "--check-size: not a count: '$check_size'"
base10 check_evals "--check-evals: not a count: '$check_evals'"
[[ -z "$jobs" ]] || base10 jobs "--jobs: not a count: '$jobs'"
gpu_numbers=""
for g in $explore_gpus; do
  base10 g "--explore-gpus takes CUDA device numbers, got '$g'"
  gpu_numbers="${gpu_numbers:+$gpu_numbers }$g"
done
explore_gpus="$gpu_numbers"
if [[ -z "$explore_gpus" ]]; then
  [[ -z "$db_url" && -z "$pg_bin" ]] || die "--db and --pg-bin are the store of --explore-gpus' workers; give --explore-gpus"
else
  [[ -z "$db_url" || -z "$pg_bin" ]] || die "--db names a server, --pg-bin starts one: give one of them"
  [[ -z "$db_url" || "$db_url" =~ ^postgres(ql)?:// ]] || die "--db takes a PostgreSQL URL (postgresql://USER@HOST/DATABASE), got '$db_url'"
  [[ -z "$db_dir" || -n "$db_url" ]] ||
    die "--db-dir with --explore-gpus warm-starts from --db's store: give --db URL (a throwaway server keeps no rows)"
  # shellcheck source=scripts/lib/throwaway_postgres.sh
  source "$root/scripts/lib/throwaway_postgres.sh"
  if [[ -z "$db_url" ]]; then pg_bin="$(throwaway_pg_bin "$pg_bin")" || die "cannot start a PostgreSQL server (above)"; fi
fi
[[ "$evals" -ge 1 && "$runs" -ge 1 ]] || die "--evals and --runs must be at least 1"
[[ "$search" == genetic || "$search" == random ]] || die "--search is genetic or random, got '$search'"
for ((i = 0; i < ${#shapes[@]}; i += 7)); do
  read -r C H W M K S P <<< "${shapes[*]:i:7}"
  [[ $C -ge 1 && $H -ge 1 && $W -ge 1 && $M -ge 1 && $K -ge 1 && $S -ge 1 ]] ||
    die "shape $C $H $W $M $K $S $P: C, H, W, M, K and the stride must be at least 1"
  [[ $((H + 2 * P)) -ge $K && $((W + 2 * P)) -ge $K ]] || die "shape $C $H $W $M $K $S $P: the padded image is smaller than the kernel"
  [[ -z "$depthwise" || $M -eq $C ]] || die "shape $C $H $W $M $K $S $P: a depthwise convolution (--depthwise) has M = C"
done
# shape_tag I: the name of shape I (its index in shapes), as the log and --time-for write it.
shape_tag() {
  local C H W M K S P
  read -r C H W M K S P <<< "${shapes[*]:$1:7}"
  echo "${C}x${H}x${W}x${M}-k${K}s${S}p${P}"
}
all_tags=""
for ((i = 0; i < ${#shapes[@]}; i += 7)); do all_tags="$all_tags $(shape_tag "$i")"; done
for ((b = 0; b < ${#shape_budgets[@]}; b++)); do
  tb="${shape_budgets[b]}"
  # Seconds in decimal (10#: 08 is 8, not an octal error), at most six digits (no overflow).
  [[ "$tb" =~ ^([^=[:space:]]+)=([0-9]{1,6})$ ]] && ((10#${BASH_REMATCH[2]} >= 1)) ||
    die "--time-for takes TAG=SECONDS (seconds from 1 to 999999), got '$tb'"
  [[ " $all_tags " == *" ${BASH_REMATCH[1]} "* ]] || die "--time-for $tb: no shape ${BASH_REMATCH[1]}; the shapes are$all_tags"
  shape_budgets[b]="${BASH_REMATCH[1]}=$((10#${BASH_REMATCH[2]}))"
done
# time_budget TAG: --time-for's seconds for the shape TAG (the last given), else --time's.
time_budget() {
  local tb seconds="$budget"
  for tb in "${shape_budgets[@]}"; do [[ "${tb%%=*}" == "$1" ]] && seconds="${tb#*=}"; done
  echo "$seconds"
}

if [[ -z "$liftc" ]]; then
  liftc="$root/build/liftc"
  [[ -x "$liftc" || ! -x "$root/.gpu/liftc" ]] || liftc="$root/.gpu/liftc"
fi
[[ -x "$liftc" ]] || die "no liftc at $liftc (build it, or give --liftc PATH)"
[[ -z "$no_refs" || -z "$refs" ]] || die "--refs and --no-refs exclude each other"
[[ -z "$depthwise" || -z "$refs" ]] || die "--refs times dense convolutions only; --depthwise takes none"
[[ -z "$depthwise" ]] || no_refs=yes
if [[ -z "$refs" && -z "$no_refs" && -x "$root/.gpu/refs/conv_refs" ]]; then refs="$root/.gpu/refs"; fi
[[ -z "$refs" || -x "$refs/conv_refs" ]] || die "no conv_refs in $refs (build it: scripts/bench/build_refs.sh $refs)"
bin="$(cd "$(dirname "$liftc")" && pwd)"
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIFTC_RULES="${LIFTC_RULES:-$root/rules}" LIFTC_TARGETS="${LIFTC_TARGETS:-$root/rules/targets}"
# shellcheck source=scripts/lib/gpu_workers.sh
source "$root/scripts/lib/gpu_workers.sh"
temporary_work=""
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  gpu_workers_stop
  if [[ -n "$explore_gpus" ]]; then throwaway_pg_stop; fi
  if [[ -n "$temporary_work" ]]; then rm -rf "$temporary_work"; fi
}
trap cleanup EXIT
if [[ -n "$out" ]]; then
  [[ ! -e "$out" || -d "$out" ]] || die "-o $out is not a folder"
  mkdir -p "$out"
  work="$(cd "$out" && pwd)"
else
  work="$(mktemp -d)"
  temporary_work="$work"
fi
if [[ -n "$db_dir" ]]; then
  [[ "$search" == genetic ]] || die "--db-dir starts genetic explorations from the stores' points; it takes --search genetic"
  [[ ! -e "$db_dir" || -d "$db_dir" ]] || die "--db-dir $db_dir is not a folder"
  mkdir -p "$db_dir" || die "--db-dir $db_dir: cannot create the folder"
  db_dir="$(cd "$db_dir" && pwd)"
fi
stores="${db_dir:-$work}"  # where each shape's results store is (explore_summary.py reads it there)
dev=()
[[ -n "$device" ]] && dev=(--device "$device")
gpu_worker_flags=("${dev[@]}")
explore_flags=(--search "$search" --pareto -q)
gpus=()
if [[ -n "$explore_gpus" ]]; then
  read -r -a gpus <<< "$explore_gpus"
  [[ -n "$jobs" ]] || jobs=$((2 * ${#gpus[@]}))
  explore_flags+=(--workers external)
fi
[[ -n "$jobs" ]] && explore_flags+=(--jobs "$jobs")
torch=""
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then torch=yes; fi

# write_program FILE C H W M K S P: the convolution as a .sr program, made from
# examples/vgg16/conv2.sr (the paper's Listing 3 with a 3x3 kernel, stride 1, padding 1), or
# with --depthwise from examples/conv/forms/depthwise.sr (no M: one kernel per channel), with
# the shape's sizes, stride and padding. A last row or column that no window covers is
# cropped (pad2D by a negative amount), as PyTorch rounds the output size down.
write_program() {
  local file="$1" C="$2" H="$3" W="$4" M="$5" K="$6" S="$7" P="$8"
  local template="$root/examples/vgg16/conv2.sr" sizes="size C = $C, H = $H, W = $W, M = $M, K = $K"
  [[ -z "$depthwise" ]] || template="$root/examples/conv/forms/depthwise.sr" sizes="size C = $C, H = $H, W = $W, K = $K"
  [[ -r "$template" ]] || die "no $template to write the programs from"
  local bottom=$((P - (H + 2 * P - K) % S)) right=$((P - (W + 2 * P - K) % S))
  local slide="slide2D(K, K, $S, $S, pad2D($P, $bottom, $P, $right, 0.0, image))"
  {
    echo "// Written by scripts/bench_conv_shape.sh from ${template#"$root/"}: C = $C input channels,"
    echo "// image ${H}x${W}, M = $M kernels of ${K}x${K}${depthwise:+ (depthwise)}, stride $S, padding $P;"
    echo "// output $(((H + 2 * P - K) / S + 1))x$(((W + 2 * P - K) / S + 1))x$M."
    sed -e '/^\/\//d' -e "s/^size C = .*/$sizes/" \
      -e "s/slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image))/$slide/" "$template"
  } > "$file"
  if ! grep -qF "$slide" "$file" || ! grep -qx "$sizes" "$file"; then
    die "${template#"$root/"} is no longer in the form this script rewrites (size C = ..., slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))"
  fi
}

# explore_best FILE TAG EVALS [SECONDS]: explores FILE (for at most SECONDS) into
# $work/layerTAG-SEARCH.db (and its front to $work/front-TAG); writes its fastest validated
# point to $work/best-TAG.tsv, as scripts/explore_summary.py --best-flags reads it.
explore_best() {
  local file="$1" tag="$2" n="$3" seconds="${4:-}"
  local log="$work/explore-$tag.txt" chosen=() s why
  # Of the strategies asked for, those that apply to this shape (Winograd needs a 3x3
  # kernel at stride 1; `liftc explore -s` refuses one that applies to nothing), and why not.
  for s in $strategies; do
    if why=$("$liftc" rewrite "$file" --strategy "$s" --alternative 1 2>&1 > /dev/null); then
      chosen+=(-s "$s")
    else
      echo "$tag: $s does not apply (${why#error: }); explored without it" >&2
    fi
  done
  [[ -z "$strategies" || ${#chosen[@]} -gt 0 ]] || die "none of the strategies \"$strategies\" applies to $file"
  local warm=() limit=() db="$stores/layer$tag-$search.db"
  [[ -n "$db_dir" ]] && warm=(--warm-start)
  [[ -n "$seconds" ]] && limit=(--time "$seconds")
  [[ -z "$explore_gpus" ]] || db="$db_url"
  "$liftc" explore "$file" "${dev[@]}" "${explore_flags[@]}" "${chosen[@]}" "${warm[@]}" "${limit[@]}" --evals "$n" \
    --db "$db" -o "$work/front-$tag" --force > "$log" 2>&1 &
  local status=0
  # With workers, an exploration whose every worker ended would wait for them for ever.
  gpu_workers_wait_for $! || status=$?
  [[ $status -ne 125 ]] || die "every worker ended while liftc explore $file ran (their logs above)"
  if [[ $status -ne 0 ]]; then
    cat "$log" >&2
    die "liftc explore $file failed (above)"
  fi
  if [[ -n "$explore_gpus" ]]; then
    # This file's rows (every run of it in the store: this command's), for explore_summary.py.
    "$liftc" results --db "$db_url" --program "$file" --json "$stores/layer$tag-$search.json" --force > /dev/null ||
      die "liftc results could not export the rows of $file from the store"
  fi
  python3 "$root/scripts/explore_summary.py" "$stores" "$tag" --best-flags > "$work/best-$tag.tsv" ||
    die "no validated point in the exploration of $file ($log)"
}

# read_best TAG: sets strategy, alternative, flags (`liftc run` flags) and explored (ms) to
# the point explore_best wrote.
read_best() {
  IFS=$'\t' read -r strategy alternative flags explored _ < "$work/best-$1.tsv"
}

# time_point SOURCE OUT: the point of explore_best rewritten into OUT, generated, run (--runs)
# and validated against the interpreter's values of SOURCE; sets point_ms and point_bytes
# (the memory plan's global footprint).
time_point() {
  local source="$1" program="$2" text
  "$liftc" rewrite "$source" --strategy "$strategy" --alternative "$alternative" > "$program" ||
    die "liftc rewrite $source --strategy $strategy --alternative $alternative failed"
  # shellcheck disable=SC2086  # the flags are words: --params a=1,b=2 --local 8,4,1 --unroll
  text=$("$liftc" run "$program" $flags "${dev[@]}" --reference "$source" --warmup 2 --runs "$runs" 2>&1) ||
    { echo "$text" >&2; die "liftc run $program $flags failed (above)"; }
  grep -q "matches the interpreter" <<< "$text" || { echo "$text" >&2; die "$program does not match the interpreter"; }
  point_ms=$(awk '/^time: median/ { print $3 }' <<< "$text")
  point_bytes=$(sed -n 's/^memory: global .* (\([0-9]*\) bytes).*/\1/p' <<< "$text")
}

mib() { awk -v b="$1" 'BEGIN { if (b == "") print "n/a"; else printf "%.4g", b / 1048576 }'; }
ratio() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "" || t == "") print "n/a"; else printf "%.2f", r / t }'; }
ms() { awk -v t="$1" 'BEGIN { if (t == "") print "n/a"; else printf "%.4f", t }'; }

"$liftc" devices > "$work/devices.txt" || die "liftc devices failed"
head -n 3 "$work/devices.txt" >&2

# check_shape I: the small shape that validates shape I's exploration path ("C H W M", empty
# when the shape is that small).
check_shape() {
  local C H W M K S P small sc sm
  read -r C H W M K S P <<< "${shapes[*]:$1:7}"
  small=$((check_size > K ? check_size : K)) sc=$((C < 8 ? C : 8)) sm=$((M < 8 ? M : 8))
  [[ -z "$depthwise" ]] || sm=$sc
  if [[ "$check_evals" -gt 0 && "$sc $small $small $sm" != "$C $H $W $M" ]]; then echo "$sc $small $small $sm"; fi
}

# explore_shape I: the small shape's and shape I's explorations (their best-TAG.tsv).
explore_shape() {
  local C H W M K S P tag small
  read -r C H W M K S P <<< "${shapes[*]:$1:7}"
  tag=$(shape_tag "$1") small=$(check_shape "$1")
  echo "== $tag: exploring" >&2
  if [[ -n "$small" ]]; then
    read -r c h w m <<< "$small"
    write_program "$work/check-$tag.sr" "$c" "$h" "$w" "$m" "$K" "$S" "$P"
    explore_best "$work/check-$tag.sr" "check-$tag" "$check_evals" "$budget"
  fi
  write_program "$work/conv-$tag.sr" "$C" "$H" "$W" "$M" "$K" "$S" "$P"
  explore_best "$work/conv-$tag.sr" "$tag" "$evals" "$(time_budget "$tag")"
}

# Step 1, every shape's exploration, one after another. With --explore-gpus each runs on
# every GPU listed: its candidates go to a work queue in the PostgreSQL store, and one
# `liftc worker` per GPU (seeing that GPU alone) runs them; the workers stop before step 2.
n_shapes=$((${#shapes[@]} / 7))
if [[ -n "$explore_gpus" ]]; then
  if [[ -z "$db_url" ]]; then
    throwaway_pg_start "$pg_bin" || die "cannot start a PostgreSQL server from $pg_bin (above)"
    db_url="$pg_url"
    echo "== a throwaway PostgreSQL server in $pg_folder (from $pg_bin_used)" >&2
  fi
  gpu_workers_start "$liftc" "$db_url" "$work" "${gpus[@]}" || die "a worker did not start"
fi
for ((s = 0; s < n_shapes; s++)); do explore_shape $((7 * s)); done
if [[ -n "$explore_gpus" ]]; then
  gpu_workers_stop
  for g in "${gpus[@]}"; do echo "[gpu $g] $(tail -n 1 "$work/worker-gpu$g.log")" >&2; done
fi

# Step 2, one shape after another on the device --device names, with nothing else running:
# each best point timed and validated, then the references.
# cuDNN, every shape in the same processes (bench_torch_conv.py --batch: PyTorch and CUDA start
# once per process, not once per shape and process), before the points and references.
cudnn_lines=()
if [[ -n "$torch" ]]; then
  for ((i = 0; i < ${#shapes[@]}; i += 7)); do
    read -r C H W M K S P <<< "${shapes[*]:i:7}"
    echo "$C $H $W $M $runs $K $S $P ${depthwise:+$C}"
  done > "$work/cudnn-shapes.txt"
  echo "== cuDNN: timing every shape${cuda_graph:+ (CUDA graphs)}" >&2
  graph=()
  [[ -z "$cuda_graph" ]] || graph=(--cuda-graph)
  mapfile -t cudnn_lines < <(python3 "$root/scripts/bench_torch_conv.py" --batch --memory "${graph[@]}" < "$work/cudnn-shapes.txt")
  [[ ${#cudnn_lines[@]} -eq $n_shapes ]] || die "bench_torch_conv.py timed ${#cudnn_lines[@]} of $n_shapes shape(s) (above)"
fi

cudnn_name="cuDNN${cuda_graph:+ (CUDA graph)}"
header="| shape C H W M K stride pad${depthwise:+ (depthwise)} | output | liftc ms (strategy #alternative, point) | liftc GFLOP/s | $cudnn_name ms | CLBlast ms | hand-written ms |"
header="$header $cudnn_name ms / liftc ms | CLBlast ms / liftc ms | hand-written ms / liftc ms | liftc MiB | cuDNN MiB | CLBlast MiB | hand-written MiB |"
table="$header"$'\n'"| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for ((i = 0; i < ${#shapes[@]}; i += 7)); do
  read -r C H W M K S P <<< "${shapes[*]:i:7}"
  tag=$(shape_tag "$i")
  Ho=$(((H + 2 * P - K) / S + 1))
  Wo=$(((W + 2 * P - K) / S + 1))
  echo "== $tag: output ${Ho}x${Wo}x$M" >&2

  if [[ -n "$(check_shape "$i")" ]]; then
    read_best "check-$tag"
    time_point "$work/check-$tag.sr" "$work/check-$tag-best.sr"
    echo "validated at $(check_shape "$i" | tr ' ' x): $strategy #$alternative $flags matches the interpreter" >&2
  fi

  read_best "$tag"
  time_point "$work/conv-$tag.sr" "$work/conv-$tag-best.sr"
  best="$point_ms" best_bytes="$point_bytes"
  echo "liftc: $best ms ($strategy #$alternative $flags; explored $explored ms), $best_bytes bytes" >&2

  hand="" blas="" hand_bytes="" blas_bytes=""
  if [[ -n "$refs" ]]; then
    line=$("$refs/conv_refs" "$device" "$runs" "$C" "$H" "$W" "$M" "$K" "$S" "$P" 2> "$work/refs-$tag.txt" | tail -n 1) ||
      { cat "$work/refs-$tag.txt" >&2; die "conv_refs failed on $tag (above)"; }
    read -r _ _ _ _ _ _ _ hand _ blas hand_bytes blas_bytes <<< "$line"
  fi
  cudnn="" cudnn_bytes=""
  if [[ -n "$torch" ]]; then read -r cudnn cudnn_bytes <<< "${cudnn_lines[i / 7]}"; fi
  reads=$C  # the channels each output value reads
  [[ -z "$depthwise" ]] || reads=1
  gflops=$(awk -v t="$best" -v f="$((2 * Ho * Wo * M * reads * K * K))" 'BEGIN { printf "%.2f", f / (t * 1e-3) / 1e9 }')
  row="| $C $H $W $M $K $S $P | ${Ho}x${Wo}x$M | $(ms "$best") ($strategy #$alternative $flags) | $gflops |"
  row="$row $(ms "$cudnn") | $(ms "$blas") | $(ms "$hand") | $(ratio "$cudnn" "$best") | $(ratio "$blas" "$best") |"
  row="$row $(ratio "$hand" "$best") | $(mib "$best_bytes") | $(mib "$cudnn_bytes") | $(mib "$blas_bytes") | $(mib "$hand_bytes") |"
  echo "$row" >&2
  table="$table"$'\n'"$row"
  if [[ -n "$out" ]]; then echo "$table" > "$work/table.md"; fi
done
echo "$table"
