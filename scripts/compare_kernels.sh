#!/usr/bin/env bash
# Compares the code two liftc binaries generate (say, a release and a change to it): for
# every example program and every strategy that applies to it, the same alternatives at
# the same tuning points are rewritten and compiled by both, and what `liftc compile`
# writes is compared byte for byte. A point is identical when its kernels.cl, its
# plan.json (the launch plan) and what compile prints (each kernel's global and local
# NDRange, memory, build options) are; the host program (main.cpp, CMakeLists.txt) is
# compared and counted apart, since it changes with the host templates, not the kernels.
# The lowered programs (`liftc rewrite`'s output) are compared too, as a hint to where a
# difference comes from.
#
# Usage: scripts/compare_kernels.sh [options] OLD_LIFTC NEW_LIFTC [EXAMPLE...]
#   EXAMPLE...          .sr programs (default: every .sr under examples/ whose sizes all
#                       have values); a network (`liftc space` prints it layer by layer)
#                       is compared layer by layer, each layer written as a program of
#                       its own (the network's sizes, inputs and functions, the earlier
#                       definitions it reads as inputs of the type `liftc check` gives);
#                       a program under a lowlevel/ folder is compiled as written
#   --old-rules DIR     rules of OLD_LIFTC (default: rules/ beside it or beside its folder)
#   --new-rules DIR     rules of NEW_LIFTC (same default)
#   --samples K         tuning points per alternative (default 2)
#   --alternatives A    the first A alternatives of each strategy (default 4)
#   --target T          the target profile the points are sampled for (default mali-g72)
#   --seed S            seed of `liftc space`'s sampler (default 1)
#   --jobs J            strategies compared at once (default 2); every liftc runs under nice
#   --work DIR          where the programs and kernels go (default: a new folder in
#                       $TMPDIR); kept, so that a difference can be inspected
#   --verify-numbering  also check, for every alternative compared, that `liftc space` of
#                       the lowered program (strategy id) counts as many valid points as
#                       `liftc space` gave the strategy's alternative of that number (that
#                       both commands number alternatives alike); slower
#   --timeout S         seconds each liftc may take (default 600)
#   --nice N            niceness of every liftc run (default 10)
#   --table             only the table of what an earlier run (--work, maybe stopped)
#                       compared; OLD_LIFTC and NEW_LIFTC may be left out
#   --prepare           only OLD_LIFTC's side (points, lowered programs, kernels) into the
#                       work folder; NEW_LIFTC is not run (give '-'); a later run with the
#                       same --work reuses it and makes only NEW_LIFTC's side
#
# The points are sampled once, by OLD_LIFTC (`liftc space FILE --samples K --seed S -t T`,
# every strategy that applies, so one sampler run per program; an alternative without a
# valid point is listed, not compiled); each binary then lowers the alternative itself
# (`liftc rewrite FILE -s S --all`, alternative N as `--alternative N` prints it) and
# compiles it at each point (`liftc compile ALT.sr FLAGS -o DIR`). CLBlast alternatives
# (library routines, no rewrite) are not compared. A program under lowlevel/ is compiled
# at its own values and at the points of `liftc space FILE -s id --whole-program`.
#
# Prints a Markdown table, one row per program (or layer) and strategy: alternatives
# compared, points, identical, differing (the first differing file kept under the work
# folder, beside OLD's: .../pN/new/kernels.cl against .../pN/old/kernels.cl), failed by
# both alike, alternatives whose lowered programs differ, points whose host program
# differs; then the totals. Exits 1 when a point's kernels differ or a strategy could not
# be compared in full (a rewrite failed, NEW lacks an alternative, the run stopped).
#
# Example (OLD's side first, while NEW is being built; then NEW's):
#   scripts/compare_kernels.sh --prepare --work /tmp/kc old/build/liftc -
#   scripts/compare_kernels.sh --work /tmp/kc old/build/liftc build/liftc
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
old_rules=""
new_rules=""
samples=2
alternatives=4
target="mali-g72"
seed=1
jobs=2
work=""
verify=0
prepare=0
table_only=0
niceness=10
limit=600
positional=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --old-rules) old_rules="$2"; shift 2 ;;
    --new-rules) new_rules="$2"; shift 2 ;;
    --samples) samples="$2"; shift 2 ;;
    --alternatives) alternatives="$2"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --verify-numbering) verify=1; shift ;;
    --prepare) prepare=1; shift ;;
    --table) table_only=1; shift ;;
    --nice) niceness="$2"; shift 2 ;;
    --timeout) limit="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -?*) echo "compare_kernels.sh: unknown option '$1'" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
