#!/usr/bin/env bash
# `vlag kernel check`'s outputs on the real captures, to compare two builds byte for byte (a
# change that only makes the kernel checks faster must not change a byte of what they print):
#
#   bench/kernel_check_outputs.sh corpus DIR [EXTRA...]   the captures into DIR, with mutants
#   bench/kernel_check_outputs.sh outputs CORPUS OUT      run $VLAG kernel check on each into OUT
#   diff -r OUT_BEFORE OUT_AFTER                          nothing: the outputs are the same
#
# The corpus: every perf text of tests/data/linux (with its first snapshot and group map when it
# has them), the state captures of tests/data/linux-state, any EXTRA perf text given (the bench
# captures of bench/kernel_check_vs_perf.sh), and mutants of some captures that give violations
# and trace problems: every event from a seeded line on delayed by 10 ms or 2 s (whatever ran
# there ran that much longer), a seeded line dropped. Per perf text OUT holds the text report, the
# JSON report, --worst 5, --cpu 1, with the snapshot and --hz 250, with the group map, and the
# exit codes; per state capture the text and JSON reports (no Z3) and their evidence files.
# VLAG defaults to build/cli/vlag.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
VLAG=${VLAG:-$root/build/cli/vlag}

make_corpus() {
  local dir=$1
  shift
  mkdir -p "$dir/perf" "$dir/state"
  local d name
  for d in "$root"/tests/data/linux/*/; do
    name=$(basename "$d")
    cp "$d/perf.txt" "$dir/perf/$name.txt"
    [ -f "$d/sched-debug.1.txt" ] && cp "$d/sched-debug.1.txt" "$dir/perf/$name.snapshot"
    [ -f "$d/groups.txt" ] && cp "$d/groups.txt" "$dir/perf/$name.groups"
  done
  for f in "$root"/tests/data/linux/*.perf.txt; do
    name=$(basename "$f" .perf.txt)
    cp "$f" "$dir/perf/$name.txt"
  done
  for d in "$root"/tests/data/linux-state/*/; do cp -r "$d" "$dir/state/$(basename "$d")"; done
  local n=0
  for f in "$@"; do
    n=$((n + 1))
    cp "$f" "$dir/perf/extra$n.txt"
  done
  local base seed
  for base in nice-a slices forty-a messaging cgroups-equal sessions; do
    for seed in 1 2 3; do
      python3 - "$dir/perf/$base.txt" "$dir/perf/mut-$base-$seed.txt" "$seed" <<'EOF'
import random, re, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src).read().split("\n")
rng = random.Random(seed)
head = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+):")
at = rng.randrange(len(lines) // 4, 3 * len(lines) // 4)
if seed == 3:
    del lines[at]
else:
    delta = 10_000_000 if seed == 1 else 2_000_000_000
    out = []
    for i, l in enumerate(lines):
        if "sched_stat_runtime" in l:
            continue
        m = head.search(l)
        if i > at and m:
            digits = len(m.group(3))
            scale = 10 ** (9 - digits)
            ns = int(m.group(2)) * 10**9 + int(m.group(3)) * scale + delta
            t = "%d.%0*d" % (ns // 10**9, digits, (ns % 10**9) // scale)
            l = l[: m.start(2)] + t + l[m.end(3) :]
        out.append(l)
    lines = out
open(dst, "w").write("\n".join(lines))
EOF
      for ext in snapshot groups; do
        [ -f "$dir/perf/$base.$ext" ] && cp "$dir/perf/$base.$ext" "$dir/perf/mut-$base-$seed.$ext"
      done
    done
  done
}

run_outputs() {
  local corpus=$1 out=$2
  mkdir -p "$out"
  local t name stem
  for t in "$corpus"/perf/*.txt; do
    name=$(basename "$t" .txt)
    stem=${t%.txt}
    (
      cd "$out"
      set +e
      run() {  # run SUFFIX ARGS...: the output and exit code of one kernel check
        local suffix=$1
        shift
        "$VLAG" kernel check "$@" >"$name.$suffix" 2>>"$name.err"
        echo "exit $?" >>"$name.$suffix"
      }
      run txt "$t"
      run json --json "$t"
      run worst.txt --worst 5 "$t"
      run cpu1.txt --cpu 1 "$t"
      if [ -f "$stem.snapshot" ]; then
        run snap.txt "$t" --snapshot "$stem.snapshot" --hz 250
        run snap.json --json "$t" --snapshot "$stem.snapshot" --hz 250
      fi
      if [ -f "$stem.groups" ]; then
        run groups.json --json "$t" --snapshot "$stem.snapshot" --groups "$stem.groups" --hz 250
      fi
    )
  done
  for t in "$corpus"/state/*/; do
    name=state-$(basename "$t")
    (
      cd "$out"
      set +e
      "$VLAG" kernel check --state --no-z3 --evidence-dir "ev-$name" "$t" >"$name.txt" 2>"$name.err"
      echo "exit $?" >>"$name.txt"
      "$VLAG" kernel check --state --no-z3 --json --evidence-dir "evj-$name" "$t" >"$name.json" \
        2>>"$name.err"
      echo "exit $?" >>"$name.json"
    )
  done
  # The reports name the capture by the path given; the corpus's own path is not part of them.
  grep -rl --null -F "$corpus/" "$out" | xargs -0 -r sed -i "s#$corpus/#CORPUS/#g"
}

case "${1:-}" in
  corpus)
    shift
    make_corpus "$@"
    ;;
  outputs) run_outputs "$2" "$3" ;;
  *)
    echo "usage: $0 corpus DIR [EXTRA...] | outputs CORPUS OUT" >&2
    exit 2
    ;;
esac