((table_only)) && positional+=(- -)
[[ ${#positional[@]} -ge 2 ]] || { echo "usage: scripts/compare_kernels.sh [options] OLD_LIFTC NEW_LIFTC [EXAMPLE...] (--help)" >&2; exit 2; }
[[ "$niceness" =~ ^[0-9]+$ ]] || { echo "compare_kernels.sh: --nice takes a whole number, not '$niceness'" >&2; exit 2; }
for n in samples alternatives jobs limit; do
  [[ "${!n}" =~ ^[1-9][0-9]*$ ]] || { echo "compare_kernels.sh: --$n takes a positive integer, not '${!n}'" >&2; exit 2; }
done
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "compare_kernels.sh: --seed takes a whole number, not '$seed'" >&2; exit 2; }

absolute() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
# The rules folder beside a binary (bin/rules) or beside its folder (build/../rules).
rules_beside() {
  local dir
  dir="$(dirname "$1")"
  if [[ -d "$dir/rules" ]]; then echo "$dir/rules"
  elif [[ -d "$dir/../rules" ]]; then (cd "$dir/../rules" && pwd)
  else echo "compare_kernels.sh: no rules folder beside $1: give it" >&2; return 1
  fi
}
old="$(absolute "${positional[0]}")"
new="$(absolute "${positional[1]}")"
sides=(old new)
if ((prepare)); then sides=(old); new="(not run: --prepare)"; new_rules="-"; fi
if ((table_only)); then sides=(); old_rules="-"; new_rules="-"; fi
if ((!table_only)); then
  [[ -x "$old" ]] || { echo "compare_kernels.sh: no liftc at $old" >&2; exit 2; }
  old_rules="$(absolute "${old_rules:-$(rules_beside "$old")}")"
fi
if ((!prepare && !table_only)); then
  [[ -x "$new" ]] || { echo "compare_kernels.sh: no liftc at $new" >&2; exit 2; }
  new_rules="$(absolute "${new_rules:-$(rules_beside "$new")}")"
fi
((table_only)) || for dir in "$old_rules" "${new_rules/#-/$old_rules}"; do [[ -d "$dir" ]] || { echo "compare_kernels.sh: no rules folder $dir" >&2; exit 2; }; done

programs=("${positional[@]:2}")
if [[ ${#programs[@]} -eq 0 ]]; then
  while IFS= read -r f; do programs+=("$f"); done < <(find "$root/examples" -name '*.sr' | sort)
fi
work="${work:-$(mktemp -d "${TMPDIR:-/tmp}/compare-kernels.XXXXXX")}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

# liftc SIDE SUBCOMMAND ARGS...: the binary of SIDE (old or new) with its rules, niced.
liftc() {
  local side="$1" bin rules
  shift
  if [[ "$side" == old ]]; then bin="$old"; rules="$old_rules"; else bin="$new"; rules="$new_rules"; fi
  LIFTC_RULES="$rules" nice -n "$niceness" timeout "$limit" "$bin" "$@"
}
# liftc_rules SIDE SUBCOMMAND ARGS...: a subcommand that takes --rules, given explicitly.
liftc_rules() {
  local side="$1" sub="$2"
  shift 2
  if [[ "$side" == old ]]; then liftc old "$sub" --rules "$old_rules" "$@"; else liftc new "$sub" --rules "$new_rules" "$@"; fi
}

# space_points FILE: `liftc space`'s alternatives as lines STRATEGY<TAB>N<TAB>FLAGS, one a
# sampled point ('-' for an alternative without a valid point, 'library' for CLBlast's).
space_points() {
  awk '
    /^==== layer / { print "network\t-\t-"; exit }
    /^== strategy / {
      strategy = $3; sub(/,$/, "", strategy); n = $5
      library = ($0 ~ /\(CLBlast\)/); sampling = 0
      print strategy "\t" n "\t" (library ? "library" : "-")
      next
    }
    /^samples \(/ { sampling = !library; next }
    sampling && /^  / { line = $0; sub(/^  /, "", line); if (line == "(no parameters)") line = ""; print strategy "\t" n "\t=" line; next }
    { sampling = 0 }
  ' "$1"
}

# write_layers NETWORK DIR: each definition that is not a function as a program of its own,
# DIR/NAME.sr: the network's sizes and functions, the inputs it (or a function) names, the
# earlier definitions it reads as inputs (of the types `liftc check` gives), the definition.
write_layers() {
  local network="$1" dir="$2"
  liftc old check "$network" > "$dir/types.txt"
  awk -v dir="$dir" '
    FNR == NR { if ($1 == "def" && $0 !~ /: function/) { def = $2; sub(/^[^:]*: /, "", $0); type[def] = $0 } ; next }
    function flush() { if (item != "") { items[++count] = item; item = "" } }
    /^(size|input|def)[ \t]/ { flush(); item = $0; next }
    /^[ \t)]/ && item != "" { item = item "\n" $0; next }
    { flush() }
    END {
      flush()
      for (i = 1; i <= count; ++i) {
        split(items[i], words, /[ \t(=:]+/)
        kind[i] = words[1]; names[i] = words[2]
        value[i] = (kind[i] == "def" && items[i] !~ /^def[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)
      }
      for (l = 1; l <= count; ++l) {
        if (!value[l]) continue
        file = dir "/" names[l] ".sr"
        uses = items[l]
        for (i = 1; i <= count; ++i) if (kind[i] == "def" && !value[i]) uses = uses "\n" items[i]
        for (i = 1; i <= count; ++i)
          if (kind[i] == "size" || (kind[i] == "def" && !value[i]) ||
              (kind[i] == "input" && match(uses, "(^|[^A-Za-z0-9_])" names[i] "([^A-Za-z0-9_]|$)")))
            print items[i] > file
        for (i = 1; i < l; ++i)
          if (value[i] && match(items[l], "(^|[^A-Za-z0-9_])" names[i] "([^A-Za-z0-9_]|$)"))
            print "input " names[i] " : " type[names[i]] > file
        print items[l] > file
        close(file)
        print names[l]
      }
    }
  ' "$dir/types.txt" "$network"
}

# split_alternatives ALL DIR: `liftc rewrite --all`'s alternatives 1..A as DIR/altN.sr
# (each as `--alternative N` prints it: its tuning parameters, then the program).
split_alternatives() {
  awk -v dir="$2" -v last="$alternatives" '
    # a line is written once the next is read: the blank line before a marker is not the program'"'"'s
    function put() { if (held && file != "") print line > file; held = 0 }
    /^\/\/ ---- alternative [0-9]+ of [0-9]+$/ {
      if (line != "") put()
      held = 0
      if (file != "") close(file)
      n = $4; file = (n <= last) ? dir "/alt" n ".sr" : ""
      next
    }
    { put(); line = $0; held = 1 }
    END { put() }
  ' "$1"
}

# compare_point DIR: OLD's and NEW's outputs in DIR/old and DIR/new. Prints the kernels'
# verdict, from what compile printed (each kernel's NDRange, memory, build options),
# kernels.cl and plan.json (the launch plan): 'same', 'differ FILE' (the first that
# differs) or 'failed' (both failed with the same message); a tab; then the host program's
# (every other file: main.cpp, CMakeLists.txt): 'host-same' or 'host-differs FILE'.
compare_point() {
  local dir="$1" f host="host-same"
  local -i old_rc new_rc
  old_rc="$(cat "$dir/old.rc")"
  new_rc="$(cat "$dir/new.rc")"
  if ((old_rc != 0 || new_rc != 0)); then
    if ((old_rc != 0 && new_rc != 0)) && cmp -s "$dir/old.stdout" "$dir/new.stdout"; then printf 'failed\t%s\n' "$host"
    else printf 'differ %s (exit %d, %d)\t%s\n' "$dir/$( ((old_rc != 0)) && echo old || echo new).stdout" "$old_rc" "$new_rc" "$host"
    fi
    return
  fi
  for f in $( (cd "$dir/old" && find . -type f; cd "$dir/new" && find . -type f) | sed 's#^\./##' | sort -u); do
    [[ "$f" == kernels.cl || "$f" == plan.json ]] && continue
    if ! cmp -s "$dir/old/$f" "$dir/new/$f"; then host="host-differs $dir/new/$f"; break; fi
  done
  if ! cmp -s "$dir/old.stdout" "$dir/new.stdout"; then printf 'differ %s\t%s\n' "$dir/new.stdout" "$host"; return; fi
  for f in kernels.cl plan.json; do
    if ! cmp -s "$dir/old/$f" "$dir/new/$f"; then printf 'differ %s\t%s\n' "$dir/new/$f" "$host"; return; fi
  done
  printf 'same\t%s\n' "$host"
}

# compile_both LOW_OLD LOW_NEW DIR FLAGS: both binaries compile at FLAGS into DIR/old and
# DIR/new (what they print in DIR/old.stdout, DIR/new.stdout); OLD's output is reused when
# an earlier run (--prepare) left it, NEW's is made again.
compile_both() {
  local low_old="$1" low_new="$2" dir="$3" side low
  local -a flags
  read -r -a flags <<< "$4"
  mkdir -p "$dir"
  printf '%s\n' "$4" > "$dir/flags"
  for side in "${sides[@]}"; do
    if [[ "$side" == old ]]; then
      [[ -f "$dir/old.rc" ]] && continue
      low="$low_old"
    else
      low="$low_new"
    fi
    rm -rf "${dir:?}/$side" "$dir/$side.stdout" "$dir/$side.rc"
    local -i rc=0
    liftc "$side" compile "$low" "${flags[@]}" -o "$dir/$side" > "$dir/$side.stdout" 2>&1 || rc=$?
    sed -i "s#$dir/$side#OUT#g" "$dir/$side.stdout"
    echo "$rc" > "$dir/$side.rc"
  done
}

# rewrite_side SIDE FILE STRATEGY DIR: SIDE's `liftc rewrite --all`, its alternatives split
# into DIR/SIDE/altN.sr (OLD's reused when an earlier run left them); fails as rewrite does.
rewrite_side() {
  local side="$1" file="$2" strategy="$3" dir="$4"
  [[ "$side" == old && -f "$dir/old.rewritten" ]] && return
  rm -rf "${dir:?}/$side" "$dir/$side.rewritten"
  mkdir -p "$dir/$side"
  liftc_rules "$side" rewrite "$file" -s "$strategy" --all > "$dir/$side.all.sr" 2> "$dir/$side.rewrite.err" || return 1
  split_alternatives "$dir/$side.all.sr" "$dir/$side"
  touch "$dir/$side.rewritten"
}

# compare_strategy LABEL FILE STRATEGY POINTS DIR: POINTS are lines N<TAB>FLAGS (FLAGS '-':
# alternative N has no valid point); writes DIR/results.tsv, one line a point: LABEL,
# STRATEGY, N, the point's number, the result, whether the lowered programs are equal (and
# one line an alternative without points or a rewrite that failed).
compare_strategy() {
  local label="$1" file="$2" strategy="$3" points="$4" dir="$5" side n flags result
  local -A lowered=() count=()
  local -a lines=()
  mkdir -p "$dir"
  # until the strategy's results replace it (a run stopped, or an unexpected error here)
  ((prepare)) || echo "$label	$strategy	-	-	incomplete $dir" > "$dir/results.tsv"
  for side in "${sides[@]}"; do
    if ! rewrite_side "$side" "$file" "$strategy" "$dir"; then
      echo "$label	$strategy	-	-	rewrite-failed $side $dir/$side.rewrite.err" > "$dir/results.tsv"
      return
    fi
  done
  while IFS=$'\t' read -r n flags; do
    if [[ "$flags" == "-" ]]; then lines+=("$label	$strategy	$n	-	no-valid-point"); continue; fi
    if [[ -z "${lowered[$n]+x}" ]]; then
      lowered[$n]=same
      if [[ ! -f "$dir/old/alt$n.sr" ]] || { ((!prepare)) && [[ ! -f "$dir/new/alt$n.sr" ]]; }; then
        lines+=("$label	$strategy	$n	-	missing-alternative"); lowered[$n]=missing
      elif ((!prepare)) && ! cmp -s "$dir/old/alt$n.sr" "$dir/new/alt$n.sr"; then
        lowered[$n]=differs
      fi
      if ((verify)) && [[ "${lowered[$n]}" != missing ]]; then verify_numbering "$dir/old/alt$n.sr" "$strategy" "$n" "$dir"; fi
    fi
    [[ "${lowered[$n]}" == missing ]] && continue
    count[$n]=$((${count[$n]:-0} + 1))
    compile_both "$dir/old/alt$n.sr" "$dir/new/alt$n.sr" "$dir/alt$n/p${count[$n]}" "${flags#=}"
    ((prepare)) && continue
    result="$(compare_point "$dir/alt$n/p${count[$n]}")"
    lines+=("$label	$strategy	$n	${count[$n]}	$result	lowered-${lowered[$n]}")  # result: kernels, host
  done < <(printf '%s\n' "$points")
  ((prepare)) || printf '%s\n' "${lines[@]}" > "$dir/results.tsv"
}

# verify_numbering LOW STRATEGY N DIR: the valid points of the lowered alternative (its own
# space) against those `liftc space` gave alternative N of the strategy.
verify_numbering() {
  local low="$1" strategy="$2" n="$3" dir="$4" own given
  own="$(liftc_rules old space "$low" -s id --whole-program --samples 0 -t "$target" | sed -n 's/^valid points: \([^ ]*\).*/\1/p')"
  given="$(awk -v s="$strategy" -v n="$n" '$0 == "== strategy " s ", alternative " n " of " $7 { on = 1; next } /^== / { on = 0 } on && /^valid points:/ { print $3; exit }' "$dir/../space.txt")"
  echo "$strategy alternative $n: space of the lowered program $own, space's alternative $given" >> "$dir/../numbering.txt"
  [[ "$own" == "$given" ]] || echo "$strategy alternative $n: NUMBERING MISMATCH ($own against $given)" >&2
}

# Runs compare_strategy in the background, at most --jobs at once.
running=0
spawn() {
  while ((running >= jobs)); do wait -n || true; running=$((running - 1)); done
  compare_strategy "$@" &
  running=$((running + 1))
}

# space_of FILE DIR ARGS...: OLD's `liftc space FILE ARGS...` in DIR/space.txt (reused when
# an earlier run left it); fails as space does, its message in DIR/space.err.
space_of() {
  local file="$1" dir="$2"
  shift 2
  [[ -f "$dir/space.txt" ]] && return
  liftc_rules old space "$file" "$@" --samples "$samples" --seed "$seed" -t "$target" > "$dir/space.part" 2> "$dir/space.err" || return 1
  mv "$dir/space.part" "$dir/space.txt"
}

# compare_lowlevel LABEL FILE DIR: a low-level program compiled as written, at its own
# values and at the points of its space (strategy id).
compare_lowlevel() {
  local label="$1" file="$2" dir="$3" points=$'1\t' result
  local -a lines=()
  local -i i=0
  if space_of "$file" "$dir" -s id --whole-program; then
    points+=$'\n'"$(space_points "$dir/space.txt" | awk -F'\t' '$3 ~ /^=/ { print "1\t" substr($3, 2) }')"
  fi
  mkdir -p "$dir/as-written/old" "$dir/as-written/new"
  cp "$file" "$dir/as-written/old/alt1.sr"
  cp "$file" "$dir/as-written/new/alt1.sr"
  while IFS=$'\t' read -r _ flags; do
    i+=1
    compile_both "$dir/as-written/old/alt1.sr" "$dir/as-written/new/alt1.sr" "$dir/as-written/alt1/p$i" "$flags"
    ((prepare)) && continue
    result="$(compare_point "$dir/as-written/alt1/p$i")"
    lines+=("$label	(as written)	1	$i	$result	lowered-same")
  done < <(printf '%s\n' "$points")
  ((prepare)) || printf '%s\n' "${lines[@]}" > "$dir/as-written/results.tsv"
}

# compare_program LABEL FILE DIR: every strategy of FILE's space (each layer's, for a network).
compare_program() {
  local label="$1" file="$2" dir="$3" strategy n flags layer
  mkdir -p "$dir"
  if [[ "$label" == */lowlevel/* ]]; then compare_lowlevel "$label" "$file" "$dir"; return; fi
  if ! space_of "$file" "$dir"; then
    mkdir -p "$dir/space-failed"
    echo "$label	(space)	-	-	space-failed $dir/space.err" > "$dir/space-failed/results.tsv"
    return
  fi
  local listing
  listing="$(space_points "$dir/space.txt")"
  if [[ "$listing" == network* ]]; then
    if [[ ! -f "$dir/layers/names.txt" ]]; then
      rm -rf "$dir/layers" && mkdir -p "$dir/layers"
      write_layers "$file" "$dir/layers" > "$dir/layers/names.part"
      mv "$dir/layers/names.part" "$dir/layers/names.txt"
    fi
    while IFS= read -r layer; do
      compare_program "$label:$layer" "$dir/layers/$layer.sr" "$dir/layer-$layer"
    done < "$dir/layers/names.txt"
    return
  fi
  local -A points=()
  local -a order=() library=()
  while IFS=$'\t' read -r strategy n flags; do
    [[ -n "$strategy" ]] || continue
    if [[ "$flags" == library ]]; then library+=("$label	$strategy	$n	-	library"); continue; fi
    ((n <= alternatives)) || continue
    [[ -n "${points[$strategy]+x}" ]] || order+=("$strategy")
    # an alternative's header line ('?') is kept only when no sample follows it
    if [[ "$flags" == "-" ]]; then points[$strategy]+="$n	?"$'\n'; else points[$strategy]+="$n	$flags"$'\n'; fi
  done < <(printf '%s\n' "$listing")
  if ((${#library[@]})); then mkdir -p "$dir/library" && printf '%s\n' "${library[@]}" > "$dir/library/results.tsv"; fi
  for strategy in "${order[@]}"; do
    local kept
    kept="$(printf '%s' "${points[$strategy]}" | awk -F'\t' '
      { lines[NR] = $0; if ($2 != "?") sampled[$1] = 1 }
      END { for (i = 1; i <= NR; ++i) { split(lines[i], f, "\t"); if (f[2] != "?") print lines[i]; else if (!(f[1] in sampled)) print f[1] "\t-" } }')"
    spawn "$label" "$file" "$strategy" "$kept" "$dir/$strategy"
  done
}

((table_only)) && programs=()
((table_only)) || echo "compare_kernels.sh: OLD $old (rules $old_rules), NEW $new (rules $new_rules); work folder $work" >&2
for program in "${programs[@]}"; do
  [[ -f "$program" ]] || { echo "compare_kernels.sh: no program $program" >&2; exit 2; }
  label="$(absolute "$program")"
  label="${label#"$root/"}"
  dir="$work/$(echo "$label" | sed 's#^/##; s#[/.]#_#g')"
  if liftc old check "$program" | grep -E '^size [A-Za-z_][A-Za-z0-9_]*( in |$)' -q; then
    echo "compare_kernels.sh: $program: a size without a value, skipped" >&2
    continue
  fi
  echo "compare_kernels.sh: $program" >&2
  compare_program "$label" "$(absolute "$program")" "$dir"
done
while ((running > 0)); do wait -n || true; running=$((running - 1)); done
if ((prepare)); then echo "compare_kernels.sh: OLD's side is in $work: run again with --work $work" >&2; exit 0; fi

# The table: one row per program (or layer) and strategy.
find "$work" -name results.tsv -print0 | xargs -0 cat | sort -t$'\t' -k1,1 -k2,2 -k3,3n -k4,4n > "$work/all.tsv"
awk -F'\t' '
  function key() { return $1 "\t" $2 }
  !(key() in seen) { seen[key()] = 1; keys[++count] = key() }
  $5 == "no-valid-point" { empty[key()]++; next }
  $5 == "library" { library[key()]++; next }
  $5 ~ /^(rewrite-failed|space-failed|missing-alternative|incomplete)/ { note[key()] = $5 ($3 == "-" ? "" : " (alternative " $3 ")"); notes++; next }
  {
    alts[key(), $3] = 1; points[key()]++
    if ($5 == "same") same[key()]++
    else if ($5 == "failed") failed[key()]++
    else { differ[key()]++; if (!(key() in first)) first[key()] = substr($5, 8) }
    if ($6 != "host-same") { host[key()]++; if (!(key() in first_host)) first_host[key()] = substr($6, 14) }
    if ($7 == "lowered-differs" && !((key(), $3) in lowered_seen)) { lowered_seen[key(), $3] = 1; lowered[key()]++ }
  }
  END {
    print "| program | strategy | alternatives | points | identical | differing | failed alike | first difference | lowered .sr differs (alternatives) | host program differs (points) |"
    print "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
    for (i = 1; i <= count; ++i) {
      k = keys[i]; split(k, f, "\t"); n = 0
      for (a in alts) { split(a, g, SUBSEP); if (g[1] == k) n++ }
      what = n ""
      if (empty[k]) what = what " (+" empty[k] " without a valid point)"
      if (library[k]) what = "CLBlast: not compared"
      if (k in note) what = note[k]
      printf "| %s | %s | %s | %d | %d | %d | %d | %s | %d | %d |\n", f[1], f[2], what, points[k], same[k], differ[k], failed[k], (k in first) ? first[k] : "", lowered[k], host[k]
      tp += points[k]; ts += same[k]; td += differ[k]; tf += failed[k]; tl += lowered[k]; th += host[k]; ta += n
      if (k in first_host) example_host = first_host[k]
    }
    printf "| **total** | %d rows | %d | %d | %d | %d | %d | | %d | %d |\n", count, ta, tp, ts, td, tf, tl, th
    if (th) printf "\nhost program (main.cpp, CMakeLists.txt) differs at %d points, e.g. %s\n", th, example_host
    if (notes) printf "\n%d row(s) not compared in full: see their alternatives column\n", notes
    exit td + notes > 0
  }
' "$work/all.tsv"
